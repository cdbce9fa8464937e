#!/usr/bin/env bash
# perf of both gostx tunnel ends during iperf3 TCP x1 (magma), per process
cd /work/main
G=build/gostx
. bench/net_common.sh
gostx_up ${TR:-magma-mgm-ktree} 1
sleep 1
ip netns exec $NB iperf3 -s -1 -B 10.232.0.2 >/dev/null 2>&1 &
sleep 0.5
ip netns exec $NA iperf3 -c 10.232.0.2 -t 8 >/tmp/prof/iperf.txt 2>&1 &
sleep 2
perf record -q -g -o /tmp/prof/perf.data -p $(echo ${PIDS[@]} | tr ' ' ',') -- sleep 4 2>/dev/null
wait
echo "pids ${PIDS[@]}"
tail -4 /tmp/prof/iperf.txt
