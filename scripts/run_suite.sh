#!/usr/bin/env bash
# Runs a build's ctest suite (make test, make asan) as two ctest processes
# side by side: the tests labelled net (tests/net/, CMakeLists.txt) and the
# rest. The net tests mostly wait (sleeps, timeouts: net_test_tunnel_ike_soak
# is 68 s of wall time and 7 s of CPU); in one ctest -j N they held up to
# GOSTX_NET_SLOTS of the N slots, so for several minutes one test ran on the
# two cores CI has. Apart, the other tests keep their N slots throughout,
# and three net tests (GOSTX_NET_SLOTS) wait side by side.
#   usage (in a build directory): run_suite.sh JOBS [NET_JOBS]
# GOSTX_SUITE_SKIP: a label (regex) whose tests are left out, net ones too
# (make asan: static, the scripts that run nothing the build made; scale,
# the gateway tests of fifty tunnels and two hundred swarm users).
# The net tests' lines are prefixed "[net] "; exit 1 if either run failed.
set -uo pipefail
jobs=${1:?usage: run_suite.sh JOBS [NET_JOBS]}
net_jobs=${2:-3}
skip=${GOSTX_SUITE_SKIP:+|$GOSTX_SUITE_SKIP}
ctest --output-on-failure -L '^net$' ${GOSTX_SUITE_SKIP:+-LE "^($GOSTX_SUITE_SKIP)\$"} -j "$net_jobs" 2>&1 | sed -u 's/^/[net] /' &
net_pid=$!
ctest --output-on-failure -LE "^(net$skip)\$" -j "$jobs"
rc=$?
wait "$net_pid" || rc=1
exit $rc
