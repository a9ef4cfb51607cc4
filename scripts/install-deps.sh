#!/usr/bin/env bash
# Installs the Debian packages tpcost needs to build and test, if any is missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

# Build and test: the compiler, CMake, the libraries, Catch2, clang-format; yaml-cpp and toml++
# for the CLI's readers of Megatron-Bridge YAML and torchtitan TOML configs.
# Config checks: clang + libclang-rt-14-dev (libFuzzer), python3-jsonschema (the schema
# agreement test), libxml2-utils (xmllint checks the JUnit output and the SVG).
# Charts and packaging: gnuplot-nox (--plot), groff-base (checks the man page), pkgconf (the
# pkg-config check), dpkg-dev (dpkg-shlibdeps computes the .deb's Depends), bash, zsh and fish
# (the completion scripts are run in each). Benchmarks (make bench): libbenchmark-dev.
packages=(cmake ninja-build g++ make libfmt-dev libcli11-dev nlohmann-json3-dev catch2 clang-format
          libyaml-cpp-dev libtomlplusplus-dev
          clang libclang-rt-14-dev python3 python3-jsonschema libxml2-utils
          gnuplot-nox groff-base pkgconf dpkg-dev zsh fish libbenchmark-dev "$@")

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
