# The two commands of a fresh machine:
#   make demo   install what is missing, build, run the seed's default TP sweep
#   make test   install what is missing, build with -Werror and run every test, then again
#               under AddressSanitizer + UndefinedBehaviorSanitizer, fuzz the config loader and
#               the unit parser for 30 s each, check the installed package (find_package,
#               pkg-config, the .deb) and the formatting
.PHONY: demo test deps build docs validate format-check package-check clean

JOBS ?= 2
FUZZ_SECONDS ?= 30

deps:
	@scripts/install-deps.sh

build: deps
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

demo: build
	./build/dev/src/tpcost sweep

test: deps
	cmake --preset ci
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan
	scripts/fuzz.sh $(FUZZ_SECONDS)
	scripts/check-package.sh build/ci
	$(MAKE) --no-print-directory format-check

# docs/sweep.svg, drawn by the tool itself (CTest checks that it is current).
docs: build
	./build/dev/src/tpcost sweep --tp 1..64 --plot docs/sweep.svg >/dev/null

# The SC21 Table 1 validation of the step model, as a table (README "Validation").
validate: build
	./build/dev/tests/tpcost_sc21_table

package-check: deps
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS)
	scripts/check-package.sh build/ci

# The planner's speed (Google Benchmark, Release, not part of `make test`); docs/planner.md
# records the figures.
bench: deps
	cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DTPCOST_BUILD_BENCH=ON \
	  -DTPCOST_BUILD_TESTS=OFF -DTPCOST_BUILD_EXAMPLES=OFF -DTPCOST_BUILD_CLI=OFF >/dev/null
	cmake --build build/bench -j $(JOBS) --target tpcost_bench
	./build/bench/bench/tpcost_bench

format-check:
	git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
