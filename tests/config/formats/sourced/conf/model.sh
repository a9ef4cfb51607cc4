#!/bin/bash
# Sourced by ../train.sh: a GPT model's dimensions.
MODEL_ARGS=(
    --num-layers 24
    --hidden-size 2048
    --num-attention-heads ${HEADS:-16}
    --seq-length 4096
    --max-position-embeddings 4096
    --vocab-size 32000
)
