#!/usr/bin/env bash
# Proves that what `cmake --install` and the .deb ship works outside the source tree.
#   1. cmake --install into BUILD/stage; the headers, binary, CMake package, pkg-config files,
#      man page and completions are there.
#   2. examples/consumer is configured against the stage alone with find_package(tpcost),
#      built and run (tpcost::core, and tpcost::io as a component).
#   3. A one-file program is compiled with `pkg-config --cflags tpcost` (and tpcost-io).
#   4. CPack builds the .deb; it is extracted with dpkg-deb -x into a temporary directory and its
#      tpcost --version runs from there; its Depends are installed here; it holds the man page
#      and the completions, and its bash completion loads.
# The .deb is extracted rather than installed with dpkg -i: the check then changes nothing on
# the machine (CI runs as root on a developer's machine, where an installed /usr/bin/tpcost
# would shadow the build tree's), and it checks the same files. `dpkg --dry-run -i` checks
# that dpkg would accept it, dependencies included, without installing anything.
# Usage: scripts/check-package.sh [BUILD_DIR]   (default build/ci, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(cd "${1:-build/ci}" && pwd)
stage=$build/stage
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "check-package: $*"; }
die() { echo "check-package: FAIL: $*" >&2; exit 1; }

version=$("$build/src/tpcost" --version)
step "tpcost $version from $build"

# 1. Staged install.
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" >/dev/null
for f in bin/tpcost include/tpcost/tpcost.hpp include/tpcost/step/step.hpp include/tpcost/io/format.hpp \
         share/cmake/tpcost/tpcostConfig.cmake share/cmake/tpcost/tpcostConfigVersion.cmake \
         share/cmake/tpcost/tpcost-core-targets.cmake share/cmake/tpcost/tpcost-io-targets.cmake \
         share/pkgconfig/tpcost.pc share/pkgconfig/tpcost-io.pc share/man/man1/tpcost.1 \
         share/bash-completion/completions/tpcost share/zsh/vendor-completions/_tpcost \
         share/fish/vendor_completions.d/tpcost.fish; do
  [ -e "$stage/$f" ] || die "cmake --install did not install $f"
done
[ "$("$stage/bin/tpcost" --version)" = "$version" ] || die "the staged tpcost has another version"
step "cmake --install: $(find "$stage" -type f | wc -l) files in $stage"

# 2. The consumer project, against the stage only.
consumer=$build/consumer
rm -rf "$consumer"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$root/examples/consumer" -B "$consumer" "${generator[@]}" \
      -DCMAKE_PREFIX_PATH="$stage" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
      -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; die "examples/consumer does not configure"; }
found=$(sed -n 's/^tpcost_DIR:PATH=//p' "$consumer/CMakeCache.txt")
[ "$found" = "$stage/share/cmake/tpcost" ] || die "find_package(tpcost) found '$found', not the stage"
cmake --build "$consumer" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; die "examples/consumer does not build"; }
out=$("$consumer/consumer")
[[ $out == "tpcost $version: E(8) = 0.734, t* = 22.12" ]] || die "consumer printed '$out'"
step "find_package(tpcost): $out"
out=$("$consumer/consumer_io")
[[ $out == "comm per layer 536.9 MB, schema tpcost.sweep/1" ]] || die "consumer_io printed '$out'"
step "find_package(tpcost COMPONENTS io): $out"
# A version the package must refuse: 0.x releases are compatible only within a minor version.
cat > "$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wrong_version LANGUAGES CXX)  # FindThreads (a dependency) needs C or CXX
find_package(tpcost 9.0 QUIET)
if(tpcost_FOUND)
  message(FATAL_ERROR "tpcost 9.0 accepted")
endif()
find_package(tpcost QUIET COMPONENTS nonexistent)
if(tpcost_FOUND)
  message(FATAL_ERROR "an unknown component accepted")
endif()
CMAKE
cmake -S "$work" -B "$work/b" -DCMAKE_PREFIX_PATH="$stage" >/dev/null 2>&1 ||
  die "the package accepts tpcost 9.0 or an unknown component"
step "find_package(tpcost 9.0) and COMPONENTS nonexistent are refused"

# 3. pkg-config, in a directory away from the sources.
export PKG_CONFIG_PATH="$stage/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
[ "$(pkg-config --modversion tpcost)" = "$version" ] || die "pkg-config --modversion tpcost"
cp "$root/examples/consumer/consumer.cpp" "$root/examples/consumer/consumer_io.cpp" "$work/"
# shellcheck disable=SC2046  # the flags are words
(cd "$work" && c++ -std=c++20 $(pkg-config --cflags tpcost) consumer.cpp -o pc_consumer &&
  c++ -std=c++20 $(pkg-config --cflags tpcost-io) consumer_io.cpp -o pc_consumer_io \
      $(pkg-config --libs tpcost-io)) || die "the pkg-config build failed"
[[ $("$work/pc_consumer") == "tpcost $version: "* ]] || die "the pkg-config consumer failed"
"$work/pc_consumer_io" >/dev/null || die "the pkg-config io consumer failed"
step "pkg-config: $(pkg-config --cflags tpcost)"

# 4. The .deb.
rm -rf "$build/package"
cpack --config "$build/CPackConfig.cmake" -B "$build/package" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; die "cpack failed"; }
deb=$(find "$build/package" -maxdepth 1 -name 'tpcost_*.deb' | head -1)
[ -n "$deb" ] || die "cpack made no .deb"
[ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || die "the .deb's version is not $version"
depends=$(dpkg-deb --field "$deb" Depends)
# The CLI is a static PIE (TPCOST_STATIC_RUNTIME, for start-up time): it needs no package at
# all; where the toolchain could not link one, the C++ runtime alone is static and libc6 is the
# one dependency.
if ! readelf -d "$build/src/tpcost" | grep -q '(NEEDED)'; then
  [[ -z $depends ]] || die "a static CLI, yet the .deb depends on '$depends'"
else
  [[ $depends == *libc6* ]] || die "Depends lacks libc6: '$depends'"
fi
[[ $depends != *libstdc++* && $depends != *libfmt* && $depends != *yaml* && $depends != *toml* ]] ||
  die "Depends names a C++ library the CLI should link statically: '$depends'"
for package in $(tr ',' '\n' <<<"$depends" | sed 's/(.*)//; s/|.*//' | tr -d ' '); do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    die "the .deb depends on $package, which is not installed here"
done
dpkg --dry-run -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; die "dpkg would refuse the .deb"; }
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/tpcost ./usr/include/tpcost/tpcost.hpp ./usr/share/cmake/tpcost/tpcostConfig.cmake \
         ./usr/share/pkgconfig/tpcost.pc ./usr/share/man/man1/tpcost.1 \
         ./usr/share/bash-completion/completions/tpcost ./usr/share/zsh/vendor-completions/_tpcost \
         ./usr/share/fish/vendor_completions.d/tpcost.fish; do
  grep -q " $f\$" <<<"$contents" || die "the .deb lacks $f"
done
dpkg-deb -x "$deb" "$work/root"
[ "$("$work/root/usr/bin/tpcost" --version)" = "$version" ] || die "tpcost --version from the .deb"
"$work/root/usr/bin/tpcost" sweep --tp 8 --format csv | grep -q '^8,' || die "tpcost sweep from the .deb"
offered=$(bash --norc --noprofile -c '
  source "$1"; COMP_WORDS=(tpcost sw); COMP_CWORD=1; _tpcost; echo "${COMPREPLY[*]}"' _ \
  "$work/root/usr/share/bash-completion/completions/tpcost")
[ "$offered" = sweep ] || die "the .deb's bash completion offers '$offered' for 'tpcost sw'"
step "$(basename "$deb"): Depends: ${depends:-none}; tpcost --version from it: $version"
step "all passed"
