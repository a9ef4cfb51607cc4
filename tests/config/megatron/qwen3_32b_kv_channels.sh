#!/bin/bash
# Qwen3-32B (HF config.json: 64 layers, h 5120, 64 heads, 8 KV heads, head_dim 128,
# intermediate 25600, vocab 151936) under Megatron-LM's argument names; --kv-channels 128
# is the head dimension that 5120 / 64 = 80 is not.
GPUS_PER_NODE=8
NNODES=${NNODES:-4}

torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \
    --num-layers 64 --hidden-size 5120 --ffn-hidden-size 25600 \
    --num-attention-heads 64 --group-query-attention --num-query-groups 8 \
    --kv-channels 128 --seq-length 4096 --max-position-embeddings 40960 \
    --swiglu --normalization RMSNorm --disable-bias-linear \
    --untie-embeddings-and-output-weights --position-embedding-type rope \
    --vocab-size 151936 --make-vocab-size-divisible-by 128 \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 1 \
    --sequence-parallel --use-distributed-optimizer \
    --micro-batch-size 1 --global-batch-size 256 --bf16
