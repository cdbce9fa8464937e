#!/usr/bin/env bash
# gostx tunnel as a gateway of a static site and an IKEv2 site
# (docs/TUNNEL.md, "An IKEv2 site"): the gateway namespace with [peer s1]
# (static keys, site 1 in $NB), [peer s2] (keying = ikev2, PSK; site 2
# in a namespace of its own over a veth pair of its own, running the
# point-to-point tunnel with keying = ikev2 to the gateway's data port) and
# [peer s3] (keying = ikev2, certificates of the test CA; site 3 beside
# site 2, its outer address at another port).
# Checked:
# 1. sites 1 and 2 ping the gateway's inner host and each other through
#    it (the gateway's routes: s1's static SA one way, s2's Child SA,
#    routed by its remote_ts 10.2.0.0/16, the other); site 3 pings the
#    gateway's host;
# 2. site 2 sending from an inner address outside its remote_ts: nothing
#    answered, each packet counted as rx_selector on s2's line, and
#    --status shows s2 as a peer line (keying ikev2, its SPIs, its ID);
# 3. site 2 stopped (its IKE SA deleted: out of the gateway's tables) and
#    started again while site 1 pings on: site 1 loses nothing, site 2
#    pings again, and its rekeys (rekey_seconds = 2) are counted.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
. "$HERE/gateway_common.sh"
# the gateway is $NA, site 1 $NB (the pair of netns.sh), site 2 $S2 over
# 10.231.21.0/30 (the gateway .1, the site .2)
NA=gxsg$$ NB=gxs1$$ VA=gxsv0$$ VB=gxsv1$$ S2=gxs2$$
G=${GOSTX:-build/gostx}
sites_end() {
  pids_stop
  ip netns del $S2 2>/dev/null
  netns_test_end
}
netns_test_begin ping timeout
trap sites_end EXIT
ip netns add $S2 || { bad "namespace $S2"; finish; }
ip netns exec $S2 sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n $S2 link set lo up
ip link add gxs2a$$ netns $NA type veth peer name gxs2b$$ netns $S2
ip -n $NA addr add 10.231.21.1/30 dev gxs2a$$ && ip -n $NA link set gxs2a$$ up
ip -n $S2 addr add 10.231.21.2/30 dev gxs2b$$ && ip -n $S2 link set gxs2b$$ up
ip netns exec $NA sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/s2.psk"
chmod 600 "$T/s2.psk"
pki ca 256A "/C=RU/O=gostx test/CN=test CA" self &&
  pki gw 256A "/C=RU/O=gostx test/CN=gw" ca &&
  pki s3 256A "/C=RU/O=gostx test/CN=s3.sites.gostx.test" ca || { bad "test PKI"; finish; }

gw_conf=$T/gw.conf
gw_site1 gxsg0 gxss1
cat >>"$gw_conf" <<EOF
[peer s2]
keying = ikev2
peer = 10.231.21.2:4500
remote_id = s2.sites.gostx.test
local_id = gw.sites.gostx.test
psk = $T/s2.psk
remote_ts = 10.2.0.0/16

[peer s3]
keying = ikev2
peer = 10.231.21.2:4501
remote_id = C=RU, O=gostx test, CN=s3.sites.gostx.test
cert = $T/gw.pem
key = $T/gw.key
ca = $T/ca.pem
remote_ts = 10.3.0.0/16
EOF
cat >"$T/s2.conf" <<EOF
local = 10.231.21.2:4500
peer = 10.231.21.1:4500
tun = gxss2
threads = 1
keying = ikev2
ike_port = 4500
ike_initiate = yes
ike_auth = psk
psk = $T/s2.psk
local_id = s2.sites.gostx.test
remote_id = gw.sites.gostx.test
rekey_seconds = 2
state = $T/s2.state
EOF
sed "s|^local = .*|local = 10.231.21.2:4501|; s|^ike_port = .*|ike_port = 4501|; s|^tun = .*|tun = gxss3|
  /^psk = \|^local_id = \|^rekey_seconds = /d; s|^state = .*|state = $T/s3.state|
  s|^remote_id = .*|remote_id = C=RU, O=gostx test, CN=gw|
  s|^ike_auth = .*|ike_auth = cert\ncert = $T/s3.pem\nkey = $T/s3.key\nca = $T/ca.pem|" "$T/s2.conf" >"$T/s3.conf"

gw_start 10.2.0.0/16 10.3.0.0/16 || finish
# s2_up: site 2 started, its inner host and routes on its device
s2_up() {
  tunnel_start s2 $S2 || { bad "site 2 did not start: $(tail -3 "$T/s2.log")"; return 1; }
  ip -n $S2 addr add 10.2.0.1/32 dev gxss2
  local net
  for net in 10.99.0.0/16 10.1.0.0/16; do ip -n $S2 route add $net dev gxss2 src 10.2.0.1; done
}
s2_up || finish
# site 3 beside site 2: what it sends from its host goes by a table of its own
tunnel_start s3 $S2 || { bad "site 3 did not start: $(tail -3 "$T/s3.log")"; finish; }
ip -n $S2 addr add 10.3.0.1/32 dev gxss3
ip -n $S2 rule add from 10.3.0.1 lookup 103
ip -n $S2 route add 10.99.0.0/16 dev gxss3 src 10.3.0.1 table 103

# 1. both sites to the gateway's host and to each other
for s in "1 $NB 10.1.0.1 10.2.0.1" "2 $S2 10.2.0.1 10.1.0.1"; do
  set -- $s
  [ "$(answered $2 $3 10.99.0.1)" = 3 ] && ok "site $1 pings the gateway's host" ||
    bad "site $1's pings to the gateway: $(tail -3 "$T/s$1.log")"
  [ "$(answered $2 $3 $4)" = 3 ] && ok "site $1 pings site $((3 - $1)) through the gateway" ||
    bad "site $1's pings to the other site"
done
[ "$(answered $S2 10.3.0.1 10.99.0.1)" = 3 ] && ok "site 3 (certificates) pings the gateway's host" ||
  bad "site 3's pings to the gateway: $(tail -3 "$T/s3.log")"

# 2. a source outside site 2's remote_ts: dropped and counted
ip -n $S2 addr add 10.1.0.9/32 dev gxss2
got=$(answered $S2 10.1.0.9 10.99.0.1)
[ "${got:-0}" = 0 ] && ok "spoofed source from site 2: no answer" || bad "spoofed source answered $got"
ip -n $S2 addr del 10.1.0.9/32 dev gxss2
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
l=$(grep '^peer s2 ' <<<"$st")
[ "$(peer_value "$st" s2 rx_selector)" = 3 ] && [ "$(peer_value "$st" s2 rx_packets)" -ge 6 ] &&
  [ "$(peer_value "$st" s2 tx_packets)" -ge 6 ] && [ "$(peer_value "$st" s2 rx_auth)" = 0 ] &&
  grep -q "^peer s2 10.231.21.2:4500 keying ikev2 spi_out 0x[0-9a-f]\{8\} spi_in 0x[0-9a-f]\{8\} .* id s2.sites.gostx.test$" <<<"$l" &&
  ! grep -q 'spi_out 0x00000000\|spi_in 0x00000000' <<<"$l" &&
  ok "status: $l" || bad "status of site 2: $l"
[ "$(peer_value "$st" s3 rx_packets)" -ge 3 ] &&
  grep -q "^peer s3 10.231.21.2:4501 keying ikev2 .* id C=RU, O=gostx test, CN=s3.sites.gostx.test$" <<<"$st" &&
  ok "status: $(grep '^peer s3 ' <<<"$st")" || bad "status of site 3: $(grep '^peer s3 ' <<<"$st")"
[ "$(status_value "$st" peers)" = 3 ] && [ "$(peer_value "$st" s1 rx_selector)" = 0 ] && [ "$(peer_value "$st" s1 rx_packets)" -ge 6 ] &&
  ok "site 1's line beside it: $(grep '^peer s1 ' <<<"$st")" || bad "status of site 1: $st"

# 3. site 2 stopped and started again while site 1 pings on
ip netns exec $NB ping -q -c 25 -i 0.2 -W $(bound 1) -I 10.1.0.1 10.99.0.1 >"$T/p1.out" 2>&1 &
P1=$!
PIDS+=($P1)
tunnel_stop $PID_s2
want='peer s2 at 10.231.21.2:4500: its IKE SA is gone: out of the tables'
for _ in $(seq $(bound 50)); do grep -qF "$want" "$T/gw.log" && break; sleep 0.1; done
grep -qF "$want" "$T/gw.log" && ok "site 2 stopped: out of the gateway's tables" ||
  bad "site 2's end: $(tail -4 "$T/gw.log")"
[ "$(answered $NB 10.1.0.1 10.2.0.1 2)" = 0 ] && ok "site 2 down: nothing to it" ||
  bad "site 2 down, yet answered"
s2_up && [ "$(answered $S2 10.2.0.1 10.1.0.1)" = 3 ] && ok "site 2 back, pings site 1 again" ||
  bad "site 2 after its restart: $(tail -3 "$T/s2.log")"
wait $P1
grep -q '25 packets transmitted, 25 received' "$T/p1.out" &&
  ok "site 1's pings through site 2's restart: $(grep transmitted "$T/p1.out")" ||
  bad "site 1: $(cat "$T/p1.out")"
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
n=$(peer_value "$st" s2 rekeys)
[ "${n:-0}" -ge 1 ] && ok "site 2: $n rekeys at the gateway" ||
  bad "site 2's rekeys: ${n:-none}: $(grep -i rekey "$T/gw.log" | tail -3)"
# 4. SIGHUP: [peer] changes of a gateway with IKEv2 sites take a restart
# (their IKE thread reads their sections); said in one line, all kept
kill -HUP $PID_gw
want='reload refused: a gateway with IKEv2 [peer] sections takes a restart'
for _ in $(seq $(bound 50)); do grep -qF "$want" "$T/gw.log" && break; sleep 0.1; done
grep -qF "$want" "$T/gw.log" && [ "$(answered $S2 10.2.0.1 10.1.0.1)" = 3 ] &&
  ok "SIGHUP with IKEv2 sites: refused, sites carry on" || bad "SIGHUP: $(tail -3 "$T/gw.log")"
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log; then
  bad "sanitizer reports (above)"
fi
finish
