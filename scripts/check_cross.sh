#!/usr/bin/env bash
# Portability (docs/QUALITY.md): cross-builds the library, the command, the
# PKCS#11 module and the C test programs with Debian's cross compilers and runs every C test under
# qemu-user: s390x (big-endian, 64-bit) and aarch64 (the neon level: NEON and
# PMULL, which qemu emulates). The portable code must be endian-neutral; ISA
# files of other architectures must compile away cleanly.
#   usage: scripts/check_cross.sh [ARCH...]     (default: s390x aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
arches=${*:-s390x aarch64}
jobs=$(nproc 2>/dev/null || echo 2)
# The C tests, each tests/test_*.c at the default choice (the best level
# the emulated CPU has: neon on aarch64). Not again at portable on aarch64:
# the portable code there is the same C as x86-64's @portable tests (also
# 64-bit little-endian), and s390x runs it big-endian; that second pass cost
# ~250 s of qemu time in CI. On aarch64 not the tests labelled over_kernels
# either (CMakeLists.txt: the formats and engines over the kernels; ~270 s of
# emulated NEON Streebog and Kuznyechik, test_luks alone the stage's long
# pole): their C is portable, run big-endian on s390x, and the NEON kernels'
# own tests run here. Nowhere the tests labelled pbkdf_heavy (test_pkcs12:
# real PFX files ask for up to 600,000 PBKDF2-Streebog rounds, minutes of
# emulated Streebog; Streebog and PBKDF2 are tested here). On aarch64 not
# the tests labelled level_free either (CMakeLists.txt's
# GOSTX_TESTS_LEVEL_FREE: ASN.1, X.509, CMS, IKE, the tunnel's SAs; ~180 s of
# qemu time, test_tunnel_sa's threads alone 66 s): their code is the same at
# every level, portable C that x86-64 runs natively (64-bit little-endian,
# plain and under ASan) and s390x runs here big-endian with an unsigned char,
# as aarch64's is; what aarch64 adds is its NEON rows, which the tests at the
# neon level below run, and not its weaker memory order, which qemu-user on
# an x86-64 host does not reproduce.
# The shell tests need openssl for the target and are covered natively.
ctests=$(cd tests && ls test_*.c | sed 's/\.c$//' | paste -sd'|' -)
# qemu-user runs the tests many times slower than natively (test_tls_duplex:
# 43 s against 2): their alarms and bounded waits scale by this factor
# (tests/README.md, "Waiting on a busy or slow machine"), times the load.
export GOSTX_TEST_TIME_FACTOR=${GOSTX_TEST_TIME_FACTOR:-4}
# The tests of one architecture (its build done): a verdict line, exit 1 on failure.
run_tests() {
  local arch=$1 B=build-cross-$1 warn sel skip=()
  warn=$(grep -c 'warning:' "$B/build.log" || true)
  sel="^($ctests)\$"
  skip=(-LE pbkdf_heavy)
  [ "$arch" = aarch64 ] && skip=(-LE 'over_kernels|pbkdf_heavy|level_free')
  if (cd "$B" && ctest -j "$jobs" --timeout 900 -R "$sel" "${skip[@]}" >ctest.log 2>&1); then
    echo "cross $arch: ok ($(grep -E 'tests passed' "$B/ctest.log"); $warn compiler warnings, see $B/build.log)"
  else
    echo "cross $arch: TESTS FAILED"; grep -E 'Failed|failed|\*\*\*' "$B/ctest.log" | head -20
    (cd "$B" && ctest --rerun-failed --output-on-failure 2>&1 | grep -vE '^ok ' | head -60) || true
    return 1
  fi
}

fail=0
built=()
for arch in $arches; do
  cc=$arch-linux-gnu-gcc
  command -v "$cc" >/dev/null || { echo "check_cross: $cc not installed"; exit 1; }
  command -v "qemu-$arch" >/dev/null || { echo "check_cross: qemu-$arch not installed"; exit 1; }
  B=build-cross-$arch
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
    -DCMAKE_SYSTEM_PROCESSOR="$arch" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="" \
    -DCMAKE_CROSSCOMPILING_EMULATOR="qemu-$arch;-L;/usr/$arch-linux-gnu" >/dev/null
  # The library (both forms), the command, the PKCS#11 module and the C
  # tests: the code users run on these machines and the tests run below.
  # Not the benchmarks, the test-only preload libraries or the nbdkit filter.
  if ! cmake --build "$B" -j "$jobs" --target gostx_shared gostx_cli gostx_pkcs11 gostx_c_tests \
       >"$B/build.log" 2>&1; then
    echo "cross $arch: BUILD FAILED"; tail -30 "$B/build.log"; fail=1; continue
  fi
  built+=("$arch")
done
# The architectures' tests side by side (scripts/parallel.sh): one
# architecture's longest test under qemu (aarch64's test_luks at neon)
# would otherwise leave a core idle.
. scripts/parallel.sh
pj_start 2
for arch in "${built[@]}"; do pj run_tests "$arch"; done
pj_end || fail=1
[ $fail -eq 0 ] || { echo "check_cross: FAILED"; exit 1; }
echo "check_cross: passed"
