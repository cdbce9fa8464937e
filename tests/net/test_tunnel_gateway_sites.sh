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
#    pings again, and its rekeys (rekey_seconds = 2) are counted;
# 4. SIGHUP: a new site's remote_ts overlapping site 3's refused, all kept;
#    site 4 added (it connects and pings) and site 3 removed (its IKE SA
#    deleted, nothing through, gone from --status) while site 2 pings on
#    losing nothing; site 2 changed (a remote_ts more): it connects again
#    and sends from it;
# 5. s3 added back with a crl line, then revoked in it and SIGHUP: its IKE
#    SA deleted (the site's own CRLs read again), its next refused; 16
#    sites more than the free slots: refused whole;
# 6. [peer s5] with ike_initiate = yes, site 5 only answering: added by
#    SIGHUP, started by the gateway; killed and restarted, stopped and
#    restarted: up again each time by the gateway's doing. (s3's section
#    says ike_initiate = yes too, as site 3 does: both start it, one SA.)
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

# psk_site NAME PORT TS: a PSK into $T/NAME.psk, and out an IKEv2 [peer
# NAME] section by it, from 10.231.21.2:PORT, its remote_ts TS
psk_site() {
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/$1.psk"
  chmod 600 "$T/$1.psk"
  printf '%s\n' "[peer $1]" "keying = ikev2" "peer = 10.231.21.2:$2" \
    "remote_id = $1.sites.gostx.test" "local_id = gw.sites.gostx.test" "psk = $T/$1.psk" \
    "remote_ts = $3"
}
pki ca 256A "/C=RU/O=gostx test/CN=test CA" self &&
  pki gw 256A "/C=RU/O=gostx test/CN=gw" ca &&
  pki s3 256A "/C=RU/O=gostx test/CN=s3.sites.gostx.test" ca || { bad "test PKI"; finish; }

gw_conf=$T/gw.conf
gw_site1 gxsg0 gxss1
psk_site s2 4500 10.2.0.0/16 >>"$gw_conf"
cat >>"$gw_conf" <<EOF

[peer s3]
keying = ikev2
peer = 10.231.21.2:4501
remote_id = C=RU, O=gostx test, CN=s3.sites.gostx.test
cert = $T/gw.pem
key = $T/gw.key
ca = $T/ca.pem
remote_ts = 10.3.0.0/16
ike_initiate = yes
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
# s3's section says ike_initiate = yes, as site 3's own config does: the
# gateway started it at its start (before site 3 ran), and the two
# settled on one IKE SA
grep -qF '[peer s3]: IKEv2 started here to 10.231.21.2:4501 on the data port' "$T/gw.log" &&
  grep -qF 'IKE_SA_INIT to 10.231.21.2:4501 (initiator)' "$T/gw.log" &&
  [ "$(tunnel_status $S2 s3 ike_sa)" = established ] &&
  ok "site 3, started by both: settled ($(grep -h 'both sides initiate' "$T/gw.log" "$T/s3.log" | head -1 | sed 's/.*ike: //'))" ||
  bad "site 3 started by the gateway too: $(grep 'peer s3\|4501' "$T/gw.log" | head -5)"

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
# 4. SIGHUP: the IKEv2 sites added, removed and changed by name, the
# others untouched. hup_gw: the gateway's next answer to SIGHUP in its log
hups=0
hup_gw() {
  hups=$((hups + 1))
  kill -HUP $PID_gw
  for _ in $(seq $(bound 100)); do
    [ "$(grep -c 'reload: \|reload refused' "$T/gw.log")" -ge $hups ] && return 0
    sleep 0.05
  done
  return 1
}
sed "s|^local = .*|local = 10.231.21.2:4502|; s|^ike_port = .*|ike_port = 4502|; s|gxss2|gxss4|
  s|s2\.|s4.|g; /^rekey_seconds/d" "$T/s2.conf" >"$T/s4.conf"
printf '\n' >>"$gw_conf"
psk_site s4 4502 10.3.7.0/24 >>"$gw_conf"
# 4a. s4's remote_ts inside s3's: refused whole, all kept
hup_gw && grep -q "remote_ts 10.3.7.0/24 overlaps peer s3's" "$T/gw.log" &&
  grep -qF "reload refused: $gw_conf (above): the running peers kept" "$T/gw.log" &&
  [ "$(answered $S2 10.3.0.1 10.99.0.1)" = 3 ] && [ "$(answered $S2 10.2.0.1 10.1.0.1)" = 3 ] &&
  ok "SIGHUP, a remote_ts overlapping: refused, the sites carry on" ||
  bad "SIGHUP refused: $(tail -3 "$T/gw.log")"
# 4b. s4 added (10.4.0.0/16) and s3 removed while site 2 pings on
ip -n $NA route add 10.4.0.0/16 dev $GW_DEV src 10.99.0.1
sed -i "s|^remote_ts = 10.3.7.0/24|remote_ts = 10.4.0.0/16|" "$gw_conf"
awk '/^\[peer s3\]/ {skip = 1; next} /^\[/ {skip = 0} !skip' "$gw_conf" >"$T/gw.conf.new" &&
  mv "$T/gw.conf.new" "$gw_conf"
ip netns exec $S2 ping -q -c 20 -i 0.2 -W $(bound 1) -I 10.2.0.1 10.99.0.1 >"$T/p2.out" 2>&1 &
P2=$!
PIDS+=($P2)
hup_gw && grep -q 'reload: 3 peers (0 added, 0 with new keys, 0 moved, 0 removed; IKEv2: 1 added, 0 changed, 1 removed)' "$T/gw.log" &&
  grep -q '\[peer s3\]: removed by SIGHUP: its IKE SA deleted' "$T/gw.log" &&
  ok "SIGHUP: $(grep 'reload: ' "$T/gw.log" | tail -1)" || bad "SIGHUP adding s4: $(tail -4 "$T/gw.log")"
tunnel_start s4 $S2 || bad "site 4 did not start: $(tail -3 "$T/s4.log")"
ip -n $S2 addr add 10.4.0.1/32 dev gxss4
ip -n $S2 rule add from 10.4.0.1 lookup 104
ip -n $S2 route add 10.99.0.0/16 dev gxss4 src 10.4.0.1 table 104
[ "$(answered $S2 10.4.0.1 10.99.0.1)" = 3 ] && ok "site 4, added by SIGHUP, pings the gateway's host" ||
  bad "site 4's pings: $(tail -3 "$T/s4.log")"
[ "$(answered $S2 10.3.0.1 10.99.0.1 2)" = 0 ] && grep -q 'deleted by the peer' "$T/s3.log" &&
  ok "site 3 removed: its IKE SA deleted, nothing through" || bad "site 3 after its removal: $(tail -3 "$T/s3.log")"
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
! grep -q '^peer s3 ' <<<"$st" && grep -q '^peer s4 10.231.21.2:4502 keying ikev2 .* id s4.sites.gostx.test$' <<<"$st" &&
  [ "$(status_value "$st" peers)" = 3 ] && ok "status: s3 gone, $(grep '^peer s4 ' <<<"$st")" ||
  bad "status after the SIGHUP: $st"
wait $P2
grep -q '20 packets transmitted, 20 received' "$T/p2.out" &&
  ok "site 2's pings through it: $(grep transmitted "$T/p2.out")" || bad "site 2: $(cat "$T/p2.out")"
# 4c. s2 changed (10.5.0.0/16 more): its IKE SA ended, it connects again
# under the new remote_ts, and sends from it
ip -n $NA route add 10.5.0.0/16 dev $GW_DEV src 10.99.0.1
ip -n $S2 addr add 10.5.0.1/32 dev gxss2
sed -i "s|^remote_ts = 10.2.0.0/16|remote_ts = 10.2.0.0/16, 10.5.0.0/16|" "$gw_conf"
n=$(grep -c ' established (' "$T/s2.log")
hup_gw && grep -q 'reload: 3 peers (.*; IKEv2: 0 added, 1 changed, 0 removed)' "$T/gw.log" &&
  grep -q '\[peer s2\]: changed by SIGHUP: its IKE SA deleted' "$T/gw.log" &&
  ok "SIGHUP: s2 changed" || bad "SIGHUP changing s2: $(tail -4 "$T/gw.log")"
for _ in $(seq $(bound 100)); do [ "$(grep -c ' established (' "$T/s2.log")" -gt $n ] && break; sleep 0.05; done
[ "$(grep -c ' established (' "$T/s2.log")" -gt $n ] && [ "$(answered $S2 10.5.0.1 10.99.0.1)" = 3 ] &&
  [ "$(answered $S2 10.4.0.1 10.99.0.1)" = 3 ] &&
  ok "site 2 connected again, sends from its new remote_ts; site 4 untouched" ||
  bad "site 2 after its change: $(tail -4 "$T/s2.log")"
# 5. a site's own crl lines read again at SIGHUP: s3 added back with a crl
# line (a CRL revoking nobody) and connected; s3 revoked in that CRL and
# SIGHUP: its IKE SA deleted, its next refused (before 2026-11-30 a site's
# CRLs were read at start only, and a [pool]'s SIGHUP put the pool's in
# every site's manager)
: >"$T/index"
crl_of "$T/index" "$T/s3.crl" || bad "a CRL revoking nothing"
printf '%s\n' "" "[peer s3]" "keying = ikev2" "peer = 10.231.21.2:4501" \
  "remote_id = C=RU, O=gostx test, CN=s3.sites.gostx.test" "cert = $T/gw.pem" "key = $T/gw.key" \
  "ca = $T/ca.pem" "crl = $T/s3.crl" "remote_ts = 10.3.0.0/16" >>"$gw_conf"
hup_gw && grep -q 'reload: 4 peers (.*; IKEv2: 1 added, 0 changed, 0 removed)' "$T/gw.log" ||
  bad "SIGHUP adding s3 back: $(tail -3 "$T/gw.log")"
kill $PID_s3 && wait $PID_s3 2>/dev/null
tunnel_start s3 $S2 && ip -n $S2 addr add 10.3.0.1/32 dev gxss3 &&
  ip -n $S2 route add 10.99.0.0/16 dev gxss3 src 10.3.0.1 table 103 &&
  [ "$(answered $S2 10.3.0.1 10.99.0.1)" = 3 ] && ok "site 3 back under its crl line, pings" ||
  bad "site 3 back: $(tail -3 "$T/s3.log")"
crl_of "$T/index" "$T/s3.crl" "$T/s3.pem" || bad "a CRL revoking site 3"
want="certificate revoked: depth 0, serial 0x$(serial_of "$T/index" s3.sites.gostx.test), reason keyCompromise"
hup_gw && logged gw "revocation: $want (new CRLs)" && logged gw "AUTHENTICATION_FAILED: revocation: $want" &&
  [ "$(answered $S2 10.3.0.1 10.99.0.1 2)" = 0 ] && [ "$(answered $S2 10.2.0.1 10.99.0.1)" = 3 ] &&
  ok "SIGHUP, site 3 revoked in its own CRL: its IKE SA deleted, its next refused; site 2 on" ||
  bad "SIGHUP, site 3 revoked: $(tail -4 "$T/gw.log")"
# 5b. 16 sites more at once: the gateway started with 2 and holds 16 slots
# beyond them, 3 taken: refused whole, the sites carry on
cp "$gw_conf" "$T/gw.conf.before"
for k in $(seq 16); do
  printf '\n' >>"$gw_conf"
  psk_site x$k $((4600 + k)) 10.$((100 + k)).0.0/16 >>"$gw_conf"
done
hup_gw && grep -q '\[peer x16\]: no free slot for an IKEv2 peer' "$T/gw.log" &&
  grep -qF "reload refused: $gw_conf (above): the running peers kept" "$T/gw.log" &&
  [ "$(answered $S2 10.2.0.1 10.99.0.1)" = 3 ] && ok "SIGHUP, 16 sites more than the free slots: refused, all kept" ||
  bad "SIGHUP past the free slots: $(tail -3 "$T/gw.log")"
mv "$T/gw.conf.before" "$gw_conf"
# 6. a site the gateway starts (ike_initiate = yes in [peer s5]) whose own
# tunnel only answers (ike_initiate = no): added by SIGHUP, it comes up
# and pings; killed and started again (the gateway's SA dead to it: its
# DPD, 2 s, is answered INVALID_IKE_SPI), and stopped (its Delete) and
# started again, the gateway brings it up again by itself. Before
# 2026-11-30 the config reader refused ike_initiate in a site's section.
sed "s|^local = .*|local = 10.231.21.2:4503|; s|^ike_port = .*|ike_port = 4503|; s|gxss2|gxss5|
  s|s2\.|s5.|g; s|^ike_initiate = .*|ike_initiate = no|; /^rekey_seconds/d" "$T/s2.conf" >"$T/s5.conf"
# s5_run: site 5 started, waiting for the gateway (its "up" line comes with
# the keys); s5_up N: its Nth "up" line within the bound, its host
# 10.6.0.1 and routes on its device
s5_run() {
  ip netns exec $S2 "$G" tunnel -c "$T/s5.conf" 2>>"$T/s5.log" </dev/null >/dev/null &
  PID_s5=$!
  PIDS+=($!)
  for _ in $(seq $(bound 100)); do grep -q 'listening on port 4503' "$T/s5.log" 2>/dev/null && break; sleep 0.05; done
}
s5_up() {
  for _ in $(seq $(bound 200)); do [ "$(grep -c ' up, ' "$T/s5.log")" -ge $1 ] && break; sleep 0.1; done
  [ "$(grep -c ' up, ' "$T/s5.log")" -ge $1 ] || return 1
  ip -n $S2 addr add 10.6.0.1/32 dev gxss5
  ip -n $S2 rule add from 10.6.0.1 lookup 106 2>/dev/null
  ip -n $S2 route add 10.99.0.0/16 dev gxss5 src 10.6.0.1 table 106
}
ip -n $NA route add 10.6.0.0/16 dev $GW_DEV src 10.99.0.1
s5_sect=$(psk_site s5 4503 10.6.0.0/16) # its PSK file first
s5_run
printf '\n%s\n' "$s5_sect" "ike_initiate = yes" "dpd_seconds = 2" >>"$gw_conf"
hup_gw && grep -q 'reload: .*IKEv2: 1 added, 0 changed, 0 removed)' "$T/gw.log" &&
  grep -qF '[peer s5]: added by SIGHUP: IKEv2 started here to 10.231.21.2:4503' "$T/gw.log" &&
  s5_up 1 && [ "$(answered $S2 10.6.0.1 10.99.0.1)" = 3 ] &&
  [ "$(tunnel_status $S2 s5 ike_role)" = responder ] &&
  [ "$(tunnel_status $S2 s5 ike_remote)" = 10.231.21.1:4500 ] &&
  ok "site 5 (it only answers), added by SIGHUP: started by the gateway from its data port, pings" ||
  bad "site 5 added: gw: $(grep 's5\|4503' "$T/gw.log" | tail -3) s5: $(tail -3 "$T/s5.log")"
kill -KILL $PID_s5
wait $PID_s5 2>/dev/null
s5_run
s5_up 2 && [ "$(answered $S2 10.6.0.1 10.99.0.1)" = 3 ] &&
  ok "site 5 killed and started again: the gateway brought it up again" ||
  bad "site 5 after its restart: gw: $(grep 's5\|4503' "$T/gw.log" | tail -4) s5: $(tail -3 "$T/s5.log")"
tunnel_stop $PID_s5
want='peer s5 at 10.231.21.2:4503: its IKE SA is gone: out of the tables'
for _ in $(seq $(bound 50)); do grep -qF "$want" "$T/gw.log" && break; sleep 0.1; done
s5_run
grep -qF "$want" "$T/gw.log" && s5_up 3 && [ "$(answered $S2 10.6.0.1 10.99.0.1)" = 3 ] &&
  ok "site 5 stopped (its IKE SA deleted) and started again: up again, started by the gateway" ||
  bad "site 5 after its stop: gw: $(grep 's5\|4503' "$T/gw.log" | tail -4) s5: $(tail -3 "$T/s5.log")"
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log; then
  bad "sanitizer reports (above)"
fi
finish
