# Sourced by shell tests: the gostx binary in $G ($GOSTX, else build/gostx;
# without it the test is skipped, exit 77), a scratch directory $T removed on
# exit, the counters and ok / bad / check / finish.
#   usage: . "$(dirname "$0")/cli_common.sh" NAME [no-gostx]
# NAME goes into $T's name; no-gostx: the test does not run the binary.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
# the waits' scale on a busy or slow machine: bound N, a scaled timeout(1)
. "$(dirname "${BASH_SOURCE[0]}")/support/time_factor.sh"
if [ "${2:-}" != no-gostx ]; then
  : "${GOSTX:=$here/../build/gostx}"
  if [ ! -x "$GOSTX" ]; then
    echo "gostx binary not found at $GOSTX: skipping"
    exit 77
  fi
  G=$GOSTX
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gostx-$1-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check "name" command...
  local name=$1; shift
  if "$@"; then ok; else bad "$name"; fi
}
flip_byte() { # flip_byte FILE OFFSET: complement one byte, so the file surely changes
  local b
  b=$(od -An -tu1 -j"$2" -N1 "$1")
  printf "\\$(printf %03o $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
finish() { # the counts; exit status 0 only without failures
  echo "$pass passed, $fail failed"
  [ $fail = 0 ]
  exit
}
# engine_pki_or_finish: the second half of a test that needs openssl with
# gost-engine starts in the PKI support/gost_pki.sh makes in $T/pki (the
# engine named by -engine, OPENSSL_CONF=/dev/null); without the engine the
# counts so far are the result (finish).
engine_pki_or_finish() {
  command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
    { echo "openssl with gost-engine not found: skipping"; finish; }
  bash "$here/support/gost_pki.sh" "$T/pki" >/dev/null || exit 1
  cd "$T/pki" || exit 1
  export OPENSSL_CONF=/dev/null
}

# For the interruption tests (test_interrupt.sh, test_interrupt_pkey.sh; both
# `set -m`, so background jobs receive SIGINT):
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# signal_after SIG DELAY_MS CMD...: runs CMD in the background (stderr to
# $T/err), sends SIG after DELAY_MS and waits; rc is its exit status. The
# signal goes to gostx, not to the forked shell before its exec: bash runs
# the script's EXIT trap (rm -rf $T) when a signal kills that shell.
signal_after() {
  local sig=$1 delay=$2 pid real_bash
  shift 2
  real_bash=$(readlink -f "$BASH")
  "$@" 2>"$T/err" &
  pid=$!
  while [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$real_bash" ]; do :; done
  sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
  kill -s "$sig" $pid 2>/dev/null
  wait $pid 2>/dev/null
  rc=$?
}
# interrupt_run "CMDS" "SIGS": for each command of CMDS, with the unnamed
# temporary file and then the named one (GOSTX_TMPFILE=named), one whole run
# (it must be complete; its time is the window for the kills), then $trials
# runs per signal of SIGS (and SIGKILL, with the unnamed file only: it cannot
# be caught), each killed at a random moment. The test defines run_cmd CMD
# (exec's the command), setup CMD (the state before a run), complete CMD and
# judge CMD SIG WHAT (the checks after a killed run; rc is its exit status).
# At least half the kills must hit a running command, or nothing was tested.
interrupt_run() {
  local cmds=$1 sigs=$2 tmpkind cmd sig i t0 span delay interrupted=0 tried=0
  for tmpkind in unnamed named; do
    if [ $tmpkind = named ]; then export GOSTX_TMPFILE=named; else unset GOSTX_TMPFILE; fi
    for cmd in $cmds; do
      # How long an uninterrupted run takes here (this build, this load).
      setup $cmd
      t0=$(now_ms)
      (run_cmd $cmd) || { bad "$tmpkind $cmd: uninterrupted run failed"; continue; }
      span=$(($(now_ms) - t0))
      [ $span -lt 20 ] && span=20
      if complete $cmd; then ok; else bad "$tmpkind $cmd: uninterrupted run: wrong output"; fi
      for sig in $sigs $([ $tmpkind = unnamed ] && echo KILL); do
        for ((i = 0; i < trials; i++)); do
          setup $cmd
          delay=$((RANDOM % span))
          signal_after "$sig" "$delay" run_cmd $cmd
          tried=$((tried + 1))
          [ $rc -gt 128 ] && interrupted=$((interrupted + 1))
          judge $cmd $sig "$tmpkind $cmd, SIG$sig after ${delay} of ~${span} ms (rc $rc)"
        done
      done
    done
  done
  if [ $((2 * interrupted)) -ge $tried ]; then ok; else
    bad "only $interrupted of $tried kills interrupted a running command"
  fi
  echo "$interrupted of $tried runs killed while running"
}
