#!/usr/bin/env bash
# Constant-time check (docs/QUALITY.md): builds tests/ct/ct_check with the
# valgrind client requests compiled in, runs it under memcheck with keys and
# plaintext marked undefined at every implementation level this CPU (as
# valgrind emulates it) supports, checks that the marking reaches every
# output bit, and proves the check can fail (mutants, planted leaks).
# Valgrind's CPU has no AVX-512, GFNI or VPCLMULQDQ: the rows that need them
# (every avx512 row, MGM's vpclmul row) run in step 5 on an emulated build
# (SIMDe, with register-only models of the byte permutes: lib/x86_avx512_emu.h).
# Step 6 fails unless every row of the dispatcher's tables (`ct_check rows`)
# was checked, whatever this host's vendor and features, and says which were
# and how; rows one vendor prefers are reached with GOSTX_CPU_VENDOR.
# With --aarch64 it runs the same check on an AArch64 build under
# qemu-aarch64, with AArch64 memcheck from a private root
# (scripts/arm64_valgrind_root.sh): the AArch64 levels of lib/levels.def.
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

# What each run checked: "how primitive=impl ..." lines, for step 6. Each
# const run writes its own file (the runs are parallel); step 6 joins them.
checked=$log/checked
impls() { sed -n 's/^ct_check [a-z-]*: \(.*\), [a-zA-Z]*$/\1/p' "$1" | tail -1; }

# How ct_check runs outside valgrind: natively, or under qemu.
run=()
[ "$arch" = aarch64 ] && run=(qemu-aarch64 -L "$root")

# Each valgrind run below keeps one core busy: they run a core each
# (scripts/parallel.sh), their reports printed in the order written here.
. scripts/parallel.sh

# 1. The checker itself passes natively (its round-trip checks); its last
#    line names the implementations this CPU runs by default.
if [ "$arch" = aarch64 ]; then
  qemu-aarch64 -L "$root" "$B/ct_check" const leak >"$log/native" || { echo "check_ct: ct_check fails under qemu"; exit 1; }
else
  "$B/ct_check" const leak >"$log/native" || { echo "check_ct: ct_check fails natively"; exit 1; }
fi
# (the first name per primitive: ct_check names the GOST R 34.10 rows its
# const group ran on purpose after the default)
defaults=$(impls "$log/native" | tr ' ' '\n' | awk -F= '!seen[$1]++' | paste -sd' ' -)
# A GOSTX_IMPL the dispatcher does not know must stop the checker (exit 2),
# not run portable code under the name of a level.
set +e
GOSTX_IMPL=no-such-level "${run[@]}" "$B/ct_check" const >/dev/null 2>&1
rc=$?
set -e
if [ $rc -eq 2 ]; then echo "ct unknown level: refused (exit 2)"; else
  echo "ct unknown level: NOT refused (rc $rc): a misspelt level would check portable"; fail=1; fi

# One group at one level: ok (the const group's implementations are noted
# for step 6 in $log/checked.HOW.LEVEL), FAILED with the first reports
# (exit 1), or, where the level cannot run, a note and $log/skip.LEVEL.
#   check_group HOW BUILD LEVEL GROUP [SUPPRESSION FILE...]  (HOW: valgrind, emulated)
check_group() {
  local how=$1 build=$2 level=$3 group=$4 f rc out err
  shift 4
  local supp=(--suppressions="$supp_decl")
  for f in "$@"; do supp+=(--suppressions="$f"); done
  out=$(mktemp -p "$log") err=$(mktemp -p "$log")
  set +e
  GOSTX_IMPL=$level valgrind -v --error-exitcode=1 --track-origins=yes --num-callers=30 "${supp[@]}" \
    "$build/ct_check" "$group" >"$out" 2>"$err"
  rc=$?
  set -e
  if [ $rc -eq 77 ]; then
    echo "ct $level: skipped (not available under valgrind on this CPU)"
    touch "$log/skip.$level"
    return 0
  fi
  local label="ct${cross:+ $arch} $level $group" used
  [ "$how" = emulated ] && label="ct $level (emulated) $group"
  [ -n "${GOSTX_CPU_VENDOR:-}" ] && label="$label, vendor $GOSTX_CPU_VENDOR"
  used=$(grep -o 'used_suppression: *[0-9]* [^ ]*' "$err" | awk '{printf "%s%s x%s", sep, $3, $2; sep=", "}' || true)
  if [ $rc -eq 0 ]; then
    echo "$label: ok ($(tail -1 "$out" | sed 's/^ct_check [a-z]*: //'))${used:+; suppressed: $used}"
    if [ "$group" = const ]; then echo "$how $(impls "$out")" >"$log/checked.$how.$level"; fi
  else
    echo "$label: FAILED (secret-dependent branch or index, lost marking, or a failed round trip):"
    grep -v -e '^--[0-9]*-- ' "$err" | grep -A12 -e 'Conditional jump' -e 'uninitialised value' \
      -e 'lost the secret' | head -80 || true
    tail -3 "$out"
    return 1
  fi
}

# The verdict on a run that must be reported (rc 1, PATTERN in the report
# FILE): LABEL: OK_TEXT, or LABEL: NOT reported [NOT_WHERE] and a return of
# 1, the check being broken. rc is the caller's.
#   must_report LABEL PATTERN FILE OK_TEXT [NOT_WHERE]
must_report() {
  if [ "$rc" -eq 1 ] && grep -q "$2" "$3"; then
    echo "$1: $4"
  else
    echo "$1: NOT reported${5:+ $5} (rc $rc): the constant-time check is broken"
    return 1
  fi
}

# The groups at GOSTX_IMPL=$1 without expected-leaks.supp, the valgrind
# report to $2: sets rc.
unsuppressed() {
  local impl=$1 err=$2
  shift 2
  set +e
  GOSTX_IMPL=$impl "${VG[@]}" --suppressions="$supp_decl" "$B/ct_check" "$@" >/dev/null 2>"$err"
  rc=$?
  set -e
}

# 3. The expected leaks are real: without their suppression file the leak
#    group must be reported (if not, the entry is stale: remove it).
expected_leak() {
  local err
  err=$(mktemp -p "$log")
  unsuppressed portable "$err" leak
  if [ $rc -ne 0 ] && grep -q 'at .*: lps ' "$err"; then
    echo "ct expected leak (Streebog LPS tables) still present: listed in $supp_leak"
  else
    echo "ct NOTE: the Streebog LPS leak is gone; remove its entry from $supp_leak"
  fi
}
# Every opt-in row of the dispatcher (leaky by design, chosen only by name:
# lstable, sbtable; `ct_check rows` lists them) must be reported in its own
# file the same way: the clean runs of the other rows mean something.
opt_in() {
  local prim=$1 name=$2 err
  err=$(mktemp -p "$log")
  unsuppressed "$name" "$err" const leak
  must_report "ct opt-in $prim $name" "_$name\.c" "$err" \
    "its table lookups are reported in *_$name.c (as they must be)"
}

# 4. Mutation test: deliberately leaky code must be reported, in the
#    function that leaks, with the same flags and suppressions.
mutation() {
  local group=$1 where=$2 err rc
  err=$(mktemp -p "$log")
  set +e
  GOSTX_IMPL=portable "${VG[@]}" --suppressions="$supp_decl" --suppressions="$supp_leak" \
    "$B/ct_check" "$group" >/dev/null 2>"$err"
  rc=$?
  set -e
  must_report "ct mutation $group" "$where" "$err" "reported in $where (as it must be)"
}

# A planted leak (GOSTX_CT_PLANT, lib/internal.h) must be reported inside
# the code it was planted in: plant NAME LEVEL WHERE BUILD [VALGRIND ARGS].
plant() {
  local name=$1 level=$2 where=$3 build=$4 err rc
  shift 4
  err=$(mktemp -p "$log")
  set +e
  GOSTX_IMPL=$level "$@" -q --error-exitcode=1 --num-callers=30 --suppressions="$supp_decl" \
    "$build/ct_check" "plant-$name" >/dev/null 2>"$err"
  rc=$?
  set -e
  # (no `grep | grep -q`: under pipefail the first grep's SIGPIPE, when -q
  # stops reading early, would fail a found report)
  grep -A3 'gostx__ct_plant_touch' "$err" >"$err.at" || true
  must_report "ct $level planted leak in $name" "$where" "$err.at" "reported in $where" "in $where"
}

# 5 (the build). The rows valgrind's CPU lacks run on an emulated build
#    (-DGOSTX_EMULATE_AVX512=ON): the same source on SIMDe's C intrinsics,
#    with the byte permutes and masked byte moves as register-only models
#    (lib/x86_avx512_emu.h) that memcheck follows lane by lane, so the
#    marking flows through them as through the instructions.
emulated=0
if [ -z "$BE" ]; then
  : # the emulated step is an x86 one
elif [ -f /usr/include/simde/x86/gfni.h ]; then
  emulated=1
else
  echo "ct emulated rows: skipped (SIMDe not installed: apt-get install libsimde-dev)"
fi
build_emulated() {
  cmake -S . -B "$BE" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-g" -DGOSTX_CT_CHECK=ON \
    -DGOSTX_EMULATE_AVX512=ON >/dev/null
  cmake --build "$BE" -j "$(nproc 2>/dev/null || echo 2)" --target ct_check >/dev/null
}

# 2. Every level: first the const group with only the declassified-by-design
#    entries (its implementations decide the leak group's suppressions), the
#    emulated build beside it; then the leak group, also with the
#    expected-leak entries where the level's Streebog is the table method
#    (portable), with none elsewhere (the SIMD levels' Streebog is
#    table-free: any report fails); the reach group (the marking survives to
#    every output bit); and steps 3 to 5 below, all in one parallel batch.
# The levels: this architecture's lines of lib/levels.def (the dispatcher's list).
levels=$(sed -n "s/^LEVEL(\(any\|$arch\), *\([a-z0-9_]*\),.*/\2/p" lib/levels.def)
pj_start
for level in $levels; do pj check_group valgrind "$B" "$level" const; done
[ $emulated = 1 ] && pj build_emulated
pj_end || fail=1
cat "$log"/checked.* >"$checked" 2>/dev/null || : >"$checked"
"${run[@]}" "$B/ct_check" rows >"$log/rows"

pj_start
for level in $levels; do
  [ -f "$log/skip.$level" ] && continue
  extra=()
  case $(cat "$log/checked.valgrind.$level" 2>/dev/null) in
    *" streebog=portable "* | *" streebog=sbtable "*) extra+=("$supp_leak") ;;
  esac
  pj check_group valgrind "$B" "$level" leak "${extra[@]}"
  pj check_group valgrind "$B" "$level" reach
done

# 3.
pj expected_leak
while read -r _ prim name level flags; do
  case " $flags " in *" unusable "*) echo "ct opt-in $prim $name: not on this CPU, skipped"; continue ;; esac
  pj opt_in "$prim" "$name"
done < <(grep ' opt-in' "$log/rows")

# 4.
for m in mutant-index:ct_mutant_index mutant-branch:ct_mutant_branch \
         mutant-naive-magma:gostx__magma_; do
  pj mutation "${m%%:*}" "${m#*:}"
done

# 4b. Leaks planted in the byte-sliced Magma template (both halves of the
#     block), at each level whose Magma file includes it (magma_LEVEL.c).
for level in $levels; do
  grep -q "^valgrind .*magma=$level " "$checked" || continue
  grep -q '"magma/sliced_core.h"' "lib/magma/magma_$level.c" 2>/dev/null || continue
  for half in n1 n2; do pj plant "magma-$half" "$level" "${level}_.*sliced_core.h" "$B" valgrind; done
done

# 4b'. A leak planted in the constant-time Streebog template, at each level
#      whose Streebog file includes it (streebog_LEVEL.c): reported in
#      streebog_ct.h.
for level in $levels; do
  grep -q "^valgrind .*streebog=$level " "$checked" || continue
  grep -q '"streebog_ct.h"' "lib/streebog/streebog_$level.c" 2>/dev/null || continue
  pj plant streebog "$level" streebog_ct.h "$B" valgrind
done

# 4c. A leak planted in GOST R 34.10-2012's scalar multiplication (the
#     portable row's instance of lib/gost3410/mul_template.h): the plant run
#     computes a public key on 256 paramSetB, so it is reported in the
#     fixed-base multiplication, mul_weier.h's w_mul_base.
pj plant gost3410 portable "w_mul_base (mul_weier.h" "$B" valgrind
#     And one in the variable-base ladder that VKO runs on the peer's key.
pj plant gost3410-vko portable "w_mul (mul_weier.h" "$B" valgrind
#     The same two in the Edwards arithmetic of 256 paramSetA (mul_edwards.h).
pj plant gost3410-ed portable "ed_mul_base (mul_edwards.h" "$B" valgrind
pj plant gost3410-ed-vko portable "ed_mul (mul_edwards.h" "$B" valgrind
#     And one in ESP's padding check (the pad length that open reads from the
#     decrypted trailer): reported in lib/esp/esp.c's trailer_bad, which the
#     leak group's ESP case runs on secret plaintext with no suppression.
pj plant esp-pad portable "trailer_bad.*(esp.c" "$B" valgrind

# 5. On the emulated build: at the avx512 level every group runs without
#    expected-leaks.supp, so any report fails it (Streebog is table-free
#    there); the avx2 level runs MGM's vpclmul row. Then a leak planted in
#    each AVX-512 primitive must be reported there. What this cannot check
#    is the native instruction stream (the compiler's code for the AVX-512
#    target): that is said in step 6.
# Rows that only one vendor's CPUs choose (dispatch.c's ROW_PREFER) are
# reached by forcing the vendor (lib/cpu.c): valgrind's CPUID says Intel
# even on AMD hosts, so the avx512 level runs as on AMD (magma's avx512
# row) and Intel's row (avx512-vround) is named below.
amd() { GOSTX_CPU_VENDOR=amd "$@"; }
if [ $emulated = 1 ]; then
  for group in const leak reach; do pj amd check_group emulated "$BE" avx512 "$group"; done
  # avx512bw: Kuznyechik's zmm batches (ct_check's "wide" case), Magma on
  # VPSHUFB and Streebog's nibble tables on zmm words
  for group in const leak reach; do pj check_group emulated "$BE" avx512bw "$group"; done
  pj check_group emulated "$BE" avx2 const
  pj plant kuznyechik avx512 kuz_avx512.c "$BE" valgrind
  pj plant kuznyechik-one avx512 kuz_avx512.c "$BE" valgrind
  pj plant kuznyechik-sliced avx512 kuz_avx512_sliced.c "$BE" valgrind
  pj amd plant magma-n1 avx512 'avx512_.*sliced_core.h' "$BE" valgrind
  pj amd plant magma-n2 avx512 'avx512_.*sliced_core.h' "$BE" valgrind
  # Calls of few blocks (MGM's short messages): the vector round on a block per qword
  pj amd plant magma-lanes avx512 'lanes_.*magma_avx512.c' "$BE" valgrind
  pj plant magma-n1 avx512bw 'avx512bw_.*sliced_core.h' "$BE" valgrind
  pj plant magma-n2 avx512bw 'avx512bw_.*sliced_core.h' "$BE" valgrind
  pj plant streebog avx512 streebog_avx512.c "$BE" valgrind
  pj plant streebog avx512bw streebog_avx512bw.c "$BE" valgrind
  pj plant mgm avx512 mgm_avx512.c "$BE" valgrind
  # GOST R 34.10's k P on AVX-512 IFMA (the plant case turns it on itself:
  # valgrind hides ADX, which the dispatcher's IFMA row also needs)
  pj plant gost3410-ed-ifma avx512 "gostx__ec_ed_mul_ifma (ec_edwards_ifma.c" "$BE" valgrind
  # and its k G (the rows' affine entries scanned as words, added in lanes)
  pj plant gost3410-ed-ifma-base avx512 "gostx__ec_ed_mul_base_ifma (ec_edwards_ifma.c" "$BE" valgrind
  # Magma's one-block vector round (the avx512-vround row, chosen on Intel
  # cores only): named, so it is checked whatever this CPU's vendor; a name
  # sets the other primitives to portable, whose checks are above.
  for group in const reach; do pj check_group emulated "$BE" avx512-vround "$group"; done
  pj plant magma-vround avx512-vround 'vround_.*magma_avx512.c' "$BE" valgrind
fi
pj_end || fail=1
cat "$log"/checked.* >"$checked" 2>/dev/null || true

# 6. Coverage: every row of the dispatcher's tables (`ct_check rows`: what
#    any CPU of this architecture can choose, whatever this host's vendor
#    or features) must have run the const group, natively under valgrind or
#    emulated; the opt-in rows were reported as leaky in step 3. Then the
#    same test on the rows with one made up: it must fail, or the coverage
#    test could not.
#   coverage ROWS_FILE  (prints a line per row; returns 1 if any is unchecked)
coverage() {
  local rows=$1 bad=0 prim impl how note
  while read -r _ prim impl _ flags; do
    case " $flags " in *" opt-in "*) continue ;; esac
    how=$(awk -v p="$prim=$impl" '{ for (i = 2; i <= NF; i++) if ($i == p) print $1 }' "$checked" | sort -u | paste -sd+ -)
    note=
    case " $defaults " in *" $prim=$impl "*) note=" (this CPU's default)" ;; esac
    case "$prim:$impl" in
      streebog:portable) note="$note; its LPS table lookups are the documented leak (expected-leaks.supp, docs/STREEBOG.md)" ;;
    esac
    case "$how" in
      *valgrind*) echo "ct coverage: $prim $impl: checked under valgrind$note" ;;
      emulated)
        echo "ct coverage: $prim $impl: checked on the emulated build only$note (its source; the native AVX-512/VPCLMULQDQ instruction stream is not run under the checker: valgrind cannot decode it)" ;;
      *)
        echo "ct coverage: $prim $impl: NOT checked$note (in no group: valgrind cannot run it here${BE:+ and the emulated step did not})"
        bad=1 ;;
    esac
  done <"$rows"
  return $bad
}
echo "ct coverage: this CPU's defaults: $defaults"
coverage "$log/rows" || fail=1
for pair in $defaults; do # a default that is no row would be a ct_check bug
  grep -q "^row ${pair%%=*} ${pair#*=} " "$log/rows" || { echo "ct coverage: default $pair is no row of ct_check rows"; fail=1; }
done
{ cat "$log/rows"; echo "row magma no-such-row avx512"; } >"$log/rows.planted"
if coverage "$log/rows.planted" >"$log/coverage.planted"; then
  echo "ct coverage self-test: a row in no group PASSED the coverage test: it is broken"; fail=1
elif grep -q '^ct coverage: magma no-such-row: NOT checked' "$log/coverage.planted"; then
  echo "ct coverage self-test: a row in no group fails the coverage test (as it must)"
else
  echo "ct coverage self-test: the unchecked row was not named"; fail=1
fi
all=$(awk '{ for (i = 2; i <= NF; i++) print $i }' "$checked" | sort -u | paste -sd' ' -)
echo "ct coverage: implementations checked in all: $all"

if [ $fail -ne 0 ]; then echo "check_ct: FAILED"; exit 1; fi
echo "check_ct: passed"
