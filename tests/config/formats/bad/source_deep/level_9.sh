#!/bin/bash
# Level 9 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_10.sh
