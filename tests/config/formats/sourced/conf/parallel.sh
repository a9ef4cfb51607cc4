#!/bin/bash
# Sourced by ../train.sh: the layout, $TP set by the script that sources this file.
PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP
    --pipeline-model-parallel-size 2
)
