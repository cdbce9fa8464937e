# Convenience front end over CMake. `make demo` runs the main job, `make check` the tests.
#
# Quality gates (docs/QUALITY.md):
#   make check      the test suite, the same suite under ASan+UBSan, and the
#                   constant-time check under valgrind (the README's test command)
#   make ci         check + pedantic, emu, cross, fuzz (FUZZ_SECONDS each, 30):
#                   strict ISO C, emulated AVX-512, s390x/aarch64 under qemu.
#                   CI runs .ci/run, which is more: these stages, plus
#                   ct-aarch64, the CUDA build (scripts/ci_cuda.sh), the install
#                   check (scripts/check_install.sh) and the Python package
#                   (scripts/ci_python.sh), each timed
#   make check-all  ci with long fuzzing (FUZZ_LONG seconds per fuzzer, 600)
#   make asan | ct | ct-aarch64 | fuzz | cross | pedantic | emu    one gate alone
#   (emu: the suite at the avx512 level with the AVX-512 files on SIMDe's
#   C intrinsics, for CPUs without AVX-512; lib/x86_avx512.h)
BUILD ?= build
ASAN_BUILD ?= build-asan
EMU_BUILD ?= build-emu
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# ctest runs one test more than there are cores: the interruption tests
# mostly wait (sleeps, timeouts) while holding a slot, so with JOBS slots a
# core idles. On a 2-core VM: the suite 205 -> 134 s, the ASan suite 600 ->
# 373 s. The net tests (tests/net/, mostly waiting too) run beside them in a
# second ctest (scripts/run_suite.sh), three at a time.
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
FUZZ_SECONDS ?= 30
FUZZ_LONG ?= 600
# Fuzzers: every tests/fuzz/fuzz_*.c (fuzz_cli, fuzz_block_diff,
# fuzz_modes_stream, fuzz_mgm_decrypt, fuzz_container: the file-format
# reader). FUZZERS=... picks some.
FUZZERS ?=

.PHONY: all build demo check test asan ct ct-aarch64 fuzz cross pedantic emu ci check-all clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD)/gostx

# The normal suite: every C test at every implementation level, CLI tests.
test: build
	cd $(BUILD) && bash $(CURDIR)/scripts/run_suite.sh $(TEST_JOBS)

check: test asan ct

# The full suite built with AddressSanitizer + UndefinedBehaviorSanitizer;
# any report aborts the test (-fno-sanitize-recover=all). Line tables (-g1)
# are all a report's stack trace needs; full debug information made the
# build ~1.4x longer (235 s against 169 s for the library on 2 cores).
asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOSTX_SANITIZE=ON \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GOSTX_SUITE_SKIP='static|scale' \
	  bash $(CURDIR)/scripts/run_suite.sh $(TEST_JOBS)

ct:
	bash scripts/check_ct.sh

# The constant-time check of the AArch64 build (its levels in lib/levels.def),
# AArch64 memcheck under qemu-aarch64 (needs the cross compiler and qemu-user).
ct-aarch64:
	bash scripts/check_ct.sh --aarch64

# The C tests at the avx512 and avx512bw levels, AVX-512 code emulated (needs libsimde-dev),
# and MGM's tests at the avx2 level, whose vpclmul row is emulated there too. Not the
# tests labelled over_kernels (CMakeLists.txt; ~180 s of emulated time): the kernels'
# own tests check each emulated kernel against the reference.
emu:
	cmake -S . -B $(EMU_BUILD) -DCMAKE_BUILD_TYPE=Release -DGOSTX_EMULATE_AVX512=ON >/dev/null
	cmake --build $(EMU_BUILD) -j $(JOBS)
	cd $(EMU_BUILD) && ctest --output-on-failure -j $(JOBS) -R '@avx512(bw)?$$|^test_mgm(_simd)?@avx2$$|^test_gost3410$$' \
	  -LE over_kernels

fuzz:
	FUZZERS="$(FUZZERS)" bash scripts/check_fuzz.sh $(FUZZ_SECONDS)

cross:
	bash scripts/check_cross.sh

pedantic:
	bash scripts/check_pedantic.sh

ci: check pedantic emu cross fuzz

check-all:
	$(MAKE) ci FUZZ_SECONDS=$(FUZZ_LONG)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(EMU_BUILD) build-ct build-ct-emu build-ct-aarch64 build-fuzz build-noint128 build-cross-*
