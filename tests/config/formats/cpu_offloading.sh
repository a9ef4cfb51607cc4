#!/bin/bash
# Written for tpcost's tests: Megatron-Core's --cpu-offloading of 6 layers' activations
# (TransformerConfig.cpu_offloading_num_layers, core_v0.16.0).
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --micro-batch-size 1 --global-batch-size 64 \
    --cpu-offloading --cpu-offloading-num-layers 6
