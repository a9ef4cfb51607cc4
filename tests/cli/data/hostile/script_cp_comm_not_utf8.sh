python pretrain_gpt.py --num-layers 2 --context-parallel-size 2 --cp-comm-type "ÿþ"
