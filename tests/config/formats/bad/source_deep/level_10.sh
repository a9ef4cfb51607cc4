#!/bin/bash
# Level 10 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_11.sh
