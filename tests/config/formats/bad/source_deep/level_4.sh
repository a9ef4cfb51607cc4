#!/bin/bash
# Level 4 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_5.sh
