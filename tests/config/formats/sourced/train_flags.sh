#!/bin/bash
# Written for tpcost's tests (issue 29): the model's flags in a plain variable of a sourced file,
# expanded on the torchrun line; an error in them names the sourced file's line, where they are
# written, not this file's.
source ./conf/flags.sh
torchrun --nproc_per_node 8 pretrain_gpt.py $GPT_FLAGS \
    --tensor-model-parallel-size 2 --micro-batch-size 1 --global-batch-size 64 --bf16
