#!/bin/bash
# Written for tpcost's tests: Megatron-Core's fine-grained activation offloading
# (TransformerConfig.fine_grained_activation_offloading and offload_modules, core_v0.16.0), the
# modules listed as nargs words.
MODULES="qkv_linear core_attn attn_proj"
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 \
    --micro-batch-size 1 --global-batch-size 64 \
    --fine-grained-activation-offloading --offload-modules $MODULES
