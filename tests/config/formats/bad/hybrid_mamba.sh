#!/bin/bash
# A hybrid Mamba-Transformer launch (Megatron-LM pretrain_mamba.py flags, as in its functional
# test nemotron3_5_lightning): tpcost refuses it rather than cost Mamba layers as attention.
torchrun --nproc_per_node 4 pretrain_mamba.py \
    --num-layers 52 --hidden-size 2688 --num-attention-heads 32 \
    --mamba-num-heads 64 --seq-length 8192 --vocab-size 131072 \
    --micro-batch-size 2 --global-batch-size 32 --bf16
