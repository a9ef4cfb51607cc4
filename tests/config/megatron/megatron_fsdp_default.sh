#!/bin/bash
# Written by hand for tpcost's tests (tests/config/megatron/README.md): Megatron-FSDP without
# --data-parallel-sharding-strategy, whose default depends on the release the job checks out
# ($MCORE_RELEASE: no_shard up to core 0.17, optim_grads_params from 0.18); $HSDP adds flags.
git -C "${MEGATRON_DIR}" checkout "${MCORE_RELEASE}"
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
    --group-query-attention --num-query-groups 8 --seq-length 8192 --vocab-size 128256 \
    --swiglu --normalization RMSNorm --disable-bias-linear --untie-embeddings-and-output-weights \
    --micro-batch-size 1 --global-batch-size 128 --bf16 \
    --use-megatron-fsdp --use-distributed-optimizer ${HSDP:-}
