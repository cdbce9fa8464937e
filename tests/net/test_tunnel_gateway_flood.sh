#!/usr/bin/env bash
# gostx tunnel as a gateway under an IKE_SA_INIT flood from many sources
# (issue 81's hostile test; docs/TUNNEL.md, "Remote users"): a [pool] of
# 255 user slots, and 300 source addresses each sending one IKE_SA_INIT (a
# real user's, captured, under new SPIs: tests/net/ike_flood.py) and never
# more. Checked:
# 1. the gateway takes at most half its slots' worth of half-open users
#    and asks the rest for a COOKIE (RFC 7296 2.6), one answer each;
# 2. while those half-open users still hold their slots, a real user
#    connects (through the COOKIE) and pings the gateway's inner host;
# 3. the gateway says so: COOKIEs in its log, one remote user up.
# (Before the gateway-wide gate, 0f1ad40, every flooding source took a slot
# of its own, 254 of 254, and the rest were dropped without a COOKIE: 1 and
# 3 failed there.)
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
NA=gxfg$$ NB=gxfb$$ VA=gxfv0$$ VB=gxfv1$$ NU=gxfu$$
G=${GOSTX:-build/gostx}
FLOOD=300
netns_test_begin python3 timeout
# the users' link: the gateway 10.233.0.1, the real user .0.2, the flood's
# sources from 10.233.1.1 on
netns_spoke $NU 10.233.0.1/22 10.233.0.2/22 || { bad "the users' namespace"; finish; }
srcs=()
for i in $(seq 0 $((FLOOD - 1))); do srcs+=(10.233.$((1 + i / 250)).$((1 + i % 250))); done
for a in "${srcs[@]}"; do echo "address add $a/22 dev $SPOKE_DEV"; done >"$T/addrs"
ip -n $NU -batch "$T/addrs" || { bad "the flood's addresses"; finish; }

pool_gateway gxfg0 10.200.0.0/24 &&
  pki u1 256A "/C=RU/O=gostx test/CN=u1.users.gostx.test" ca || { bad "test PKI"; finish; }
cat >"$T/u1.conf" <<EOF
local = 10.233.0.2:4500
peer = 10.233.0.1:4500
tun = gxfu1
threads = 1
keying = ikev2
ike_port = 4500
ike_initiate = yes
request_address = yes
inner_routes = 10.99.0.0/16
ike_auth = cert
cert = $T/u1.pem
key = $T/u1.key
ca = $T/ca.pem
remote_id = C=RU, O=gostx test, CN=gw
state = $T/u1.state
EOF

# the flood's request: user 1's first datagram, caught before the gateway runs
rm -f "$T/cap.ready"
ip netns exec $NA timeout 10 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.233.0.1", 4500))
open(sys.argv[2], "w").close()
open(sys.argv[1], "wb").write(s.recvfrom(65535)[0])' "$T/init.bin" "$T/cap.ready" &
cap=$!
for _ in $(seq $(bound 100)); do [ -e "$T/cap.ready" ] && break; sleep 0.05; done
ip netns exec $NU "$G" tunnel -c "$T/u1.conf" 2>/dev/null </dev/null >/dev/null &
upid=$!
wait $cap
tunnel_stop $upid
rm -f "$T"/u1.state*
[ -s "$T/init.bin" ] || { bad "no IKE_SA_INIT captured"; finish; }

tunnel_start gw $NA || { bad "gateway not up: $(tail -3 "$T/gw.log")"; finish; }
ip -n $NA addr add 10.99.0.1/32 dev gxfg0 && ip -n $NA link set gxfg0 up &&
  ip -n $NA route add 10.200.0.0/24 dev gxfg0 src 10.99.0.1

# 1. the flood
got=$(ip netns exec $NU timeout $(bound 120) python3 "$HERE/ike_flood.py" "$T/init.bin" 10.233.0.1 4500 "${srcs[@]}")
read -r _ answers _ cookies _ other <<<"$got"
slots=$(tunnel_status $NA gw remote_user_slots)
[ "${answers:-0}" -ge 1 ] && [ "$answers" -le $((slots / 2 + 1)) ] &&
  [ $((answers + cookies)) = $FLOOD ] && [ "$other" = 0 ] &&
  ok "$FLOOD sources: $answers taken half open (of $slots slots), $cookies asked for a COOKIE" ||
  bad "the flood: $got (slots ${slots:-?}; dropped at the IKE queue: $(tunnel_counters $NA gw rx_ike_dropped))"

# 2. a real user through it, the half-open ones still in their slots
tunnel_start u1 $NU || { bad "the real user not up during the flood: $(tail -3 "$T/u1.log")"; finish; }
a=$(tunnel_status $NU u1 ike_inner_address)
n=$(ip netns exec $NU ping -q -c 3 -i 0.2 -W $(bound 1) 10.99.0.1 | awk '/received/ {print $4}')
[ "${n:-0}" = 3 ] && ok "the real user ($a) up during the flood, pinging the gateway's host" ||
  bad "the real user's pings: ${n:-none} answered"

# 3. what the gateway says
c=$(grep -c 'COOKIE' "$T/gw.log")
status_fresh gw
u=$(tunnel_status $NA gw remote_users)
[ "$c" -ge 1 ] && [ "$u" = 1 ] && ok "the gateway: $c COOKIE lines, remote_users $u" ||
  bad "the gateway: $c COOKIE lines, remote_users ${u:-?}: $(grep -v COOKIE "$T/gw.log" | tail -3)"
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log; then
  bad "sanitizer reports (above)"
fi
finish
