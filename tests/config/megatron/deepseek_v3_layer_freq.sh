#!/bin/bash
# Written for tpcost's tests (not from Megatron-LM): DeepSeek-V3's MoE flags as the
# Megatron-MoE-ModelZoo launches it (3 dense layers, then experts in every layer), with MLA
# (DeepSeek-V3's q_lora 1536, kv_lora 512, head dims 128 + 64, v 128: its HF config.json) and
# the MTP layer, on 16 stages of 3, 14 x 4 and 2 layers. $FREQ replaces the pattern;
# --set MLA= drops the MLA and MTP switches; $GROUPS is its node-limited routing (n_group 8,
# topk_group 4 in the config.json).
FREQ=${FREQ:-"([0]*3+[1]*58)"}
MLA="--multi-latent-attention --mtp-num-layers 1"
GROUPS="--moe-router-num-groups 8 --moe-router-group-topk 4"
torchrun --nproc_per_node 8 --nnodes 128 pretrain_gpt.py \
    --num-layers 61 --hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 \
    --seq-length 4096 --max-position-embeddings 4096 --vocab-size 129280 \
    --swiglu --normalization RMSNorm --disable-bias-linear --untie-embeddings-and-output-weights \
    $MLA --q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 \
    --qk-pos-emb-head-dim 64 --v-head-dim 128 \
    --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size 2048 \
    --moe-shared-expert-intermediate-size 2048 --moe-layer-freq "$FREQ" \
    --moe-router-score-function sigmoid --moe-router-enable-expert-bias $GROUPS \
    --moe-token-dispatcher-type flex --moe-enable-deepep \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 16 \
    --decoder-first-pipeline-num-layers 3 --decoder-last-pipeline-num-layers 2 \
    --expert-model-parallel-size 64 --use-distributed-optimizer \
    --micro-batch-size 1 --global-batch-size 8192 --bf16
