#!/bin/bash
# Level 8 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_9.sh
