#!/bin/bash
# Written by hand for the Slurm job-size tests (tests/config/megatron/README.md), in the manner
# of SC21's CONFIG.sh and SBATCH.sh: the flags exported in MEGATRON_PARAMS, the job submitted
# with `sbatch -N $NODES` to SC21's SRUN.sh, whose `#SBATCH --ntasks-per-node=8` gives one task
# per GPU, 8 per node ($SCRIPT: another batch script, whose #SBATCH --nodes the -N overrides).
NODES=${NODES:-16}
SCRIPT=${SCRIPT:-sc21/SRUN.sh}
export MEGATRON_PARAMS="--num-layers 24 --hidden-size 2048 --num-attention-heads 16 \
  --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 4 \
  --global-batch-size 512 --tensor-model-parallel-size 2 --vocab-size 50304 --bf16"
sbatch -N ${NODES} --exclusive --export=MEGATRON_PARAMS ${SCRIPT}
