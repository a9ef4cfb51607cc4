#!/bin/bash
# A mixture of experts on the alltoall_seq dispatcher of older Megatron-Core releases, not costed.
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 8 \
    --moe-token-dispatcher-type alltoall_seq --micro-batch-size 1 --global-batch-size 64
