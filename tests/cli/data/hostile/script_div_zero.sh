TP=$((8 / 0))
python pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers 4
