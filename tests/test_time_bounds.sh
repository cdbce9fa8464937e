#!/usr/bin/env bash
# No fixed time limits in the tests (tests/README.md, "Waiting on a busy or
# slow machine"): tests/support/time_bounds.py finds none in the tree
# outside tests/time_bounds_allow.txt, and it does find each kind planted
# in a copy (a sleep outside a bounded poll, a poll of fixed count,
# `timeout 5` where the scaled timeout is not in PATH, `-lt 5000` on a
# time, ping -W, Python's timeouts and deadlines, C's alarm and poll),
# lets the scaled forms through, and refuses an allow-list entry without a
# reason or that matches nothing. About 1 s.
. "$(dirname "$0")/cli_common.sh" time_bounds no-gostx
CHK=$here/support/time_bounds.py
out=$(python3 "$CHK" "$here/..")
[ $? = 0 ] && ok || bad "fixed time limits in the tests: $out"

# planted: a file a case, all checked in one run (an empty allow-list);
# each planted file flagged for its kind, none of the scaled ones
mkdir -p "$T/tree/tests"
: >"$T/none"
n=0 kinds=()
planted() { # planted WHAT EXT TEXT
  n=$((n + 1))
  printf '%s\n' "$3" >"$T/tree/tests/p$n.$2"
  kinds+=("tests/p$n.$2:[0-9]*: $1")
}
scaled() { # scaled EXT TEXT
  n=$((n + 1))
  printf '%s\n' "$2" >"$T/tree/tests/s$n.$1"
}
src='. "$(dirname "$0")/cli_common.sh" x'
planted "a fixed sleep outside" sh "$src
sleep 2"
planted "a fixed sleep outside" sh "for f in a b; do
  touch \$f; sleep 1
done"
planted "a fixed count of sleeps" sh "for _ in \$(seq 50); do
  [ -e f ] && break
  sleep 0.1
done"
planted "a fixed count of sleeps" sh "for _ in {1..20}; do [ -e f ] && break; sleep 0.1; done"
planted "a timeout the load scale does not reach" sh "timeout 5 true"
planted "a timeout the load scale does not reach" sh "$src
/usr/bin/timeout 5 true"
planted "a fixed upper limit on a time" sh "$src
while [ \$(((\$(date +%s%N) - t0) / 1000000)) -lt 5000 ]; do :; done"
planted "a fixed upper limit on a time" sh "$src
[ \$ms -le 1000 ] && ok"
planted "a fixed wait option" sh "$src
ping -c 1 -W 2 10.0.0.1"
planted "a fixed socket timeout (inline Python)" sh "$src
python3 -c 'import socket; s = socket.socket(); s.settimeout(3)'"
planted "a fixed timeout=" py "c = socket.create_connection(a, timeout=10)"
planted "a fixed deadline" py "end = time.time() + 10"
planted "a fixed sleep" py "time.sleep(0.5)"
planted "a fixed timeout constant" py "TIMEOUT_S = 20"
planted "a fixed alarm" c "  alarm(30);"
planted "a fixed poll timeout" c "  if (poll(pf, 2, 5000) == 0) return 1;"
scaled sh "$src
timeout 5 true
for _ in \$(seq \$(bound 50)); do
  [ -e f ] && break
  sleep 0.1
done
while kill -0 \$p 2>/dev/null; do sleep 0.05; done
[ \$ms -le \$(bound 1000) ] && [ \$ms -ge 900 ] && ok
ping -c 1 -W \$(bound 2) 10.0.0.1"
scaled py "c = socket.create_connection(a, timeout=bound(10))
end = time.time() + bound(10)"
scaled c "  alarm(120 * t_time_scale());"
python3 "$CHK" "$T/tree" "$T/none" >"$T/out" 2>&1
[ $? = 1 ] && ok || bad "planted limits: not exit 1: $(cat "$T/out")"
for k in "${kinds[@]}"; do
  grep -q "^$k" "$T/out" && ok || bad "not flagged: $k: $(cat "$T/out")"
done
grep -q '^tests/s' "$T/out" && bad "flagged though scaled: $(grep '^tests/s' "$T/out")" || ok

# the allow-list: an entry lets its line through; one without a reason, or
# stale, is an error
rm "$T/tree/tests"/*
printf '%s\n' "$src" "sleep 2 # a window" >"$T/tree/tests/a.sh"
printf '# a window, measured\ntests/a.sh: sleep 2 # a window\n' >"$T/allow"
python3 "$CHK" "$T/tree" "$T/allow" >"$T/out" 2>&1 && ok || bad "allowed, still flagged: $(cat "$T/out")"
printf 'tests/a.sh: sleep 2 # a window\n' >"$T/allow"
python3 "$CHK" "$T/tree" "$T/allow" >"$T/out" 2>&1
[ $? = 1 ] && grep -q 'no reason' "$T/out" && ok || bad "an entry without a reason: $(cat "$T/out")"
printf '# a window\ntests/a.sh: sleep 2 # a window\n\n# gone\ntests/a.sh: sleep 9\n' >"$T/allow"
python3 "$CHK" "$T/tree" "$T/allow" >"$T/out" 2>&1
[ $? = 1 ] && grep -q 'matches no fixed bound in tests/a.sh: sleep 9' "$T/out" && ok ||
  bad "a stale entry: $(cat "$T/out")"
finish
