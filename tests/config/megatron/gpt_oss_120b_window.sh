#!/bin/bash
# Written by hand for the attention-window tests (tests/config/megatron/README.md): GPT-OSS-120B's
# shapes (openai/gpt-oss-120b config.json; tpcost's gpt-oss-120b preset) under Megatron-LM's
# argument names (megatron/training/arguments.py, core_v0.16.0), without its linear biases (a
# tpcost config cannot state biases with SwiGLU and RMSNorm). $WINDOW and $SKIP stand for
# --window-size and --window-attn-skip-freq: 127,0 is a causal window of 128 keys (the query
# and the 127 before it), every 2nd layer full, as GPT-OSS alternates them.
GPUS_PER_NODE=8
NNODES=8
WINDOW=${WINDOW:-127,0}
SKIP=${SKIP:-2}

MODEL_ARGS=(
    --num-layers 36
    --hidden-size 2880
    --ffn-hidden-size 2880
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --kv-channels 64
    --seq-length 4096
    --max-position-embeddings 131072
    --position-embedding-type rope
    --swiglu
    --normalization RMSNorm
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --window-size $WINDOW
    --window-attn-skip-freq $SKIP
    --tokenizer-type NullTokenizer
    --vocab-size 201087
)

MOE_ARGS=(
    --num-experts 128
    --moe-router-topk 4
    --moe-ffn-hidden-size 2880
    --moe-token-dispatcher-type alltoall
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 512
    --bf16
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --pipeline-model-parallel-size 1
    --expert-model-parallel-size 8
    --use-distributed-optimizer
)

torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    ${MOE_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${MODEL_PARALLEL_ARGS[@]}
