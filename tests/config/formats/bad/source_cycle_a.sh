#!/bin/bash
# Sources source_cycle_b.sh, which sources this file back: a cycle.
TP=2
. ./source_cycle_b.sh
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 24
