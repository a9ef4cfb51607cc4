#!/bin/bash
# The end of the chain.
TP=1
