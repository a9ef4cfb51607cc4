# The two commands of a fresh machine:
#   make demo   install what is missing, build, run the seed's default TP sweep
#   make test   install what is missing, build with -Werror and run every test, then again
#               under AddressSanitizer + UndefinedBehaviorSanitizer, fuzz the config loader and
#               the unit parser for 30 s each, then check formatting
.PHONY: demo test deps build format-check clean

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
	$(MAKE) --no-print-directory format-check

format-check:
	git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
