// A fixture of scripts/src-layers.py: a file at the root.
#include "output/low.hpp"
