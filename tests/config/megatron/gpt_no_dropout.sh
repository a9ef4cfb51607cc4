#!/bin/bash
# A small GPT (the Megatron-LM functional tests' 12 x 512 shape) with $DROP standing for both
# dropout probabilities (Megatron's default is 0.1; --set DROP=0 turns them off).
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 12 --hidden-size 512 --num-attention-heads 8 \
    --seq-length 1024 --max-position-embeddings 1024 \
    --hidden-dropout ${DROP:-0.1} --attention-dropout ${DROP:-0.1} \
    --transformer-impl local --tokenizer-type GPT2BPETokenizer \
    --micro-batch-size 4 --global-batch-size 32 --bf16
