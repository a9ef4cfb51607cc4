#!/bin/bash
# Level 5 of a chain of sourced files ten deep (tpcost follows eight).
source ./level_6.sh
