#!/bin/bash
# The folder of the sourced file comes from the job's environment, which tpcost cannot see.
source ${CONFIG_DIR}/model.sh
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048
