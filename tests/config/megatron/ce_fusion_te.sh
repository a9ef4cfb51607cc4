#!/bin/bash
# A small GPT (the Megatron-LM functional tests' 12 x 512 shape) with Transformer Engine's fused
# cross entropy (--cross-entropy-loss-fusion --cross-entropy-fusion-impl te, arguments.py).
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 12 --hidden-size 512 --num-attention-heads 8 \
    --seq-length 1024 --max-position-embeddings 1024 \
    --tokenizer-type GPT2BPETokenizer \
    --micro-batch-size 4 --global-batch-size 32 --bf16 \
    --cross-entropy-loss-fusion --cross-entropy-fusion-impl te
