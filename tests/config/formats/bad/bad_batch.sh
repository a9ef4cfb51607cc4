#!/bin/bash
# 8 GPUs at TP 2: DP 4, micro-batch 2, so the global batch must be a multiple of 8.
torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 \
    --vocab-size 50257 --tensor-model-parallel-size 2 \
    --micro-batch-size 2 \
    --global-batch-size 12 \
    --bf16
