#!/bin/bash
# Written by hand for the head-dimension tests (tests/config/megatron/README.md): Qwen3-30B-A3B
# (Qwen/Qwen3-30B-A3B config.json: head_dim 128 with hidden 2048 / 32 heads = 64) under
# Megatron-LM's argument names (megatron/training/arguments.py), in the shape of
# examples/mixtral/train_mixtral_8x7b_distributed.sh. $KV stands for --kv-channels; $MBS,
# $GBS and $EP let the tests state contradictions.
GPUS_PER_NODE=8
NNODES=1
KV=${KV:-"--kv-channels 128"}
MBS=${MBS:-1}
GBS=${GBS:-256}
EP=${EP:-8}

MODEL_ARGS=(
    --num-layers 48
    --hidden-size 2048
    --ffn-hidden-size 6144
    --num-attention-heads 32
    --group-query-attention
    --num-query-groups 4
    $KV
    --seq-length 4096
    --max-position-embeddings 40960
    --position-embedding-type rope
    --swiglu
    --normalization RMSNorm
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --vocab-size 151936
)

MOE_ARGS=(
    --num-experts 128
    --moe-router-topk 8
    --moe-ffn-hidden-size 768
    --moe-token-dispatcher-type alltoall
)

TRAINING_ARGS=(
    --micro-batch-size $MBS
    --global-batch-size $GBS
    --bf16
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --pipeline-model-parallel-size 1
    --expert-model-parallel-size $EP
    --use-distributed-optimizer
)

torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    ${MOE_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${MODEL_PARALLEL_ARGS[@]}
