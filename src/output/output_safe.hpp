// The CLI's name for the one output sanitiser, tpcost::output_safe (include/tpcost/base/quote.hpp):
// control bytes and newlines as \xNN, invalid UTF-8 escaped, U+FFFE/U+FFFF as \uFFFE/\uFFFF, a
// leading "::" escaped, and an optional cut to a byte limit (issue 30).
#pragma once

#include "tpcost/base/quote.hpp"

namespace tpcost::cli {

using tpcost::output_safe;

}  // namespace tpcost::cli
