// Helpers for end-to-end tests: run the real `tpcost` binary and read files back.
#pragma once

#include <sys/wait.h>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace tpcost::test {

struct run_result {
  int exit_code;
  std::string out;
};

/// Runs `tpcost <args>` through the shell, capturing stdout (stderr goes to /dev/null).
inline run_result run(const std::string& args) {
  // A UTF-8 locale, as the expected outputs are written; ASCII mode has tests of its own.
  const std::string command =
      "LANG=C.UTF-8 LC_ALL= LC_CTYPE= " + std::string(TPCOST_BINARY) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    out.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

/// The whole file, bytes as they are.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tpcost::test
