# The two commands of a fresh machine:
#   make demo   install only what the CLI needs (scripts/install-deps.sh --minimal), build only
#               the tpcost binary (no tests, no examples) in build/demo, run the article's TP sweep
#   make test   install everything, check the formatting first (seconds, so a stray line fails
#               before the build), build with -Werror and run every test, fuzz the config loader
#               and the unit parser for 15 s each (the readers 5 s each; the fuzzers run under
#               ASan+UBSan), and check the installed package (find_package, pkg-config, the .deb)
# And for CI (.ci/run, after make test):
#   make test-asan   every test again under AddressSanitizer + UndefinedBehaviorSanitizer: a
#               second full build and a slower run (about 19 minutes on 2 cores), kept out of
#               `make test` so that a newcomer's second command stays within 20 minutes
# And for the docs: make docs   rerun every `$ tpcost` block of README.md and docs/*.md and
#               rewrite those whose output changed (scripts/regen-docs.py; docs/development.md)
.PHONY: demo demo-build test test-asan deps build docs docs-check validate format-check package-check clean \
        fuzz-long tidy

JOBS ?= 2
FUZZ_SECONDS ?= 15

deps:
	@scripts/install-deps.sh

build: deps
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

# The CLI alone: no Catch2, no test or example targets, no generated man page, at -O1 (a
# quarter less compile time than -O3 on src/render/render.cpp, the same answers; `make test` builds
# everything at -O3). A unity build would save more but needs file-local names to be unique
# across src/ (render_plan.cpp and render_step.cpp both define gib()).
DEMO_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
demo-build:
	@scripts/install-deps.sh --minimal
	cmake -S . -B build/demo -G Ninja $(DEMO_FLAGS) -DTPCOST_BUILD_TESTS=OFF \
	  -DTPCOST_BUILD_EXAMPLES=OFF -DTPCOST_INSTALL=OFF >/dev/null
	cmake --build build/demo -j $(JOBS) --target tpcost_cli

demo: demo-build
	./build/demo/src/tpcost sweep

PHASE = scripts/phase.sh
test:
	$(PHASE) deps scripts/install-deps.sh
	$(PHASE) format $(MAKE) --no-print-directory format-check
	cmake --preset ci
	$(PHASE) ci-build cmake --build --preset ci -j $(JOBS)
	$(PHASE) ci-tests ctest --preset ci
	$(PHASE) fuzz scripts/fuzz.sh $(FUZZ_SECONDS)
	$(PHASE) package scripts/check-package.sh build/ci

test-asan: export PHASE_TARGET = make test-asan
test-asan:
	$(PHASE) deps scripts/install-deps.sh
	cmake --preset asan
	$(PHASE) asan-build cmake --build --preset asan -j $(JOBS)
	$(PHASE) asan-tests ctest --preset asan

# clang-tidy with the curated checks of .clang-tidy over src/ and examples/ (and through them every
# header of include/tpcost), every warning an error. Not part of `make test`, which a newcomer
# runs and which should stay within 20 minutes on 2 cores: CI runs it after (`.ci/run`), about
# 10 minutes on 2 idle cores. Needs the ci preset's compile_commands.json.
tidy: export PHASE_TARGET = make tidy
tidy: deps
	cmake --preset ci >/dev/null
	$(PHASE) tidy scripts/tidy.sh build/ci

# Every output block of README.md and docs/*.md rerun and rewritten where it changed, and
# docs/sweep.svg, drawn by the tool itself (CTest checks both: "docs: ...").
TPCOST_BIN ?= build/demo/src/tpcost
docs: demo-build
	python3 scripts/regen-docs.py --tpcost $(TPCOST_BIN)
	$(TPCOST_BIN) sweep --tp 1..64 --plot docs/sweep.svg >/dev/null

docs-check: demo-build
	python3 scripts/regen-docs.py --check --tpcost $(TPCOST_BIN)

# The SC21 Table 1 validation of the step model, as a table (README "Validation"), and the
# error band of every prediction: every development row's leave-one-out or plain residual,
# grouped, rewritten into data/error_band.json (compiled into the binary; CTest fails when the
# committed file is stale) and printed per group (docs/error-band.md).
validate: build
	./build/dev/tests/tpcost_sc21_table
	./build/dev/tests/tpcost_error_band --write data/error_band.json
	./build/dev/tests/tpcost_error_band --markdown
	python3 scripts/validate-memory.py --tpcost build/dev/src/tpcost --write docs/memory.md

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

# Every libFuzzer target for FUZZ_RUNS inputs each instead of `make test`'s seconds, over JOBS
# processes (docs/fuzzing.md gives each target's measured rate, hence the time to expect):
#   make fuzz-long FUZZ_TARGETS="config hf_config"   10^7 inputs each
#   make fuzz-long FUZZ_TARGETS=nemo_yaml FUZZ_RESUME=DIR   from a saved corpus (scripts/fuzz.sh)
FUZZ_RUNS ?= 10000000
# Each process restarts after this many new inputs (scripts/fuzz.sh: ASan's state slows it).
FUZZ_CHUNK ?= 500000
FUZZ_TARGETS ?=
fuzz-long: deps
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_CHUNK=$(FUZZ_CHUNK) FUZZ_JOBS=$(JOBS) FUZZ_SEED=0 FUZZ_TIMEOUT=60 FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/fuzz.sh

format-check:
	git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
