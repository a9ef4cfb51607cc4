#!/bin/bash
# Written by hand for tpcost's tests (tests/config/megatron/README.md): a GPT job at TP 4 whose
# vocabulary comes from its tokenizer ($TOK, default pretrain_gpt.py's GPT2BPETokenizer) and
# $VOCAB_ARGS (e.g. --vocab-size N), padded to a multiple of 128 x 4 = 512 as Megatron pads it.
TOK=${TOK:-GPT2BPETokenizer}
VOCAB_ARGS=${VOCAB_ARGS:-"--vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt"}
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --tensor-model-parallel-size 4 --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 2048 --micro-batch-size 1 --global-batch-size 64 \
    --bf16 --tokenizer-type ${TOK} ${VOCAB_ARGS}
