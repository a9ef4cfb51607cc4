#!/bin/bash
# Written for tpcost's tests: an if/elif/else chain on a known string is decided as bash would
# ($MODE picks TP); one on a file test cannot be, and both of its branches are read (the last
# assignment of PP wins, as before).
MODE=${MODE:-small}
if [ "$MODE" == "small" ]; then TP=2
elif [[ $MODE == "large" ]]; then
    TP=4
    if [ "$MODE" != "large" ]; then TP=1; fi
else
    TP=8
fi
if [ -f /etc/cluster.conf ]; then
    PP=2
else
    PP=4
fi
torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py --tensor-model-parallel-size $TP \
    --pipeline-model-parallel-size $PP --num-layers 32 --hidden-size 4096 \
    --num-attention-heads 32 --seq-length 4096 --micro-batch-size 1 --global-batch-size 64 \
    --vocab-size 32000 --bf16
