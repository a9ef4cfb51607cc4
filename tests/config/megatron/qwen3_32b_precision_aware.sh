#!/bin/bash
# qwen3_32b_kv_channels.sh with Megatron-Core's precision-aware optimizer: bf16 gradients and
# moments, fp32 master weights (Transformer Engine keeps their 16-bit remainders). $EXP_AVG
# stands for --exp-avg-dtype (--set EXP_AVG=... tries other values).
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
    --use-precision-aware-optimizer --main-grads-dtype bf16 --main-params-dtype fp32 \
    --exp-avg-dtype ${EXP_AVG:-bf16} --exp-avg-sq-dtype bf16 \
    --micro-batch-size 1 --global-batch-size 256 --bf16
