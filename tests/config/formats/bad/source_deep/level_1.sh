#!/bin/bash
# Level 1 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_2.sh
