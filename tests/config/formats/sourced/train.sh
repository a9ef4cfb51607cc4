#!/bin/bash
# Written for tpcost's tests (issue 29): the model's flags in a file sourced through a variable,
# `. $CONF/model.sh` ($CONF relative to this script's folder, as tpcost reads a relative source
# path), the layout in one sourced with `source "${CONF}/parallel.sh"`. $HEADS stands for the
# number of attention heads, so that an error in a sourced file can name its line.
CONF=${CONF:-./conf}
TP=${TP:-2}
. $CONF/model.sh
source "${CONF}/parallel.sh"
torchrun --nproc_per_node 8 pretrain_gpt.py "${MODEL_ARGS[@]}" "${PARALLEL_ARGS[@]}" \
    --micro-batch-size 1 --global-batch-size 64 --bf16
