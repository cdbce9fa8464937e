#!/usr/bin/env bash
# Constant-time check (docs/QUALITY.md): builds tests/ct/ct_check with the
# valgrind client requests compiled in, runs it under memcheck with keys and
# plaintext marked undefined at every implementation level this CPU (as
# valgrind emulates it) supports, and proves the check can fail (mutants).
#   usage: scripts/check_ct.sh [BUILD_DIR]     (default build-ct)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-ct}
supp_decl=tests/ct/declassified.supp
supp_leak=tests/ct/expected-leaks.supp

command -v valgrind >/dev/null || { echo "check_ct: valgrind not installed"; exit 1; }
[ -f /usr/include/valgrind/memcheck.h ] || { echo "check_ct: valgrind headers missing"; exit 1; }

# Release (-O3, what ships) with debug info, so suppressions can name functions.
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-g" -DGOSTX_CT_CHECK=ON >/dev/null
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" --target ct_check >/dev/null

VG=(valgrind -q --error-exitcode=1 --track-origins=yes --num-callers=30)
fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# 1. The checker itself passes natively (its round-trip checks).
"$B/ct_check" const leak >/dev/null || { echo "check_ct: ct_check fails natively"; exit 1; }

# 2. Every level: the const group with only the declassified-by-design
#    entries; the leak group also with the expected-leak entries.
for level in portable ssse3 avx2 avx512; do
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
      echo "ct $level $group: ok ($(tail -1 "$log/out" | sed 's/^ct_check [a-z]*: //'))${used:+; suppressed: $used}"
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

if [ $fail -ne 0 ]; then echo "check_ct: FAILED"; exit 1; fi
echo "check_ct: passed"
