#!/usr/bin/env bash
# The waits' scale (tests/README.md, "Waiting on a busy or slow machine"):
# GOSTX_TEST_TIME_FACTOR times the load per core (1..8), a bad factor
# refused, `bound` rounding up, and the timeout(1) on the tests' PATH (also
# for a program that runs it, as ip netns exec does) scaling its durations
# and nothing else. About 2 s.
. "$(dirname "$0")/cli_common.sh" time_factor no-gostx
TF=$here/support/time_factor.sh
scale_with() { env -u GOSTX_TEST_TIME_SCALE GOSTX_TEST_TIME_FACTOR="$1" bash -c '. "$1"; echo "$GOSTX_TEST_TIME_SCALE"' _ "$TF"; }
load=$(awk -v n="$(getconf _NPROCESSORS_ONLN)" '{l = $1 / n; l = (l > int(l)) ? int(l) + 1 : int(l); print (l < 1 ? 1 : (l > 8 ? 8 : l))}' /proc/loadavg)
s1=$(scale_with 1) s3=$(scale_with 3) s05=$(scale_with 0.5)
# the load may move by one step between the reads: the rule, within a step
[ "$s1" -ge 1 ] && [ "$s1" -le 8 ] && [ $((s1 - load)) -le 1 ] && [ $((load - s1)) -le 1 ] &&
  [ $((s3 % 3)) = 0 ] && [ $((s3 / 3)) -ge 1 ] && [ $((s3 / 3)) -le 8 ] &&
  awk -v h="$s05" 'BEGIN { exit !(h * 2 == int(h * 2) && h >= 0.5 && h <= 4) }' &&
  ok || bad "scale: factor 1 gives $s1, 3 gives $s3, 0.5 gives $s05 (load factor $load)"
for f in 0 -1 abc 2x ""; do
  out=$(env -u GOSTX_TEST_TIME_SCALE GOSTX_TEST_TIME_FACTOR="$f" bash -c '. "$1"; echo ran' _ "$TF" 2>&1)
  rc=$?
  if [ -z "$f" ]; then # empty: the default, 1
    [ $rc = 0 ] && [ "$out" = ran ] && ok || bad "GOSTX_TEST_TIME_FACTOR='': rc $rc: $out"
  else
    [ $rc = 2 ] && [[ $out == *"GOSTX_TEST_TIME_FACTOR='$f': not a positive number"* ]] && ok ||
      bad "GOSTX_TEST_TIME_FACTOR='$f': rc $rc: $out"
  fi
done
b=$(GOSTX_TEST_TIME_SCALE=2.5 bash -c '. "$1"; echo $(bound 3) $(bound 4) $(bound 1)' _ "$TF")
[ "$b" = "8 10 3" ] && ok || bad "bound at scale 2.5: $b (want 8 10 3)"
# the wrapper: found first, durations scaled (0.2 s becomes 1 s at scale 5),
# through env as ip netns exec runs it; the signal and the command untouched
[ "$(type -P timeout)" = "$here/support/bin/timeout" ] && ok || bad "timeout in PATH: $(type -P timeout)"
GOSTX_TEST_TIME_SCALE=5 env timeout 0.2 sleep 0.6
[ $? = 0 ] && ok || bad "timeout 0.2 at scale 5 ended a 0.6 s sleep"
GOSTX_TEST_TIME_SCALE=1 env timeout 0.2 sleep 5
[ $? = 124 ] && ok || bad "timeout 0.2 at scale 1 did not end a 5 s sleep"
rc=$( (GOSTX_TEST_TIME_SCALE=1 timeout -s KILL -k 1 0.1s sleep 5) 2>/dev/null; echo $?)
[ "$rc" = 137 ] && ok || bad "timeout -s KILL -k 1 0.1s: rc $rc, not killed by SIGKILL"
out=$(GOSTX_TEST_TIME_SCALE=9 timeout 1 echo -k 3 -- a)
[ "$out" = "-k 3 -- a" ] && ok || bad "the command's arguments changed: $out"
finish
