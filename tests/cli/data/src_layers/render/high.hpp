// A fixture of scripts/src-layers.py: a renderer.
#pragma once
