#!/bin/bash
# Sourced by source_cycle_a.sh, and sources it again.
PP=1
source source_cycle_a.sh
