#!/usr/bin/env bash
# gostx tunnel as a gateway of remote users (docs/TUNNEL.md, "Remote
# users"): one gateway namespace with a static site (site 1, [peer s1]) and
# a [pool] section, three remote users each in a namespace of its own over
# a veth pair of its own, a fourth beside user 1 (its address, another
# port: as two users behind one NAT) and a fifth beside user 3 with a PSK
# of its own and an address of its own (a psk line and an address line
# of the pool, its ID exactly), each running the point-to-point tunnel with
# keying = ikev2 and request_address = yes, certificates of the test CA
# with CNs matching the pool's pattern (CN=*.users.gostx.test). Checked:
# 1. each user gets an address of the pool (10.200.0.0/24) by IKEv2's
#    configuration payload, no two the same (user 5 its own, 10.201.0.9),
#    and pings the gateway's inner
#    host and site 1 (through the gateway: its routes pick the static
#    peer one way, the user's Child SA the other). The gateway's local is
#    0.0.0.0: NAT detection hashes the address each user's IKE came to
#    (IP_PKTINFO), so no NAT is seen by either side (until 2026-11-30 the
#    gateway hashed 0.0.0.0: "a NAT in front of us" for every user, and
#    its keepalives to them), and user 4 asks the gateway at its address on
#    user 2's link (10.231.12.1, routed through 10.231.11.1) and is
#    answered from there (its IKE takes datagrams from that address only:
#    before, the answers went from 10.231.11.1, and it never came up), its
#    ESP too (counted in its namespace: before, from 10.231.11.1);
# 2. a user with a valid certificate but a CN outside the pattern is
#    refused, and the gateway's log says why (its ID matches no remote_id
#    pattern); user 5's ID with a PSK not its own is refused;
# 3. user 1 sending from user 2's inner address: nothing answered, each
#    packet counted as rx_selector on user 1's line;
# 4. --status and --status --json list the users (ID, outer address,
#    inner address, SPIs, counters) beside the static peer; no user
#    counted a keepalive from the gateway (nat_keepalive_seconds = 1 in
#    the pool; steps 2 and 3 leave the gateway's data port quiet for
#    seconds), and each says ike_nat none;
# 4b. a datagram naming user 1's IKE SPIs (public on the wire) from
#    another port of its address, then user 6 starting from that port: user
#    6 gets a slot and an address of its own and user 1 keeps its IKE SA
#    and pings on (the gateway finds an IKE SA by its SPIs, and moves a
#    user only on a message its manager authenticated; until 2026-11-30 the
#    forgery moved user 1 to that port, and user 6's IKE_SA_INIT went into
#    user 1's manager, whose IKE SA it replaced). User 6 is behind a NAT
#    (a masquerade of its port in user 1's namespace) that then drops its
#    mappings: user 6's next IKE request (its liveness check) comes from a
#    new port, the gateway follows it there, and its pings go through again;
#    the gateway's NAT detection saw a NAT in front of user 6, and none in
#    front of itself;
# 5. user 2 stopped (its IKE SA deleted: out of the gateway's tables) and
#    started again, while users 1 and 3 ping on: they lose nothing, and
#    user 2 gets its address back and pings again;
#    Then user 2 revoked (a CRL of the pool's crl line) and SIGHUP: the
#    CRLs read again, its IKE SA deleted, its next one refused;
# 6. user 3 rekeys every 3 s (rekey_seconds): the gateway counts its rekeys,
#    and its pings above went through them whole;
# 6b. an IKEv2 site added by SIGHUP (the gateway started with no IKEv2
#    site): it connects and pings the gateway's host.
# 7. the gateway stopped: each user told (its IKE SA deleted by the peer).
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
. "$HERE/gateway_common.sh"
# the gateway is $NA, site 1 $NB (the pair of netns.sh); user i in $Ui over
# 10.231.1i.0/30 (the gateway .1, the user .2)
NA=gxrg$$ NB=gxr1$$ VA=gxrv0$$ VB=gxrv1$$
U1=gxru1$$ U2=gxru2$$ U3=gxru3$$
G=${GOSTX:-build/gostx}
netns_test_begin ping python3 timeout nft
# user 4 shares user 1's namespace and address, at another port (as users
# behind one NAT): the gateway tells them apart by port
# (user 5, beside user 3, authenticates by a PSK of its own)
user_ns() { case $1 in 1 | 4 | 6) echo $U1 ;; 2) echo $U2 ;; 3 | 5) echo $U3 ;; esac; }
outer() {
  case $1 in 4) echo 10.231.11.2:4501 ;; 5) echo 10.231.13.2:4502 ;; 6) echo 10.231.11.2:4503 ;;
  *) echo 10.231.1$1.2:4500 ;; esac
}
for i in 1 2 3; do
  netns_spoke $(user_ns $i) 10.231.1$i.1/30 10.231.1$i.2/30 || { bad "user $i's namespace"; finish; }
done
# the gateway forwards between its users and site 1 (in and out of its TUN)
ip netns exec $NA sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0
ip netns exec $U1 sysctl -qw net.ipv4.conf.all.rp_filter=0

# the test PKI: a CA, the gateway, four users of the pattern, one outside it;
# user 5's PSK
pki ca 512C "/C=RU/O=gostx test/CN=test CA" self &&
  pki gw 512A "/C=RU/O=gostx test/CN=gw" ca &&
  pki u1 256A "/C=RU/O=gostx test/CN=u1.users.gostx.test" ca &&
  pki u2 256A "/C=RU/O=gostx test/CN=u2.users.gostx.test" ca &&
  pki u3 256A "/C=RU/O=gostx test/CN=u3.users.gostx.test" ca &&
  pki u4 256A "/C=RU/O=gostx test/CN=u4.users.gostx.test" ca &&
  pki u6 256A "/C=RU/O=gostx test/CN=u6.users.gostx.test" ca &&
  pki ux 256A "/C=RU/O=gostx test/CN=ux.others.gostx.test" ca || { bad "test PKI"; finish; }
: >"$T/index"
crl_of "$T/index" "$T/ca.crl" || bad "a CRL revoking nothing"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/kiosk.psk"
chmod 600 "$T/kiosk.psk"

gw_conf=$T/gw.conf
gw_site1 gxrg0 gxrs1
cat >>"$gw_conf" <<EOF
[pool users]
pool = 10.200.0.0/24
dns = 10.99.0.53
remote_id = CN=*.users.gostx.test
psk = kiosk@users.gostx.test $T/kiosk.psk
address = kiosk@users.gostx.test 10.201.0.9
cert = $T/gw.pem
key = $T/gw.key
ca = $T/ca.pem
crl = $T/ca.crl
nat_keepalive_seconds = 1
EOF
# user_conf NAME I: a remote user in $Ui to the gateway's 10.231.1I.1
user_conf() {
  cat >"$T/$1.conf" <<EOF
local = 10.231.1$2.2:4500
peer = 10.231.1$2.1:4500
tun = gxrt$2
threads = 1
keying = ikev2
ike_port = 4500
ike_initiate = yes
request_address = yes
ike_auth = cert
cert = $T/$1.pem
key = $T/$1.key
ca = $T/ca.pem
remote_id = C=RU, O=gostx test, CN=gw
state = $T/$1.state
EOF
}

# the gateway and site 1
gw_start 10.200.0.0/24 10.201.0.0/24 || finish

# user_up I: user i started (its "up" line within the bound), its inner
# address (from its --status: ike_inner_address) found on its TUN device, the
# routes to the gateway's host and site 1 (in a table of its own, for what
# it sends from its address: users 1 and 4 share a namespace; in the main
# table too for the first of the namespace); ADDR_i set. 1 when not up.
user_up() {
  local i=$1 ns
  ns=$(user_ns $i)
  tunnel_start u$i $ns || { bad "user $i not up: $(tail -3 "$T/u$i.log")"; return 1; }
  status_fresh u$i
  eval "ADDR_$i=$(tunnel_status $ns u$i ike_inner_address)"
  local a
  eval "a=\$ADDR_$i"
  [ -n "$a" ] || { bad "user $i: no inner address in its status"; return 1; }
  # the tunnel put it on its device (a /32) before its "up" line
  ip -n $ns -4 addr show dev gxrt$i | grep -q "inet $a/32 " ||
    { bad "user $i: $a not on gxrt$i: $(ip -n $ns -4 addr show dev gxrt$i)"; return 1; }
  ip -n $ns rule add from $a lookup 10$i
  local net
  for net in 10.99.0.0/16 10.1.0.0/16; do
    ip -n $ns route add $net dev gxrt$i src $a table 10$i
    ip -n $ns route add $net dev gxrt$i src $a 2>/dev/null || : # user 4's: user 1's there
  done
}
# user_line STATUS ADDR: the status line of the user with inner address ADDR
user_line() { grep "^peer users\.[0-9]* .* inner $2 " <<<"$1"; }

# 1. five users, each its own address, each to the gateway's host and site 1
for i in 1 2 3; do user_conf u$i $i; done
user_conf u4 1
# user 4 asks the gateway at another of its addresses (a multi-homed
# gateway): answered from there, or its IKE never takes the answers
sed -i "s|^local = .*|local = $(outer 4)|; s|^ike_port = .*|ike_port = 4501|; s|^tun = .*|tun = gxrt4|
  s|^peer = .*|peer = 10.231.12.1:4500|" "$T/u4.conf"
ip -n $U1 route add 10.231.12.1/32 via 10.231.11.1
user_conf u5 3
sed -i "s|^local = .*|local = $(outer 5)|; s|^ike_port = .*|ike_port = 4502|; s|^tun = .*|tun = gxrt5|
  /^cert = \|^key = \|^ca = /d; s|^ike_auth = .*|ike_auth = psk\npsk = $T/kiosk.psk\nlocal_id = kiosk@users.gostx.test|" \
  "$T/u5.conf"
echo "rekey_seconds = 3" >>"$T/u3.conf" # its Child SA (and IKE SA) rekeyed all along
for i in 1 2 3 4 5; do user_up $i || finish; done
addrs="$ADDR_1 $ADDR_2 $ADDR_3 $ADDR_4 $ADDR_5"
distinct=$(tr ' ' '\n' <<<"$ADDR_1 $ADDR_2 $ADDR_3 $ADDR_4" | sort -u | grep -c '^10\.200\.0\.')
[ "$distinct" = 4 ] && [ "$ADDR_5" = 10.201.0.9 ] &&
  ok "five users: four pool addresses and user 5's own (its address line): $addrs" ||
  bad "addresses: $addrs"
for i in 1 2 3 4 5; do
  ns=$(user_ns $i)
  eval "a=\$ADDR_$i"
  [ "$(answered $ns $a 10.99.0.1)" = 3 ] && ok "user $i ($a) pings the gateway's host" ||
    bad "user $i's pings to the gateway: $(tail -3 "$T/u$i.log")"
  [ "$(answered $ns $a 10.1.0.1)" = 3 ] && ok "user $i ($a) pings site 1 through the gateway" ||
    bad "user $i's pings to site 1"
done
# user 4's ESP leaves the gateway from the address its IKE went to
# (10.231.12.1), as its IKE answers do: a NAT in front of a user passes
# nothing from another (until 2026-11-30 the ESP left from the route's
# address, 10.231.11.1, and user 4 took it only because a point-to-point
# end takes its SA's ESP from anywhere)
ip netns exec $U1 nft -f - <<EOF || bad "user 4's counters"
table ip gxresp {
  counter asked {}
  counter other {}
  chain in {
    type filter hook input priority 0;
    udp dport 4501 ip saddr 10.231.12.1 udp sport 4500 counter name asked
    udp dport 4501 ip saddr != 10.231.12.1 counter name other
  }
}
EOF
n=$(answered $U1 $ADDR_4 10.99.0.1)
# and 1 MiB over TCP to it: runs of full datagrams, sent as GSO messages
head -c 1048576 /dev/urandom >"$T/file"
tunnel_tcp_through $NA $U1 $ADDR_4 && x=whole || x="not whole"
# (bytes: the gateway's GSO messages cross the veth as one skb each)
cnt() { ip netns exec $U1 nft list counter ip gxresp $1 | awk '/bytes/ {print $4}'; }
[ "$n" = 3 ] && [ "$x" = whole ] && [ "$(cnt asked)" -ge 1048576 ] && [ "$(cnt other)" = 0 ] &&
  ok "user 4's ESP from 10.231.12.1, where its IKE went: $(cnt asked) bytes (3 pings, 1 MiB over TCP), none from elsewhere" ||
  bad "user 4's ESP: $n pings answered, 1 MiB $x, $(cnt asked) bytes from 10.231.12.1, $(cnt other) from another address"
ip netns exec $U1 nft delete table ip gxresp
# no NAT here: each user's detection says so, the gateway's saw none in
# front of itself
nonat=$(for i in 1 2 3 4 5; do grep -q 'NAT detection: no NAT$' "$T/u$i.log" && echo $i; done)
[ "$(echo $nonat)" = "1 2 3 4 5" ] && ! grep -q 'NAT detection: a NAT in front of us' "$T/gw.log" &&
  ok "local 0.0.0.0: users $(echo $nonat) see no NAT, nor does the gateway" ||
  bad "NAT detection without a NAT: no NAT at users '$(echo $nonat)'; $(grep -h 'NAT detection' "$T"/u[1-5].log "$T/gw.log" | sed 's/.*ike: //' | sort | uniq -c)"
grep -q "remote user C=RU, O=gostx test, CN=u2.users.gostx.test at 10.231.12.2:4500: inner address $ADDR_2" "$T/gw.log" &&
  ok "the gateway's log names user 2, its outer and its inner address" ||
  bad "gateway's log: $(grep 'remote user' "$T/gw.log")"

# 2. a certificate of the CA whose CN is outside the pattern: refused, said;
# user 5's ID with a wrong PSK: refused
user_conf ux 3
sed -i "s|^local = .*|local = 10.231.13.2:4600|; s|^ike_port = .*|ike_port = 4600|; s|^tun = .*|tun = gxrtx|" "$T/ux.conf"
ip netns exec $U3 "$G" tunnel -c "$T/ux.conf" 2>"$T/ux.log" </dev/null >/dev/null &
PID_ux=$!
PIDS+=($!)
want="IKE_AUTH from 10.231.13.2:4600 refused: its ID C=RU, O=gostx test, CN=ux.others.gostx.test matches no remote_id pattern"
for _ in $(seq $(bound 100)); do grep -qF "$want" "$T/gw.log" && break; sleep 0.05; done
grep -qF "$want" "$T/gw.log" && ok "outside the pattern: $want" ||
  bad "ux not refused as it should be: $(grep -v ' up, ' "$T/gw.log" | tail -4)"
grep -q ' up, ' "$T/ux.log" && bad "ux came up" || ok "ux: no tunnel up"
tunnel_stop $PID_ux
# and user 5's ID with another PSK: refused
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/wrong.psk"
chmod 600 "$T/wrong.psk"
sed "s|^local = .*|local = 10.231.13.2:4601|; s|^ike_port = .*|ike_port = 4601|; s|^tun = .*|tun = gxrty|
  s|^psk = .*|psk = $T/wrong.psk|; s|^state = .*|state = $T/uy.state|" "$T/u5.conf" >"$T/uy.conf"
ip netns exec $U3 "$G" tunnel -c "$T/uy.conf" 2>"$T/uy.log" </dev/null >/dev/null &
PID_uy=$!
PIDS+=($!)
want="IKE SA with kiosk@users.gostx.test failed (responder): AUTHENTICATION_FAILED"
for _ in $(seq $(bound 100)); do grep -qF "$want" "$T/gw.log" && break; sleep 0.05; done
grep -qF "$want" "$T/gw.log" && ok "user 5's ID, another PSK: $(grep -F "$want" "$T/gw.log" | head -1 | sed 's/.*ike: //')" ||
  bad "uy not refused as it should be: $(grep -v ' up, ' "$T/gw.log" | tail -4)"
grep -q ' up, ' "$T/uy.log" && bad "uy came up" || ok "uy: no tunnel up"
tunnel_stop $PID_uy

# 3. user 1 sends from user 2's address: sealed under its own SA, dropped
ip -n $U1 addr add $ADDR_2/32 dev gxrt1
got=$(answered $U1 $ADDR_2 10.99.0.1)
[ "${got:-0}" = 0 ] && ok "spoofed source: no answer" || bad "spoofed source answered $got"
ip -n $U1 addr del $ADDR_2/32 dev gxrt1

# 4. --status and --status --json; the users' too: no keepalive from the
# gateway (none since step 1's pings: nothing went from its data port
# through steps 2 and 3, past two nat_keepalive_seconds)
status_fresh gw u1 u2 u3 u4 u5
kas=$(for i in 1 2 3 4 5; do
  echo "$(tunnel_status $(user_ns $i) u$i rx_keepalive)/$(tunnel_status $(user_ns $i) u$i ike_nat)"
done)
[ "$(echo $kas)" = "0/none 0/none 0/none 0/none 0/none" ] &&
  ok "users' rx_keepalive/ike_nat: $(echo $kas)" || bad "users' rx_keepalive/ike_nat: $(echo $kas)"
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
[ "$(status_value "$st" remote_users)" = 5 ] && [ "$(status_value "$st" remote_user_slots)" = 255 ] &&
  ok "status: remote_users 5 of 255 slots" ||
  bad "status: remote_users $(status_value "$st" remote_users) of $(status_value "$st" remote_user_slots)"
l1=$(user_line "$st" $ADDR_1)
name1=$(awk '{print $2}' <<<"$l1")
[ "$(peer_value "$st" "$name1" rx_selector)" = 3 ] && ok "user 1: rx_selector 3" ||
  bad "user 1's rx_selector: $l1"
for i in 1 2 3 4 5; do
  eval "a=\$ADDR_$i"
  l=$(user_line "$st" $a)
  n=$(awk '{print $2}' <<<"$l")
  [ "$(peer_value "$st" "$n" rx_packets)" -ge 6 ] && [ "$(peer_value "$st" "$n" tx_packets)" -ge 6 ] &&
    [ "$(peer_value "$st" "$n" last_seen)" -gt 0 ] && [ "$(peer_value "$st" "$n" rx_auth)" = 0 ] &&
    grep -q " $(outer $i) keying ikev2 inner $a spi_out 0x" <<<"$l" &&
    { grep -q " id C=RU, O=gostx test, CN=u$i.users.gostx.test$" <<<"$l" ||
      { [ $i = 5 ] && grep -q " id kiosk@users.gostx.test$" <<<"$l"; }; } &&
    ok "status: $l" || bad "status of user $i: $l"
done
ip netns exec $NA "$G" tunnel --status --json -c "$gw_conf" >"$T/status.json"
json_ok() { ok "--status --json: site 1 and five users"; }
json_bad() { bad "--status --json: $(cat "$T/status.json")"; }
python3 - "$T/status.json" "$ADDR_1" "$ADDR_2" <<'EOF' && json_ok || json_bad
import json, sys
s = json.load(open(sys.argv[1]))
peers = {p["name"]: p for p in s["peers"]}
users = {p["inner"]: p for p in s["peers"] if p.get("keying") == "ikev2"}
assert "s1" in peers and len(users) == 5, peers
u1 = users[sys.argv[2]]
assert u1["id"] == "C=RU, O=gostx test, CN=u1.users.gostx.test" and u1["rx_selector"] == 3, u1
assert u1["address"] == "10.231.11.2:4500" and u1["spi_in"].startswith("0x"), u1
assert users[sys.argv[3]]["rx_selector"] == 0
EOF

# 4b. user 1's IKE SPIs from another port (a forgery: its SK payload is
# junk), then user 6 from that port. User 6's port goes out through a NAT
# (masquerade, random ports): the forgery's datagram and user 6's share
# one conntrack entry (the same addresses and ports, within its 30 s), so
# user 6 comes from the port the forgery came from.
ip netns exec $U1 nft -f - <<EOF || { bad "user 6's NAT"; finish; }
table ip gxrnat {
  chain post {
    type nat hook postrouting priority srcnat; policy accept;
    udp sport 4503 masquerade random
  }
}
EOF
spi_i=$(tunnel_status $U1 u1 ike_spi_i) spi_r=$(tunnel_status $U1 u1 ike_spi_r)
ip netns exec $U1 python3 - "$spi_i" "$spi_r" <<'EOF' || bad "the forged datagram not sent"
import socket, sys
# the non-ESP marker, then an INFORMATIONAL request of user 1's IKE SA
# (SK first, message ID 99) whose SK payload no key made
body = bytes([0, 0, 0, 36]) + bytes(range(32))
hdr = bytes.fromhex(sys.argv[1] + sys.argv[2]) + bytes([46, 0x20, 37, 0x08]) + \
    (99).to_bytes(4, "big") + (28 + len(body)).to_bytes(4, "big")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.231.11.2", 4503))
s.sendto(bytes(4) + hdr + body, ("10.231.11.1", 4500))
EOF
user_conf u6 1
sed -i "s|^local = .*|local = $(outer 6)|; s|^ike_port = .*|ike_port = 4503|; s|^tun = .*|tun = gxrt6|" "$T/u6.conf"
printf 'dpd_seconds = 1\nnat_keepalive_seconds = 1\n' >>"$T/u6.conf"
user_up 6 && [ "$ADDR_6" != "$ADDR_1" ] && ok "user 6 up from user 1's forged port with an address of its own ($ADDR_6)" ||
  bad "user 6 from the forged port: ${ADDR_6:-no address}"
# a real NAT, in front of user 6 only: seen by both sides as such
grep -q 'NAT detection: a NAT in front of the peer$' "$T/gw.log" &&
  grep -q 'NAT detection: a NAT in front of us$' "$T/u6.log" &&
  ! grep -q 'NAT detection: a NAT in front of us' "$T/gw.log" &&
  ok "user 6's NAT: the gateway sees a NAT in front of the peer, user 6 one in front of itself" ||
  bad "user 6's NAT: $(grep -h 'NAT detection' "$T/gw.log" "$T/u6.log" | sed 's/.*ike: //' | sort | uniq -c)"
[ "$(answered $U1 $ADDR_1 10.99.0.1)" = 3 ] && ok "user 1 pings on after the forgery and user 6" ||
  bad "user 1's pings after the forgery: $(tail -3 "$T/gw.log")"
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
l1=$(user_line "$st" $ADDR_1)
[ "$(status_value "$st" remote_users)" = 6 ] && grep -q " $(outer 1) keying ikev2 .* id C=RU, O=gostx test, CN=u1.users.gostx.test$" <<<"$l1" &&
  ! grep -q "replaces the one installed" "$T/gw.log" &&
  ok "six users; user 1 where it was, its IKE SA never replaced: $l1" ||
  bad "after the forgery: $(status_value "$st" remote_users) users, user 1: $l1; $(grep -c 'replaces the one installed' "$T/gw.log") replaced"
# user 6's NAT drops its mappings (masquerade forgets them with the
# address they map to): its next IKE request comes from a new port
dev1=$(ip -n $U1 -o -4 addr show to 10.231.11.2/32 | awk '{print $2}')
ip -n $U1 addr del 10.231.11.2/30 dev $dev1 && ip -n $U1 addr add 10.231.11.2/30 dev $dev1
ip -n $U1 route replace 10.231.12.1/32 via 10.231.11.1 # (user 4's, gone with the address)
for _ in $(seq $(bound 100)); do grep -q "the peer's NAT mapping moved" "$T/gw.log" && break; sleep 0.1; done
if grep -q "the peer's NAT mapping moved" "$T/gw.log"; then
  ok "user 6's NAT mapping changed: $(grep -m1 "the peer's NAT mapping moved" "$T/gw.log" | sed 's/.*ike: //')"
  # the manager's line names no peer: the gateway leads it with user 6's
  # name in --status (until 2026-11-30 it did not: which of 500 users?)
  n6=$(user_line "$st" "$ADDR_6" | awk '{print $2}')
  grep -q "ike: \[$n6\] the peer's NAT mapping moved" "$T/gw.log" &&
    ok "the gateway's line names user 6 as --status does: [$n6]" ||
    bad "the NAT line does not name user 6 (${n6:-?}): $(grep -m1 "the peer's NAT mapping moved" "$T/gw.log")"
  [ "$(answered $U1 $ADDR_6 10.99.0.1)" = 3 ] && ok "user 6 pings again through its new mapping" ||
    bad "user 6's pings after its NAT moved: $(tail -3 "$T/u6.log")"
else
  bad "the gateway did not follow user 6's new mapping: $(grep -v ' rekeyed\| up, ' "$T/gw.log" | tail -12) USER6: $(tail -12 "$T/u6.log")"
fi
tunnel_stop $PID_u6
ip -n $U1 rule del from $ADDR_6 lookup 106 2>/dev/null
ip netns exec $U1 nft delete table ip gxrnat

# 5. user 2 stopped and started again while users 1 and 3 ping on
ip netns exec $U1 ping -q -c 25 -i 0.2 -W $(bound 1) -I $ADDR_1 10.1.0.1 >"$T/p1.out" 2>&1 &
P1=$!
ip netns exec $U3 ping -q -c 25 -i 0.2 -W $(bound 1) -I $ADDR_3 10.99.0.1 >"$T/p3.out" 2>&1 &
P3=$!
PIDS+=($P1 $P3)
old2=$ADDR_2
tunnel_stop $PID_u2
for _ in $(seq $(bound 50)); do grep -q 'CN=u2.users.gostx.test at .*: its IKE SA is gone' "$T/gw.log" && break; sleep 0.1; done
grep -q 'CN=u2.users.gostx.test at 10.231.12.2:4500: its IKE SA is gone: out of the tables' "$T/gw.log" &&
  ok "user 2 stopped: out of the gateway's tables" || bad "user 2's end: $(tail -4 "$T/gw.log")"
ip -n $U2 addr flush dev gxrt2 2>/dev/null
user_up 2 && [ "$ADDR_2" = "$old2" ] && ok "user 2 back with its address $ADDR_2" ||
  bad "user 2 back with ${ADDR_2:-none} (was $old2)"
[ "$(answered $U2 $ADDR_2 10.1.0.1)" = 3 ] && ok "user 2 pings site 1 again" || bad "user 2's pings after its restart"
wait $P1 $P3
for f in p1 p3; do
  grep -q '25 packets transmitted, 25 received' "$T/$f.out" &&
    ok "$f: the other users' pings through user 2's restart: $(grep transmitted "$T/$f.out")" ||
    bad "$f: $(cat "$T/$f.out")"
done

# 5b. user 2 revoked: SIGHUP reads the pool's CRLs again, its IKE SA is
# deleted at once and its next refused
crl_of "$T/index" "$T/ca.crl" "$T/u2.pem" || bad "a CRL revoking user 2"
kill -HUP $PID_gw
want="certificate revoked: depth 0, serial 0x$(serial_of "$T/index" u2.users.gostx.test), reason keyCompromise"
logged gw "SIGHUP: 1 CRLs read again" && logged gw "revocation: $want (new CRLs)" &&
  ok "SIGHUP, user 2 revoked: its IKE SA deleted" || bad "SIGHUP, user 2 revoked: $(tail -4 "$T/gw.log")"
logged gw "AUTHENTICATION_FAILED: revocation: $want" && ok "user 2's next IKE SA refused" ||
  bad "user 2 revoked, its next IKE SA: $(tail -4 "$T/gw.log")"

# user 3 rekeyed all along (every 3 s): the new SAs took over at the gateway
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
n=$(peer_value "$st" "$(awk '{print $2}' <<<"$(user_line "$st" $ADDR_3)")" rekeys)
[ "${n:-0}" -ge 1 ] && grep -q "Child SA rekeyed (the peer's)" "$T/gw.log" &&
  ok "user 3: $n rekeys at the gateway, its pings whole through them" ||
  bad "user 3's rekeys: ${n:-none}: $(grep -i rekey "$T/gw.log" | tail -3)"

# 6b. an IKEv2 site added by SIGHUP to this gateway, which started with its
# [pool] and no IKEv2 site (the site takes one of the spare site slots):
# it connects from user 3's namespace (port 4509, by PSK) and pings the
# gateway's host, the users on; no SIGHUP of this test refused (before
# 2026-11-30 every one was, 5b's too: the pool's ID, filled in from its
# certificate at the start, compared as a change of the [pool])
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/s9.psk"
chmod 600 "$T/s9.psk"
awk -v psk="$T/s9.psk" '/^\[pool / && !done {
    printf "[peer s9]\nkeying = ikev2\npeer = 10.231.13.2:4509\nremote_id = s9.sites.gostx.test\n"
    printf "local_id = gw.sites.gostx.test\npsk = %s\nremote_ts = 10.9.0.0/16\n\n", psk; done = 1 } 1' \
  "$gw_conf" >"$T/gw.conf.new" && mv "$T/gw.conf.new" "$gw_conf"
printf '%s\n' "local = 10.231.13.2:4509" "peer = 10.231.13.1:4500" "tun = gxrs9" "threads = 1" \
  "keying = ikev2" "ike_port = 4509" "ike_initiate = yes" "ike_auth = psk" "psk = $T/s9.psk" \
  "local_id = s9.sites.gostx.test" "remote_id = gw.sites.gostx.test" "state = $T/s9.state" >"$T/s9.conf"
ip -n $NA route add 10.9.0.0/16 dev $GW_DEV src 10.99.0.1
kill -HUP $PID_gw
logged gw 'reload: 2 peers (0 added, 0 with new keys, 0 moved, 0 removed; IKEv2: 1 added, 0 changed, 0 removed)' &&
  tunnel_start s9 $U3 && ip -n $U3 addr add 10.9.0.1/32 dev gxrs9 && ip -n $U3 rule add from 10.9.0.1 lookup 109 &&
  ip -n $U3 route add 10.99.0.0/16 dev gxrs9 src 10.9.0.1 table 109 &&
  [ "$(answered $U3 10.9.0.1 10.99.0.1)" = 3 ] && [ "$(answered $U3 $ADDR_3 10.99.0.1)" = 3 ] &&
  ! grep -q 'reload refused' "$T/gw.log" &&
  ok "SIGHUP, an IKEv2 site added to a gateway of a [pool]: it connects and pings, user 3 on" ||
  bad "a site added by SIGHUP: $(grep -i 'reload\|s9' "$T/gw.log" | tail -4); $(tail -2 "$T/s9.log" 2>/dev/null)"

# 7. the gateway stopped: it deletes each user's IKE SA on its way out
tunnel_stop $PID_gw
for i in 1 3 4 5; do
  l=$(grep 'IKE SA with C=RU, O=gostx test, CN=gw deleted' "$T/u$i.log" | tail -1)
  [ -n "$l" ] && ok "user $i told at the gateway's stop: ${l#*ike: }" ||
    bad "user $i not told: $(tail -2 "$T/u$i.log")"
done
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log; then
  bad "sanitizer reports (above)"
fi
finish
