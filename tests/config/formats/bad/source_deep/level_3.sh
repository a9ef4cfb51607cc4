#!/bin/bash
# Level 3 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_4.sh
