// Element types and their sizes in bytes (the seed's `d`).
#pragma once

#include <string>

namespace tpcost {

/// A floating-point element type as used for activations on the wire.
/// `name` is what the user typed or the canonical name; `size_bytes` is the seed's `d`.
struct dtype {
  std::string name;
  int size_bytes = 0;
};

}  // namespace tpcost
