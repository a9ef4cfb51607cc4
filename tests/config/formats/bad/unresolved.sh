#!/bin/bash
# TP_SIZE comes from the environment of the job, which tpcost cannot see.
GPT_ARGS=(
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048
    --tensor-model-parallel-size $TP_SIZE
    --micro-batch-size 1 --global-batch-size 64
)
torchrun --nproc_per_node 8 pretrain_gpt.py ${GPT_ARGS[@]}
