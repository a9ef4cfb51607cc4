#!/usr/bin/env bash
# Installs the Debian packages tpcost needs, if any is missing.
# Usage: scripts/install-deps.sh [--minimal] [extra-package ...]
#   --minimal   only what building and running the tpcost CLI needs (make demo)
#   (default)   everything the whole test set-up needs as well (make test)
set -euo pipefail

# Building and running the CLI: the compiler, CMake, and the libraries the CLI links (fmt,
# CLI11, nlohmann/json; yaml-cpp and toml++ for the readers of Megatron-Bridge YAML and torchtitan
# TOML configs; see src/CMakeLists.txt). A library the CLI itself links goes here.
minimal=(cmake ninja-build g++ make libfmt-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
         libtomlplusplus-dev)

# The tests on top: Catch2, clang-format (make format-check), clang-tidy (make tidy), python3 (scripts/regen-docs.py,
# the docs test). Config checks: clang + libclang-rt-14-dev (libFuzzer), python3-jsonschema (the
# schema agreement test), libxml2-utils (xmllint checks the JUnit output and the SVG).
# Charts and packaging: gnuplot-nox (--plot), groff-base (checks the man page), pkgconf (the
# pkg-config check), dpkg-dev (dpkg-shlibdeps computes the .deb's Depends), bash, zsh and fish
# (the completion scripts are run in each). Benchmarks (make bench): libbenchmark-dev.
testing=(catch2 clang-format clang-tidy clang libclang-rt-14-dev python3 python3-jsonschema
         libxml2-utils gnuplot-nox groff-base pkgconf dpkg-dev zsh fish libbenchmark-dev)

packages=("${minimal[@]}")
if [ "${1:-}" = "--minimal" ]; then
  shift
else
  packages+=("${testing[@]}")
fi
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tpcost: installing missing packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "tpcost: error: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
