// One error hierarchy for the whole library: callers catch `tpcost::error` once.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace tpcost {

/// Base of every error the library throws; `what()` is one line meant for the user.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value given by the user is outside what the model accepts. `field()` names the input
/// ("batch", "--bandwidth", "/parallel/tp"), `detail()` says what was found and what is valid;
/// `what()` is "field: detail".
class invalid_spec : public error {
 public:
  invalid_spec(std::string field, std::string detail)
      : error(field + ": " + detail), field_(std::move(field)), detail_(std::move(detail)) {}

  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  std::string field_;
  std::string detail_;
};

/// A text such as "600GB/s" or "bf16" could not be read as the quantity that was asked for.
class parse_error : public invalid_spec {
 public:
  using invalid_spec::invalid_spec;
};

}  // namespace tpcost
