// check's report: text, JSON, JUnit or SARIF (the CI formats in render_check_ci), and its
// exit code.
#pragma once

#include <string>
#include <vector>

#include "output/output_format.hpp"
#include "report/file_check.hpp"

namespace tpcost::cli {

std::string render_check(const std::vector<file_check>& files, output_format format);
/// 2 if any file was invalid, else 1 if any rule failed, else 0.
int check_exit_code(const std::vector<file_check>& files);

}  // namespace tpcost::cli
