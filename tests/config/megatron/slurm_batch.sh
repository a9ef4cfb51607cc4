#!/bin/bash
#SBATCH --job-name=gpt-1.3b
#SBATCH --nodes=4
#SBATCH --gpus-per-node=h100:8   # Slurm's [type:]count
#SBATCH --ntasks-per-node=1
# Written by hand for the Slurm job-size tests (tests/config/megatron/README.md): a batch script
# whose #SBATCH lines give the job size (slurm sbatch(1)), a 1.3B GPT under Megatron-LM's
# argument names, run by torchrun with $SLURM_NNODES (which Slurm sets from --nodes) when
# $LAUNCH is torchrun, by srun with one task per GPU otherwise.
LAUNCH=${LAUNCH:-srun}

GPT_ARGS="--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 \
  --max-position-embeddings 2048 --micro-batch-size 4 --global-batch-size 256 \
  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 --vocab-size 50304 --bf16"

if [ "$LAUNCH" == "torchrun" ]; then
    srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 8 pretrain_gpt.py $GPT_ARGS
else
    srun python pretrain_gpt.py $GPT_ARGS
fi
