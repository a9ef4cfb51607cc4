// The library's version; CMake reads these three lines.
#pragma once

#define TPCOST_VERSION_MAJOR 0
#define TPCOST_VERSION_MINOR 1
#define TPCOST_VERSION_PATCH 0
#define TPCOST_VERSION "0.1.0"
