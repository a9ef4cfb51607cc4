// Umbrella header: the whole core library. Includes the core headers and nothing else.
#pragma once

#include "tpcost/activation_memory.hpp"
#include "tpcost/collectives.hpp"
#include "tpcost/degree_list.hpp"
#include "tpcost/dtype.hpp"
#include "tpcost/error.hpp"
#include "tpcost/hardware.hpp"
#include "tpcost/metrics.hpp"
#include "tpcost/parse.hpp"
#include "tpcost/sweep.hpp"
#include "tpcost/tensor_parallel.hpp"
#include "tpcost/topology.hpp"
#include "tpcost/tp_layer_options.hpp"
#include "tpcost/units.hpp"
#include "tpcost/version.hpp"
