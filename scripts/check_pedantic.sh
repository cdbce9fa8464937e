#!/usr/bin/env bash
# Strict ISO C (docs/QUALITY.md):
#  1. every portable source file (lib/ except ISA files, cli/ and its folders, bench/harness/) compiles with
#     gcc and clang under -std=c11 -pedantic-errors -Wall -Wextra -Werror;
#     ISA files (lib/**/*_{sse*,ssse3,avx*,gfni,vaes,vpclmul,pclmul,neon,
#     x86,bmi2}.c) may use intrinsics and GNU attributes, so they get the
#     same flags without -pedantic-errors;
#  2. the public headers compile alone as C11 and as C++ (extern "C");
#  3. the fallbacks of optional compiler features are built and tested:
#     GOSTX_NO_INT128 (GOST R 34.10's field reductions and MGM's field
#     multiplication without unsigned __int128) runs the C suite (the
#     per-level copies of GOST R 34.10's and MGM's tests only).
#   usage: scripts/check_pedantic.sh [BUILD_DIR]   (default build-noint128)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-noint128}
jobs=$(nproc 2>/dev/null || echo 2)
isa_re='_(sse[0-9a-z]*|ssse3|avx[0-9a-z]*|gfni|vaes|vpclmul|pclmul|neon|x86|bmi2)[a-z0-9_]*\.c$'
common=(-std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror -D_POSIX_C_SOURCE=200809L
        -Iinclude -Ilib -Icli/common -Ibench/harness)
# One file with one compiler: silent when it compiles clean.
compile_one() {
  local cc=$1 f=$2 out
  local flags=("${common[@]}")
  [[ "$f" =~ $isa_re ]] || flags+=(-pedantic-errors)
  # gostx xml is built over libxml2 (integrations/xmldsig): its headers too
  [[ "$f" == cli/xml/* ]] && flags+=(-Iintegrations/xmldsig $(pkg-config --cflags libxml-2.0 2>/dev/null))
  out=$($cc "${flags[@]}" -c "$f" -o /dev/null 2>&1) || { echo "pedantic $cc: $f:"; echo "$out" | head -10; return 1; }
}
# Each public header on its own.
header_one() {
  local cc=$1 h=$2 out
  out=$(printf '#include "%s"\nint gostx_header_check;\n' "${h#include/}" |
        $cc -std=c11 -pedantic-errors -Wall -Wextra -Werror -Iinclude -x c -c - -o /dev/null 2>&1) ||
    { echo "pedantic $cc: header $h:"; echo "$out" | head -10; return 1; }
}
# A compiler call keeps one core busy: they run a core each (scripts/parallel.sh).
. scripts/parallel.sh
fail=0
n=0
pj_start
for cc in gcc clang; do
  command -v $cc >/dev/null || { echo "pedantic: $cc not installed"; exit 1; }
  while IFS= read -r f; do
    pj compile_one "$cc" "$f"
    n=$((n + 1))
  done < <(find lib cli bench/harness -name '*.c' | sort)
  for h in include/gostx.h include/gostx/*.h; do pj header_one "$cc" "$h"; done
done
pj_end || fail=1
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || continue
  if ! out=$(printf '#include "gostx.h"\nint main() { return gostx_version() == 0; }\n' |
             $cxx -std=c++11 -pedantic-errors -Wall -Wextra -Werror -Iinclude -x c++ -c - -o /dev/null 2>&1); then
    echo "pedantic $cxx: gostx.h as C++:"; echo "$out" | head -10; fail=1
  fi
done
echo "pedantic: $n compilations checked"

# The no-__int128 fallback, with the full C suite at every level. Only the
# C tests are built (target gostx_c_tests; they link every object of the
# library): GOSTX_NO_INT128 is read in lib/gost3410 and lib/mgm alone, so the
# command, benchmarks and integrations would compile to the same code as in
# build/ (143 of the 483 compilations fewer, ~15 s of CI).
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-DGOSTX_NO_INT128" >/dev/null
cmake --build "$B" -j "$jobs" --target gostx_c_tests >"$B/build.log" 2>&1 ||
  { echo "pedantic: GOSTX_NO_INT128 build failed"; tail -20 "$B/build.log"; exit 1; }
ctests=$(cd tests && ls test_*.c | sed 's/\.c$//' | paste -sd'|' -)
# The fallback is in lib/gost3410's field reductions (field_body.h: the
# portable field and the MULX and IFMA rows) and lib/mgm/mgm_portable.c:
# GOST R 34.10's and MGM's tests at every level, the rest at the default
# level and at portable only (~35 s of CI less).
if (cd "$B" && ctest -j "$jobs" -R "^($ctests)(@portable)?\$|^test_(gost3410|mgm)[a-z0-9_]*@" >ctest.log 2>&1); then
  echo "pedantic: GOSTX_NO_INT128 fallback: $(grep -E 'tests passed' "$B/ctest.log")"
else
  echo "pedantic: GOSTX_NO_INT128 fallback: TESTS FAILED"; grep -E 'Failed|\*\*\*Failed' "$B/ctest.log" | head; fail=1
fi
[ $fail -eq 0 ] || { echo "check_pedantic: FAILED"; exit 1; }
echo "check_pedantic: passed"
