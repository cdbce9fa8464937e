#!/usr/bin/env bash
# Constant-time check (docs/QUALITY.md): builds tests/ct/ct_check with the
# valgrind client requests compiled in, runs it under memcheck with keys and
# plaintext marked undefined at every implementation level this CPU (as
# valgrind emulates it) supports, and proves the check can fail (mutants).
# With SIMDe installed it also runs the leak group at the avx512 level on the
# emulated AVX-512 code (step 5), where Streebog must be table-free.
# With --aarch64 it runs the same check on an AArch64 build under
# qemu-aarch64, with AArch64 memcheck from a private root
# (scripts/arm64_valgrind_root.sh): the portable and neon levels.
#   usage: scripts/check_ct.sh [BUILD_DIR [EMU_BUILD_DIR]]
#          (default build-ct, build-ct-emu)
#          scripts/check_ct.sh --aarch64 [BUILD_DIR]  (default build-ct-aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=$(uname -m)
cross=()
if [ "${1:-}" = --aarch64 ]; then
  arch=aarch64
  B=${2:-build-ct-aarch64}
  BE=
  cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64
         -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc)
else
  B=${1:-build-ct}
  BE=${2:-build-ct-emu}
fi
supp_decl=tests/ct/declassified.supp
supp_leak=tests/ct/expected-leaks.supp

command -v valgrind >/dev/null || { echo "check_ct: valgrind not installed"; exit 1; }
if [ "$arch" = aarch64 ]; then
  command -v qemu-aarch64 >/dev/null || { echo "check_ct: qemu-aarch64 not installed"; exit 1; }
  root=$B/arm64-root
  bash scripts/arm64_valgrind_root.sh "$root" >/dev/null
  # memcheck runs under qemu; qemu's -L makes the root's ld.so, libc and
  # debug symbols the ones the client and valgrind see.
  valgrind() {
    env VALGRIND_LIB="$root/usr/libexec/valgrind" VALGRIND_LAUNCHER=/usr/bin/valgrind \
      qemu-aarch64 -L "$root" "$root/usr/libexec/valgrind/memcheck-arm64-linux" "$@"
  }
fi
[ -f /usr/include/valgrind/memcheck.h ] || { echo "check_ct: valgrind headers missing"; exit 1; }

# Release (-O3, what ships) with debug info, so suppressions can name functions.
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-g" -DGOSTX_CT_CHECK=ON "${cross[@]}" >/dev/null
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" --target ct_check >/dev/null

VG=(valgrind -q --error-exitcode=1 --track-origins=yes --num-callers=30)
fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# 1. The checker itself passes natively (its round-trip checks).
if [ "$arch" = aarch64 ]; then
  qemu-aarch64 -L "$root" "$B/ct_check" const leak >/dev/null || { echo "check_ct: ct_check fails under qemu"; exit 1; }
else
  "$B/ct_check" const leak >/dev/null || { echo "check_ct: ct_check fails natively"; exit 1; }
fi

# 2. Every level: the const group with only the declassified-by-design
#    entries; the leak group also with the expected-leak entries.
# The levels: this architecture's lines of lib/levels.def (the dispatcher's list).
levels=$(sed -n "s/^LEVEL(\(any\|$arch\), *\([a-z0-9_]*\),.*/\2/p" lib/levels.def)
for level in $levels; do
  for group in const leak; do
    supp=(--suppressions="$supp_decl")
    [ "$group" = leak ] && supp+=(--suppressions="$supp_leak")
    set +e
    GOSTX_IMPL=$level valgrind -v --error-exitcode=1 --track-origins=yes --num-callers=30 "${supp[@]}" "$B/ct_check" "$group" >"$log/out" 2>"$log/err"
    rc=$?
    set -e
    if [ $rc -eq 77 ]; then echo "ct $level: skipped (not available under valgrind on this CPU)"; break; fi
    used=$(grep -o 'used_suppression: *[0-9]* [^ ]*' "$log/err" | awk '{printf "%s%s x%s", sep, $3, $2; sep=", "}' || true)
    if [ $rc -eq 0 ]; then
      echo "ct${cross:+ $arch} $level $group: ok ($(tail -1 "$log/out" | sed 's/^ct_check [a-z]*: //'))${used:+; suppressed: $used}"
    else
      echo "ct $level $group: FAILED (secret-dependent branch or index, or a failed round trip):"
      grep -v -e '^--[0-9]*-- ' "$log/err" | grep -A12 -e 'Conditional jump' -e 'uninitialised value' | head -80 || true
      tail -3 "$log/out"
      fail=1
    fi
  done
done

# 3. The expected leaks are real: without their suppression file the leak
#    group must be reported (if not, the entry is stale: remove it).
set +e
GOSTX_IMPL=portable "${VG[@]}" --suppressions="$supp_decl" "$B/ct_check" leak >/dev/null 2>"$log/err"
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q 'at .*: lps ' "$log/err"; then
  echo "ct expected leak (Streebog LPS tables) still present: listed in $supp_leak"
else
  echo "ct NOTE: the Streebog LPS leak is gone; remove its entry from $supp_leak"
fi

# 4. Mutation test: deliberately leaky code must be reported, in the
#    function that leaks, with the same flags and suppressions.
for m in mutant-index:ct_mutant_index mutant-branch:ct_mutant_branch \
         mutant-naive-magma:gostx__magma_; do
  group=${m%%:*} where=${m#*:}
  set +e
  GOSTX_IMPL=portable "${VG[@]}" --suppressions="$supp_decl" --suppressions="$supp_leak" \
    "$B/ct_check" "$group" >/dev/null 2>"$log/err"
  rc=$?
  set -e
  if [ $rc -eq 1 ] && grep -q "$where" "$log/err"; then
    echo "ct mutation $group: reported in $where (as it must be)"
  else
    echo "ct mutation $group: NOT reported (rc $rc): the constant-time check is broken"
    fail=1
  fi
done

# 5. The AVX-512 Streebog (table-free) at the avx512 level. Valgrind has no
#    AVX-512, but a -DGOSTX_EMULATE_AVX512=ON build runs the same source on
#    SIMDe's C intrinsics (lib/x86_avx512.h), which memcheck can follow. Only
#    the leak group: the emulated CPU also claims VPCLMULQDQ, which MGM (const
#    group) would then execute for real and valgrind cannot decode. The run
#    gets no expected-leaks.supp: at this level Streebog, HMAC, the KDFs and
#    PBKDF2 must not leak. SIMDe's C versions of the byte permutes and the
#    masked byte blend index arrays and branch on their operands; the
#    instructions themselves work on registers only, so a report whose
#    innermost frame is one of those emulations is expected. Any other report
#    (our own code, or a load/store whose address depends on a secret) fails.
emu_ok='^simde_mm512_(permutex2var_epi8|permutexvar_epi8|mask_mov_epi8|mask_blend_epi8)$'
if [ -z "$BE" ]; then
  : # the emulated AVX-512 step is an x86 one
elif [ -f /usr/include/simde/x86/gfni.h ]; then
  cmake -S . -B "$BE" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-g" -DGOSTX_CT_CHECK=ON \
    -DGOSTX_EMULATE_AVX512=ON >/dev/null
  cmake --build "$BE" -j "$(nproc 2>/dev/null || echo 2)" --target ct_check >/dev/null
  set +e
  GOSTX_IMPL=avx512 valgrind --num-callers=30 --suppressions="$supp_decl" "$BE/ct_check" leak \
    >"$log/out" 2>"$log/err"
  rc=$?
  set -e
  # The innermost frame of every memcheck report.
  frames=$(awk '/Conditional jump or move depends|Use of uninitialised value/ { getline; print $4 }' "$log/err")
  nrep=$(printf '%s\n' "$frames" | grep -c . || true)
  other=$(printf '%s\n' "$frames" | grep . | grep -Ev "$emu_ok" | sort | uniq -c || true)
  if [ $rc -eq 0 ] && grep -q 'streebog=avx512, ok' "$log/out" && [ -z "$other" ]; then
    echo "ct avx512 (emulated) leak: ok, Streebog table-free ($nrep reports, all inside SIMDe's C byte permutes/blends)"
  else
    echo "ct avx512 (emulated) leak: FAILED (rc $rc; $(tail -1 "$log/out"))"
    [ -n "$other" ] && { echo "reports outside the register-only emulations:"; echo "$other"; }
    # The first such report in full.
    awk -v ok="$emu_ok" '/Conditional jump or move depends|Use of uninitialised value/ {
        hdr = $0; getline; if ($4 ~ ok) next
        print hdr; print
        while ((getline line) > 0 && line !~ /^==[0-9]+== *$/) print line
        exit }' "$log/err"
    fail=1
  fi
else
  echo "ct avx512 (emulated): skipped (SIMDe not installed: apt-get install libsimde-dev)"
fi

if [ $fail -ne 0 ]; then echo "check_ct: FAILED"; exit 1; fi
echo "check_ct: passed"
