#!/bin/bash
# Sources a config that is not beside it: one line naming this file and line.
MODEL_ARGS="--num-layers 24 --hidden-size 2048 --num-attention-heads 16"
source ./cluster_config.sh
torchrun --nproc_per_node 8 pretrain_gpt.py $MODEL_ARGS --micro-batch-size 1 --global-batch-size 64
