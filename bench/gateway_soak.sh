#!/usr/bin/env bash
# A gateway's soak (issue 81: 500 peers keep SAs for 10 minutes with
# rekeys; memory grows linearly and returns when they leave). Two
# namespaces joined by a veth pair (bench/net_common.sh): in one the
# `gostx tunnel` gateway with a [pool] (10.200.0.0/22, certificates of a
# CA made here), in the other USERS remote users of one process
# (build/ike_swarm, tests/net/ike_swarm.c: a lib/ike manager each, one
# address, a UDP port each), each with its own certificate, a Child SA
# rekeyed every REKEY s and its IKE SA every IKE_REKEY s (both staggered
# user by user, up to half a period longer), a ping through its Child SA to
# the gateway's host every PING s. The users come RATE a second; they stay
# MINUTES minutes, then delete their IKE SAs and leave. Root.
#   usage: bench/gateway_soak.sh
#   USERS (500), MINUTES (10), REKEY (20), IKE_REKEY (60), PING (10),
#   RATE (50), EVERY (30: seconds between rows), GOSTX=PATH, SWARM=PATH,
#   QUICK=1: 50 users for one minute (a smoke run of the script itself)
# Rows every EVERY s: the seconds since the users began, users up,
# the gateway's heap_bytes (glibc's in-use heap, from its status; the
# gateway runs with glibc's per-thread cache off, so that freed chunks
# count as free), the heap per user over the baseline, the gateway's RSS
# (VmRSS), the rekeys and failures so far at the users' end (ike_swarm's
# counts), pings sent and lost, and the gateway's CPU seconds. The
# baseline is the heap after one user came and went (the tables made at
# the first key exchange left in it). Then the swarm's end line (its
# totals), the gateway after all left (its users, heap and RSS) and its
# log lines that say a failure, counted (COOKIEs apart) and the first shown.
set -u
USERS=${USERS:-500} MINUTES=${MINUTES:-10} REKEY=${REKEY:-20} IKE_REKEY=${IKE_REKEY:-60}
PING=${PING:-10} RATE=${RATE:-50} EVERY=${EVERY:-30}
if [ -n "${QUICK:-}" ]; then USERS=50 MINUTES=1 EVERY=10; fi
G=${GOSTX:-build/gostx}
SWARM=${SWARM:-$(dirname "$G")/ike_swarm}
[ "$(id -u)" = 0 ] || { echo "gateway_soak: needs root"; exit 1; }
[ -x "$SWARM" ] || { echo "gateway_soak: no $SWARM (cmake --build build)"; exit 1; }
. "$(dirname "$0")/net_common.sh"
. "$(dirname "$0")/../tests/net/ike_common.sh" # pool_gateway

pool_gateway gxbg0 10.200.0.0/22 || { echo "gateway_soak: the PKI"; exit 1; }
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 bg $NA gw "$G" tunnel -c "$T/gw.conf" --new-keys
GWPID=${PIDS[-1]}
for _ in $(seq 100); do grep -q ' up, ' "$T/gw.log" 2>/dev/null && break; sleep 0.1; done
grep -q ' up, ' "$T/gw.log" || { echo "gateway_soak: the gateway: $(tail -3 "$T/gw.log")"; exit 1; }
ip -n $NA addr add 10.99.0.1/32 dev gxbg0 && ip -n $NA link set gxbg0 up &&
  ip -n $NA route add 10.200.0.0/22 dev gxbg0 src 10.99.0.1

gw_value() { awk -v k="$1" '$1 == k { print $2 }' "$T/gw.state.status" 2>/dev/null; }
fresh() { sleep 2.2; } # the status file is rewritten each second
swarm() { # NAME FIRST COUNT SECONDS [OPTION...]
  local name=$1 first=$2 n=$3 s=$4
  shift 4
  bg $NB $name "$SWARM" --users $n --first $first --from 10.231.0.2 --port $((20000 + first)) \
    --gw 10.231.0.1:4500 --ca "$T/ca.pem" --ca-key "$T/ca.key" --gw-cert "$T/gw.pem" \
    --seconds $s --rate $RATE "$@"
}
# the baseline: one user up, then gone
swarm w 9000 1 3
for _ in $(seq 100); do grep -q '^swarm end' "$T/w.log" && break; sleep 0.1; done
fresh
h0=$(gw_value heap_bytes)
rss0=$(awk '/^VmRSS/ { print $2 * 1024 }' /proc/$GWPID/status)
echo "# $USERS users, $MINUTES min, Child SA rekey ${REKEY}s, IKE SA rekey ${IKE_REKEY}s, ping ${PING}s"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"
echo "# baseline: heap $h0 B, RSS $rss0 B"
printf '%6s %5s %11s %9s %11s %8s %7s %5s %7s %5s %7s\n' t up heap_bytes B/user rss_bytes child ike fail pings lost gw_cpu_s
swarm s 0 $USERS $((MINUTES * 60)) --rekey $REKEY --ike-rekey $IKE_REKEY --ping 10.99.0.1 \
  --ping-every $PING --every $EVERY --hold 5000
SPID=${PIDS[-1]}
t0=$(date +%s)
row() {
  local l up h rss
  l=$(grep '^swarm' "$T/s.log" | grep -v 'all up' | tail -1)
  up=$(awk '{ for (i = 1; i < NF; i++) if ($i == "up") print $(i + 1) }' <<<"$l")
  h=$(gw_value heap_bytes)
  rss=$(awk '/^VmRSS/ { print $2 * 1024 }' /proc/$GWPID/status)
  f() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$l"; }
  printf '%6s %5s %11s %9s %11s %8s %7s %5s %7s %5s %7.1f\n' $(($(date +%s) - t0)) "${up:-0}" "$h" \
    $([ "${up:-0}" -gt 0 ] && echo $(((h - h0) / up)) || echo -) "$rss" "$(f child_rekeys)" \
    "$(f ike_rekeys)" "$(f failures)" "$(f pings)" "$(f lost)" \
    "$(awk -v hz=$HZ '{ print ($14 + $15) / hz }' /proc/$GWPID/stat)"
}
while kill -0 $SPID 2>/dev/null; do
  sleep $EVERY
  kill -0 $SPID 2>/dev/null && row
done
grep '^swarm all up' "$T/s.log"
grep '^swarm end' "$T/s.log"
fresh
echo "# after all left: remote_users $(gw_value remote_users), heap $(gw_value heap_bytes) B" \
  "($(($(gw_value heap_bytes) - h0)) B over the baseline), RSS" \
  "$(awk '/^VmRSS/ { print $2 * 1024 }' /proc/$GWPID/status) B"
echo "# the gateway's failure lines: $(grep -E 'failed|refused|could not|cannot|dropped|INVALID|warning|did not answer' "$T/gw.log" |
  grep -v -e COOKIE -e 'deleted by the peer: dropped, waiting for the peer' | wc -l)" \
  "(COOKIEs asked: $(grep -c 'COOKIE asked' "$T/gw.log"))"
grep -E 'failed|refused|could not|cannot|INVALID|warning|did not answer' "$T/gw.log" | head -5
grep -v '(shutdown)' "$T/s.log" | grep '^ike_swarm' | head -5
