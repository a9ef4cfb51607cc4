python pretrain_gpt.py --num-layers "4
::error file=x::pwned[31m"
