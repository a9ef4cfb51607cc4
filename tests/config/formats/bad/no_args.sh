#!/bin/bash
# Preprocesses the data: no training arguments here.
python tools/preprocess_data.py \
    --input data.jsonl \
    --output-prefix data \
    --workers 8
