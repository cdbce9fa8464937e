#!/usr/bin/env bash
# Fuzzers (docs/QUALITY.md): builds every tests/fuzz/fuzz_*.c as a libFuzzer
# harness (clang, ASan + UBSan) and runs each for a bounded time (a core
# each, side by side: scripts/parallel.sh), starting
# from its committed seed corpus tests/fuzz/corpus/<name>/. New corpus
# entries go to BUILD/corpus/<name>/ (not committed); a crash leaves
# BUILD/artifacts/<name>-crash-* and fails the check.
#   usage: scripts/check_fuzz.sh [SECONDS_EACH] [BUILD_DIR]   (default 30, build-fuzz)
#   FUZZERS="fuzz_cli fuzz_mgm_decrypt" scripts/check_fuzz.sh 600   # a subset, longer
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
B=${2:-build-fuzz}
root=$(pwd)

command -v clang >/dev/null || { echo "check_fuzz: clang not installed"; exit 1; }
cmake -S . -B "$B" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGOSTX_SANITIZE=ON -DGOSTX_FUZZ=ON >/dev/null
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" --target fuzzers >/dev/null

# Every harness in tests/fuzz/ (a glob, so new ones join automatically).
all=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
names=${FUZZERS:-$all}

# One fuzzer for the bounded time; its verdict on stdout, exit 1 on a finding.
fuzz_one() {
  local name=$1 rc stats cov
  local seeds="$root/tests/fuzz/corpus/$name" work="$root/$B/corpus/$name"
  mkdir -p "$work"
  local extra=()
  case $name in fuzz_cli | fuzz_cms_cli) extra+=(-close_fd_mask=3) ;; esac # the command's own messages
  set +e
  "$B/$name" -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$root/$B/artifacts/$name-" "${extra[@]}" \
    "$work" "$seeds" >"$B/artifacts/$name.log" 2>&1
  rc=$?
  set -e
  # (|| true: a harness that fails on its seeds prints no "cov:" line, and
  # pipefail would end the script here without saying so)
  stats=$(grep -E '^stat::number_of_executed_units' "$B/artifacts/$name.log" | awk '{print $2}' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$B/artifacts/$name.log" | tail -1 || true)
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ok (${secs}s, ${stats:-?} runs, $cov, corpus $(ls "$work" | wc -l) new + $(ls "$seeds" | wc -l) seeds)"
  else
    echo "fuzz $name: FAILED (rc $rc); log $B/artifacts/$name.log:"
    grep -E -A25 'ERROR|==[0-9]+==|fuzz_[a-z_]*: ' "$B/artifacts/$name.log" | head -60
    ls "$B/artifacts/$name-"* 2>/dev/null | sed 's/^/  reproduce: '"$B"'\/'"$name"' /' || true
    return 1
  fi
}

# Each fuzzer is one process on one core: they run a core each
# (scripts/parallel.sh), every one for the full time.
. scripts/parallel.sh
mkdir -p "$B/artifacts"
pj_start
for name in $names; do pj fuzz_one "$name"; done
pj_end || { echo "check_fuzz: FAILED"; exit 1; }
echo "check_fuzz: passed"
