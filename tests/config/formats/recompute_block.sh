#!/bin/bash
# Written for tpcost's tests: full recomputation of $N layers per pipeline stage by the block
# method (Megatron-Core's --recompute-method and --recompute-num-layers, core_v0.16.0).
N=${N:-4}
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --micro-batch-size 1 --global-batch-size 64 --pipeline-model-parallel-size 2 \
    --recompute-granularity full --recompute-method block --recompute-num-layers $N
