#!/bin/bash
# Sourced by ../train_flags.sh: the model's flags in one plain (not array) variable, which the
# script expands unquoted (SC21's CONFIG.sh style).
GPT_FLAGS="--num-layers 24 --hidden-size 2048 --num-attention-heads ${HEADS:-16} --seq-length 4096 --max-position-embeddings 4096 --vocab-size 32000"
