#!/bin/bash
# Level 2 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_3.sh
