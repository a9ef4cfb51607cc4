#!/bin/bash
# Level 7 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_8.sh
