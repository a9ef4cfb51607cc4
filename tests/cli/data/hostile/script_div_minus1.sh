TP=$((-9223372036854775808 / -1))
python pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 4
