#!/bin/bash
# tpcost fixture: NVIDIA/Megatron-LM examples/academic_paper_scripts/sc21/SBATCH.sh at commit
# d98e8a64ddf34856e74b24714e3bedb2f5a39553 (last changed in 10e7b74), BSD-3-Clause. Only these
# three comment lines are added; nothing is trimmed (tests/config/megatron/README.md).


sbatch -p ${SLURM_PARTITION} \
       -A ${SLURM_ACCOUNT} \
       --job-name=${JOB_NAME} \
       --nodes=${NNODES} \
       --export=MEGATRON_CODE_DIR,MEGATRON_PARAMS,DOCKER_MOUNT_DIR SRUN.sh

exit 0



