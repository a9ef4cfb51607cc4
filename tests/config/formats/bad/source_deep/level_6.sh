#!/bin/bash
# Level 6 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_7.sh
