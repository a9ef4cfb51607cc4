// check's reports for CI: JUnit XML, SARIF 2.1.0 for code scanning, and GitHub Actions
// workflow commands. Every user-controlled string passes the output sanitiser first.
#pragma once

#include <string>
#include <vector>

#include "report/file_check.hpp"

namespace tpcost::cli {

std::string check_junit(const std::vector<file_check>& files);
/// SARIF 2.1.0: one result per failed rule or invalid file.
std::string check_sarif(const std::vector<file_check>& files);
/// GitHub Actions workflow commands (::error file=...::) for each failed rule or invalid file.
std::string render_annotations(const std::vector<file_check>& files);

}  // namespace tpcost::cli
