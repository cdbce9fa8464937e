#!/usr/bin/env bash
# gostx tunnel with keying = ikev2: a restarted responder tells the
# initiator from its ESP alone (docs/TUNNEL.md, "A restarted peer"). a
# initiates and, with dpd_seconds = 0 and an hour's rekey_seconds, sends no
# IKE request of its own once established: only its ESP, a steady UDP
# stream into the tunnel, reaches b after b is killed with -9 and
# restarted. b, holding no SA, answers it with an unprotected INVALID_SPI
# notice (RFC 7296 1.5) naming a's outbound SPI; a takes it as a hint and
# starts a new IKE SA, which replaces the old one: UDP through again within
# 5 s of b's restart (times the load scale: at load 10-17 on 2 cores it
# took 13 s). Then a notice naming another SPI (forged, from b's
# address) starts nothing.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxs python3 timeout
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
chmod 600 "$T/psk"
quiet="rekey_seconds = 3600"
ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" "local_id = a.gostx.test" \
  "remote_id = b.gostx.test" "$quiet" "dpd_seconds = 0"
ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" "local_id = b.gostx.test" \
  "remote_id = a.gostx.test" "$quiet" "dpd_seconds = 0"
both_start
both_up || { bad "not up: a: $(tail -3 "$T/a.log") b: $(tail -3 "$T/b.log")"; finish; }
ip -n $NA addr add 10.232.0.1/30 dev $TUN
ip -n $NB addr add 10.232.0.2/30 dev $TUN

# a's ESP, one datagram each 10 ms to a port nobody reads, until the end
XFER_GAP=0.01 ip netns exec $NA timeout 20 python3 "$HERE/xfer.py" udpsend 10.232.0.2 5003 $(bound 1500) 64 &
PIDS+=($!)
sleep 0.3 # (a head start, not checked: the stream runs 15 s times the scale, past the limit)
kill -KILL $PID_b
wait $PID_b 2>/dev/null
t0=$(date +%s%N)
ip netns exec $NB "$G" tunnel -c "$T/b.conf" 2>"$T/b2.log" </dev/null >/dev/null &
PID_b=$!
PIDS+=($!)
back=0 got="no stream tried" limit=$(bound 5000)
for _ in $(seq $(bound 100)); do
  grep -q ' up, ' "$T/b2.log" && break
  sleep 0.05
done
ip -n $NB addr add 10.232.0.2/30 dev $TUN 2>/dev/null
while [ $((($(date +%s%N) - t0) / 1000000)) -lt $limit ]; do
  got=$(udp_through $NA $NB 10.232.0.2 udpsend 20 64 2>&1)
  [ "$got" = "received 20 distinct 20 bad 0" ] && { back=1; break; }
done
ms=$((($(date +%s%N) - t0) / 1000000))
[ $back = 1 ] && [ $ms -le $limit ] && ok "b killed and restarted: UDP through again in $ms ms" ||
  bad "b killed and restarted: $got after $ms ms (limit $limit): $(tail -3 "$T/b2.log")"
grep -q 'INVALID_SPI sent to the peer' "$T/b2.log" && ok "b: $(grep -m1 'INVALID_SPI sent' "$T/b2.log")" ||
  bad "b sent no INVALID_SPI: $(tail -3 "$T/b2.log")"
grep -q 'does not know our ESP SPI' "$T/a.log" && grep -q 'replaces the one installed' "$T/a.log" &&
  ok "a took the hint: a new IKE SA replaced the old one" || bad "a: $(grep ike: "$T/a.log" | tail -4)"

# a notice of an SPI that is not a's: no new IKE SA (past the 3 s between hints)
sleep 3
starts=$(grep -c 'IKE_SA_INIT to' "$T/a.log")
ip netns exec $NB timeout 5 python3 -c '
import socket
msg = bytes(16) + bytes([41, 0x20, 37, 0x08, 0, 0, 0, 0, 0, 0, 0, 40]) + bytes([0, 0, 0, 12, 0, 0, 0, 11, 0, 0, 0, 1])
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(msg, ("10.231.0.1", 500))'
sleep 0.5 # (a window: a notice ignored logs nothing to wait for)
[ "$(grep -c 'IKE_SA_INIT to' "$T/a.log")" = "$starts" ] && ok "a: an INVALID_SPI of another SPI starts nothing" ||
  bad "a acted on a notice of SPI 1: $(grep ike: "$T/a.log" | tail -2)"

cat "$T/b2.log" >>"$T/b.log" # both_stop looks for sanitizer reports there
both_stop
finish
