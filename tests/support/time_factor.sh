# Sourced by the shell tests (cli_common.sh, tests/net/pids.sh): how long a
# test may wait for something, scaled to the machine (tests/README.md,
# "Waiting on a busy or slow machine"). GOSTX_TEST_TIME_SCALE, once per run
# and exported to what the test starts (C tests read it too:
# t_time_scale), is GOSTX_TEST_TIME_FACTOR (CI's factor for a slow machine,
# default 1; the cross stage sets one for qemu) times the load factor:
# the 1-minute load average per core, rounded up, 1 to 8. Only waits scale
# (timeout, the bounded polls through `bound`), never what a test checks.
if [ -z "${GOSTX_TEST_TIME_SCALE:-}" ]; then
  if ! [[ ${GOSTX_TEST_TIME_FACTOR:-1} =~ ^[0-9]*\.?[0-9]+$ ]] ||
    awk -v f="${GOSTX_TEST_TIME_FACTOR:-1}" 'BEGIN { exit !(f <= 0) }'; then
    echo "GOSTX_TEST_TIME_FACTOR='$GOSTX_TEST_TIME_FACTOR': not a positive number" >&2
    exit 2
  fi
  GOSTX_TEST_TIME_SCALE=$(awk -v f="${GOSTX_TEST_TIME_FACTOR:-1}" \
    -v n="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" '
    { l = $1 / (n > 0 ? n : 1); l = (l > int(l)) ? int(l) + 1 : int(l)
      if (l < 1) l = 1; if (l > 8) l = 8; print f * l }
    END { if (NR == 0) print f }' /proc/loadavg 2>/dev/null || echo "${GOSTX_TEST_TIME_FACTOR:-1}")
  export GOSTX_TEST_TIME_SCALE
fi
# bound N: N (a count of polls, seconds) times the scale, rounded up
bound() {
  awk -v n="$1" -v s="$GOSTX_TEST_TIME_SCALE" 'BEGIN { v = n * s; print (v == int(v)) ? v : int(v) + 1 }'
}
# timeout(1) scaled, for every caller (ip netns exec too): support/bin first
# in PATH; bound(SECONDS) for inline Python: gostx_test_time.py on PYTHONPATH
_tf_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ":$PATH:" in
  *":$_tf_dir/bin:"*) ;;
  *) PATH=$_tf_dir/bin:$PATH ;;
esac
case ":${PYTHONPATH:-}:" in
  *":$_tf_dir:"*) ;;
  *) export PYTHONPATH=$_tf_dir${PYTHONPATH:+:$PYTHONPATH} ;;
esac
