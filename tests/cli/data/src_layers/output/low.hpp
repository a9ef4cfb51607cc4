// A fixture of scripts/src-layers.py: an output/ header that includes a renderer.
#pragma once

#include "render/high.hpp"
