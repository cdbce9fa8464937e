#!/usr/bin/env bash
# gostx tunnel with keying = ikev2 once established (docs/TUNNEL.md,
# "Keying with IKEv2"): PSK, a initiating, both ends at rekey_seconds = 2
# (so the IKE SA every 8 s; the two timers often fire together, and the
# rekeys cross: RFC 7296 2.8.1), dpd_seconds = 1:
# 1. a numbered UDP stream each way, one datagram each 5 ms for about 11 s,
#    across the Child SA rekeys (make-before-break, crossing ones among
#    them) and an IKE SA rekey:
#    each datagram arrives once, intact; several rekeys logged by each side;
#    --status names the current Child SA (SPIs crossed, not the first ones)
#    and the data path seals with it (sa_out);
# 2. a killed with -9 and restarted: its new IKE_SA_INIT replaces the IKE
#    SA b still holds, and a UDP stream passes again within 5 s;
# (A responder-only end killed and restarted is not here: the initiator
# needs its requests over the old IKE SA to go unanswered, 5 sends, about
# 15 s, before it drops it (PEER_GONE) and starts anew; by hand that took
# 16.2-16.5 s, but over 25 s once under a loaded ctest -j2, too slow and
# too uneven for CI. docs/TUNNEL.md lists it as a gap: INVALID_IKE_SPI,
# RFC 7296 2.21.4, would make it quick.)
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxl python3 timeout
# b rekeys every 2 s too: each side starts rekeys, and some cross (the side
# whose new SA is redundant used to seal with the survivor before the peer
# had it: a datagram lost in 2 of 5 runs under ASan)
psk_pair "rekey_seconds = 2" "dpd_seconds = 1" -- "rekey_seconds = 2" "dpd_seconds = 1"
pair_up
first_in=$(grep -o 'Child SA ESP in 0x[0-9a-f]*' "$T/a.log" | head -1 | awk '{print $5}')

# 1. a stream each way across the rekeys (each side both a rekey's
# initiator and its responder: the responder seals with the new SA only
# once the initiator has it)
N=2000
WAIT=()
ike_stream $NA $NB 10.232.0.2 "$T/ab.out" $N 64 0.005
ike_stream $NB $NA 10.232.0.1 "$T/ba.out" $N 64 0.005
wait "${WAIT[@]}"
streams_ok "across the rekeys" $N ab ba
rekeys_logged 3 1
for s in a b; do # crossings: two new Child SAs replacing the same one (not every run has one)
  x=$(grep -o 'Child SA rekeyed.*replacing in 0x[0-9a-f]*' "$T/$s.log" | awk '{print $NF}' |
    sort | uniq -d | wc -l)
  echo "$s: $x crossing rekeys"
done
# --status between two rekeys (a status file each second; a rekey each 2 s)
status_ok=0
for _ in 1 2 3 4 5; do
  sleep 0.6
  ai=$(tunnel_status $NA a child_spi_in) ao=$(tunnel_status $NA a child_spi_out)
  bi=$(tunnel_status $NB b child_spi_in) bo=$(tunnel_status $NB b child_spi_out)
  aso=$(tunnel_status $NA a sa_out)
  [ -n "$ai" ] && [ "$ai" = "$bo" ] && [ "$ao" = "$bi" ] && [ "$ai" != "$first_in" ] &&
    [ "$((aso))" = "$((ao))" ] && { status_ok=1; break; }
done
[ $status_ok = 1 ] && ok "--status: the current Child SA, in $ai out $ao (the first was in $first_in), sealing with it" ||
  bad "--status: a in $ai out $ao sa_out $aso, b in $bi out $bo, the first in $first_in"

# back_within LOG NS ADDR MS WHAT: after a restart (t0), the restarted
# side's inner address again on its new TUN device once it is up (LOG),
# then 20-datagram UDP streams a -> b until one passes whole, within MS
back_within() {
  local back=0 ms
  for _ in $(seq 100); do
    grep -q ' up, ' "$T/$1.log" 2>/dev/null && break
    sleep 0.05
  done
  ip -n $2 addr add $3/30 dev $TUN 2>/dev/null
  while [ $((($(date +%s%N) - t0) / 1000000)) -lt $4 ]; do
    got=$(udp_through $NA $NB 10.232.0.2 udpsend 20 64 2>&1)
    [ "$got" = "received 20 distinct 20 bad 0" ] && { back=1; break; }
  done
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ $back = 1 ] && [ $ms -le $4 ] && ok "$5: UDP through again in $ms ms" ||
    bad "$5: $got after $ms ms: $(tail -3 "$T/$1.log")"
}

# killed_restarted SIDE NS ADDR MS: SIDE killed with -9 and started again
# (logging to $T/SIDE2.log), back in service within MS
killed_restarted() {
  eval "kill -KILL \$PID_$1; wait \$PID_$1 2>/dev/null"
  t0=$(date +%s%N)
  ip netns exec $2 "$G" tunnel -c "$T/$1.conf" 2>"$T/${1}2.log" </dev/null >/dev/null &
  eval "PID_$1=$!"
  PIDS+=($!)
  back_within ${1}2 $2 $3 $4 "$1 killed and restarted"
}

# 2. a killed and restarted: b takes its new IKE SA in place of the old one
killed_restarted a $NA 10.232.0.1 5000
grep -q 'replaces the one installed' "$T/b.log" && ok "b replaced the old IKE SA: $(grep 'replaces' "$T/b.log")" ||
  bad "b: no replacement said: $(tail -3 "$T/b.log")"

cat "$T/a2.log" >>"$T/a.log" # both_stop looks for sanitizer reports there
both_stop
finish
