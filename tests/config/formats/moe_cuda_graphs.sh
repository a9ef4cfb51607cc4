#!/bin/bash
# moe_allgather.sh on the alltoall dispatcher with CUDA graphs as the Megatron-MoE-ModelZoo
# Qwen3 commands give them (--cuda-graph-impl, --cuda-graph-scope: a list, nargs='+';
# megatron/training/arguments.py, core_v0.16.0). GRAPHS and SCOPE are variables so that a test
# can change them (GRAPHS=--enable-cuda-graph: the deprecated spelling of --cuda-graph-impl local).
GRAPHS=${GRAPHS:-"--cuda-graph-impl transformer_engine"}
SCOPE=${SCOPE:-"attn moe_router moe_preprocess"}
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
    --num-attention-heads 16 --seq-length 4096 --vocab-size 32000 --bf16 \
    --num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 8 \
    --moe-token-dispatcher-type alltoall --micro-batch-size 1 --global-batch-size 64 \
    $GRAPHS --cuda-graph-scope $SCOPE --cuda-graph-warmup-steps 2
