# Sourced by tests/net/netns.sh and tests/net/tls_common.sh: pids_stop
# ends the processes whose pids are in the array PIDS (TERM, then KILL
# those still there after 3 s) and empties it. Also the waits' scale for
# the tests that source it (tests/support/time_factor.sh: bound, timeout).
. "$(dirname "${BASH_SOURCE[0]}")/../support/time_factor.sh"
pids_stop() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq $(bound 30)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  PIDS=()
}
