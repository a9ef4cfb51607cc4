#!/bin/bash
# Written for tpcost's tests: selective recomputation of the modules in $MODULES (Megatron's
# --recompute-modules, a list; TransformerConfig's default is core_attn alone).
MODULES=${MODULES:-"core_attn mlp moe_act"}
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --micro-batch-size 1 --global-batch-size 64 \
    --recompute-granularity selective --recompute-modules $MODULES
