#!/bin/bash
# Sources a chain of files deeper than tpcost follows.
source source_deep/level_1.sh
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 24
