#!/usr/bin/env bash
# gostx tunnel as a gateway of many peers (docs/TUNNEL.md, "Gateway (many
# peers)"): one gateway namespace and three sites, each a point-to-point
# tunnel to it with static keys of its own (site 2 under Magma), over a veth
# pair of its own. Checked:
# 1. each site pings the gateway's inner host and the gateway pings each
#    site's inner address (site 3 over IPv4 and IPv6): the destination
#    picks the peer, the SPI the SA;
# 2. site 1 sending from site 2's prefix (a spoofed inner source): nothing
#    answered, every packet counted as rx_selector in site 1's peer line
#    and in the gateway's rx_selector;
# 3. a packet to an inner address no peer owns: dropped and counted
#    (tx_noroute), never sent;
# 4. --status lists the three peers, --status --json the same as JSON;
# 5. SIGHUP with new remote_ts: the new table in use at once; a config
#    that cannot be taken whole refused in one line, every peer going on;
#    SIGHUP removing site 3 while site 1 pings every 50 ms: site 1 loses
#    nothing, site 3's packets are dropped and counted both ways, its state
#    file holds its exact numbers; SIGHUP adding site 3 back (its numbers
#    go on), giving site 2 new keys and SPIs and adding site 4: each pings
#    both ways, site 1 again losing nothing (a state file of other keys
#    where site 4's goes refused first, whole); site 4 moved to another port
#    and SIGHUP with its new address alone: its pings pass again;
# 6. the gateway stopped and started again (no --new-keys: each peer's
#    state file, STATE.peer.NAME, holds its numbers): every site's pings
#    pass again, and the outbound numbers went on above the old ones.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
# the gateway is $NA, site 1 $NB (the pair of netns.sh); sites 2 and 3 get
# namespaces and veth pairs of their own from the gateway
NA=gxwg$$ NB=gxw1$$ VA=gxwv0$$ VB=gxwv1$$
N2=gxw2$$ N3=gxw3$$
G=${GOSTX:-build/gostx}
gateway_end() {
  pids_stop
  ip netns del $N2 2>/dev/null
  ip netns del $N3 2>/dev/null
  netns_test_end
}
netns_test_begin ping python3 timeout
trap gateway_end EXIT
site_ns() { case $1 in 1) echo $NB ;; 2) echo $N2 ;; 3) echo $N3 ;; esac; }
for i in 2 3; do
  ns=$(site_ns $i)
  ip netns add $ns || { bad "namespace $ns"; finish; }
  ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n $ns link set lo up
  ip link add gxwv${i}a$$ netns $NA type veth peer name gxwv${i}b$$ netns $ns
  ip -n $NA addr add 10.231.$((i - 1)).1/30 dev gxwv${i}a$$ && ip -n $NA link set gxwv${i}a$$ up
  ip -n $ns addr add 10.231.$((i - 1)).2/30 dev gxwv${i}b$$ && ip -n $ns link set gxwv${i}b$$ up
done

# keys and configs: site i is 10.231.(i-1).2 outside, 10.i.0.1 inside, and
# owns 10.i.0.0/16 at the gateway; the gateway's inner host is 10.99.0.1
gw_conf=$T/gw.conf
cat >"$gw_conf" <<EOF
local = 0.0.0.0:4500
tun = gxwg0
mtu = 1400
state = $T/gw.state
threads = 1
EOF
for i in 1 2 3; do
  head -c 32 /dev/urandom >"$T/g2s$i.key"
  head -c 32 /dev/urandom >"$T/s${i}2g.key"
  chmod 600 "$T"/*.key
  tr=kuznyechik-mgm-ktree
  [ $i = 2 ] && tr=magma-mgm-ktree
  cat >>"$gw_conf" <<EOF

[peer s$i]
peer = 10.231.$((i - 1)).2:4500
transform = $tr
spi_out = $((0x1100 + i))
spi_in = $((0x1200 + i))
key_out = $T/g2s$i.key
key_in = $T/s${i}2g.key
remote_ts = 10.$i.0.0/16$([ $i = 3 ] && echo ", fd00:3::/48")
EOF
  TUN=gxws$i TRANSFORM=$tr tunnel_conf s$i 10.231.$((i - 1)).2 10.231.$((i - 1)).1 \
    $((0x1200 + i)) $((0x1100 + i)) s${i}2g.key g2s$i.key
done

# gateway_start: the gateway in $NA (--new-keys when no peer's state file is
# there yet), its inner host and the sites' routes on its TUN device
gateway_start() {
  local new=
  [ -e "$T/gw.state.peer.s1" ] || new=--new-keys
  local n
  n=$(grep -c ' up, ' "$T/gw.log" 2>/dev/null)
  ip netns exec $NA "$G" tunnel -c "$gw_conf" $new 2>>"$T/gw.log" </dev/null >/dev/null &
  PID_gw=$!
  PIDS+=($!)
  for _ in $(seq $(bound 100)); do
    [ "$(grep -c ' up, ' "$T/gw.log" 2>/dev/null)" -gt "${n:-0}" ] && break
    kill -0 $PID_gw 2>/dev/null || break
    sleep 0.05
  done
  kill -0 $PID_gw 2>/dev/null || { bad "gateway did not start: $(tail -3 "$T/gw.log")"; return 1; }
  ip -n $NA addr add 10.99.0.1/32 dev gxwg0
  ip -n $NA addr add 10.99.4.1/32 dev gxwg0
  ip -n $NA link set gxwg0 up
  for i in 1 2 3 4 9; do ip -n $NA route add 10.$i.0.0/16 dev gxwg0 src 10.99.0.1; done
  v6_on $NA gxwg0 fd00:99::1 fd00:3::/48
}
# v6_on NS DEV ADDR PREFIX: IPv6 on a TUN device (no router solicitations,
# no DAD), ADDR on it, PREFIX routed into it
v6_on() {
  ip netns exec $1 sysctl -qw net.ipv6.conf.$2.router_solicitations=0 net.ipv6.conf.$2.disable_ipv6=0
  ip -n $1 addr add $3/128 dev $2 nodad
  ip -n $1 route add $4 dev $2 src $3
}
gateway_start
for i in 1 2 3; do
  ns=$(site_ns $i)
  TUN=gxws$i
  tunnel_start s$i $ns || bad "site $i did not start: $(tail -3 "$T/s$i.log")"
  ip -n $ns addr add 10.$i.0.1/32 dev gxws$i
  ip -n $ns route add 10.99.0.0/16 dev gxws$i src 10.$i.0.1
done
v6_on $N3 gxws3 fd00:3::1 fd00:99::/64

# answered NS FROM TO: how many of 3 pings from FROM to TO were answered
answered() {
  ip netns exec $1 timeout 30 ping -q -c 3 -i 0.2 -W $(bound 1) -I $2 $3 2>/dev/null |
    awk '/received/ {print $4}'
}
all_pings() { # WHEN: each site to the gateway's host and back; site 3 over IPv6 too
  local i
  for i in 1 2 3; do
    [ "$(answered $(site_ns $i) 10.$i.0.1 10.99.0.1)" = 3 ] &&
      ok "$1: site $i pings the gateway's host" || bad "$1: site $i's pings to the gateway"
    [ "$(answered $NA 10.99.0.1 10.$i.0.1)" = 3 ] &&
      ok "$1: the gateway pings site $i" || bad "$1: the gateway's pings to site $i"
  done
  [ "$(answered $N3 fd00:3::1 fd00:99::1)" = 3 ] &&
    ok "$1: site 3 pings the gateway's host over IPv6" || bad "$1: site 3's IPv6 pings"
  [ "$(answered $NA fd00:99::1 fd00:3::1)" = 3 ] &&
    ok "$1: the gateway pings site 3 over IPv6" || bad "$1: the gateway's IPv6 pings to site 3"
}
# peer_value STATUS NAME KEY: KEY's value in the peer NAME's line
peer_value() {
  awk -v n="$2" -v k="$3" '$1 == "peer" && $2 == n { for (i = 4; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$1"
}

# 1. every site both ways
all_pings start

# 2. site 1 sends from site 2's prefix: sealed under site 1's SA, refused by
# the gateway's selectors
ip -n $NB addr add 10.2.0.77/32 dev gxws1
got=$(answered $NB 10.2.0.77 10.99.0.1)
[ "${got:-0}" = 0 ] && ok "spoofed source: no answer" || bad "spoofed source answered $got"

# 3. to an inner address no peer owns
ip netns exec $NA ping -q -c 3 -i 0.2 -W $(bound 1) 10.9.0.1 >/dev/null 2>&1

# 4. --status, once its file is new; --status --json
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
[ "$(peer_value "$st" s1 rx_selector)" = 3 ] && ok "s1: rx_selector 3" ||
  bad "s1's rx_selector: $(grep '^peer s1 ' <<<"$st")"
# (the gateway's own counts also hold what the kernel sends on its own over
# IPv6, MLD reports from :: or link-local sources: at least, not exactly)
[ "$(status_value "$st" rx_selector)" -ge 3 ] && ok "gateway: rx_selector $(status_value "$st" rx_selector)" ||
  bad "gateway's rx_selector: $(status_value "$st" rx_selector)"
[ "$(status_value "$st" tx_noroute)" -ge 3 ] && ok "gateway: tx_noroute $(status_value "$st" tx_noroute)" ||
  bad "gateway's tx_noroute: $(status_value "$st" tx_noroute)"
for i in 1 2 3; do
  line=$(grep "^peer s$i " <<<"$st")
  [ "$(peer_value "$st" s$i rx_packets)" -ge 3 ] && [ "$(peer_value "$st" s$i tx_packets)" -ge 3 ] &&
    [ "$(peer_value "$st" s$i last_seen)" -gt 0 ] && [ "$(peer_value "$st" s$i rx_auth)" = 0 ] &&
    [ "$(peer_value "$st" s$i rx_replay)" = 0 ] && grep -q " 10.231.$((i - 1)).2:4500 " <<<"$line" &&
    ok "status: $line" || bad "status of s$i: $line"
done
[ "$(peer_value "$st" s2 rx_selector)" = 0 ] && ok "s2: rx_selector 0" || bad "s2's rx_selector"
ip netns exec $NA "$G" tunnel --status --json -c "$gw_conf" >"$T/status.json"
json_ok() { ok "--status --json: three peers, the counts"; }
json_bad() { bad "--status --json: $(cat "$T/status.json")"; }
python3 - "$T/status.json" <<'EOF' && json_ok || json_bad
import json, sys
def once(pairs):  # each name once in an object (RFC 8259 4)
    names = [k for k, _ in pairs]
    assert len(names) == len(set(names)), "a name twice: %s" % names
    return dict(pairs)
s = json.load(open(sys.argv[1]), object_pairs_hook=once)
peers = {p["name"]: p for p in s["peers"]}
assert sorted(peers) == ["s1", "s2", "s3"] and s["peer_count"] == 3, peers
assert peers["s1"]["rx_selector"] == 3 and peers["s2"]["rx_selector"] == 0
assert peers["s2"]["address"] == "10.231.1.2:4500" and peers["s2"]["spi_in"] == "0x00001202"
assert s["rx_selector"] >= 3 and s["tx_noroute"] >= 3 and isinstance(s["tx_packets"], int)
EOF

# 5. SIGHUP: new remote_ts swapped in (site 3 now owns 10.9.0.0/16 too: the
# packets that had no peer go to it); a reload that changes a key is refused
# and leaves the routes as they were
tx3=$(peer_value "$st" s3 tx_packets)
reloaded() { # N: the gateway's log has N reload lines
  for _ in $(seq $(bound 50)); do
    [ "$(grep -c 'reload' "$T/gw.log")" -ge $1 ] && return 0
    sleep 0.1
  done
  return 1
}
cp "$gw_conf" "$T/gw.conf.orig"
sed -i 's|^remote_ts = 10.3.0.0/16|remote_ts = 10.3.0.0/16, 10.9.0.0/16|' "$gw_conf"
kill -HUP $PID_gw
reloaded 1 && grep -q 'reload: 3 peers (0 added, 0 with new keys, 0 moved, 0 removed)' "$T/gw.log" &&
  ok "reload: new routes" ||
  bad "reload: $(tail -2 "$T/gw.log")"
# a config that cannot be taken whole (s3 removed, and s1's key_out
# changed alone: its key_in would be numbered from 1 again) refused in one
# line; every peer goes on (s3 too)
cp "$gw_conf" "$T/gw.conf.routes"
drop_s3() { awk '/^\[peer s3\]/ {skip = 1} /^\[peer s[124]\]/ {skip = 0} !skip' "$1"; }
head -c 32 /dev/urandom >"$T/g2s1b.key"
chmod 600 "$T/g2s1b.key"
drop_s3 "$T/gw.conf.routes" | sed "s|^key_out = $T/g2s1.key|key_out = $T/g2s1b.key|" >"$gw_conf"
kill -HUP $PID_gw
reloaded 2 && grep -q 'reload refused: .*\[peer s1\]: its new key_in is its key_in of now' "$T/gw.log" &&
  [ "$(grep -c 'reload' "$T/gw.log")" = 2 ] && ok "a bad config refused in one line" ||
  bad "a bad config: $(tail -2 "$T/gw.log")"
cp "$T/gw.conf.routes" "$gw_conf"
ip netns exec $NA ping -q -c 2 -i 0.2 -W $(bound 1) 10.9.0.1 >/dev/null 2>&1
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
[ "$(peer_value "$st" s3 tx_packets)" = $((tx3 + 2)) ] && ok "after the reload 10.9.0.1 is site 3's" ||
  bad "after the reload: s3 tx_packets $(peer_value "$st" s3 tx_packets) (was $tx3)"

# 5b. SIGHUP removes s3 while site 1 pings on (50 ms apart): site 1 loses
# nothing; s3's packets both ways dropped (counted: tx_noroute, rx_spi, in
# the status below), its exact numbers in its state file, as at a stop
ping_on() { # N: site 1's N pings to the gateway's host in the background
  ip netns exec $NB ping -q -c $1 -i 0.05 -w $(bound 5) -I 10.1.0.1 10.99.0.1 >"$T/ping1" 2>&1 &
  ping1=$! n1=$1
}
lost_none() { # WHILE
  wait $ping1
  grep -q " $n1 received, 0% packet loss" "$T/ping1" && ok "site 1 lost nothing while $1" ||
    bad "site 1's pings while $1: $(grep received "$T/ping1")"
}
ping_on 30
reserved3=$(awk '$1 == "out" {print $3}' "$T/gw.state.peer.s3")
drop_s3 "$T/gw.conf.routes" >"$gw_conf"
kill -HUP $PID_gw
reloaded 3 && grep -q 'reload: 2 peers (0 added, 0 with new keys, 0 moved, 1 removed)' "$T/gw.log" &&
  ok "reload: s3 removed" || bad "reload removing s3: $(tail -2 "$T/gw.log")"
used3=$(awk '$1 == "out" {print $3}' "$T/gw.state.peer.s3")
[ -n "$used3" ] && [ "$used3" -lt "$reserved3" ] && [ "$used3" -ge 3 ] &&
  ok "s3 removed: its exact number $used3 in its state file (reserved $reserved3)" ||
  bad "s3's state file after its removal: $used3 (reserved $reserved3)"
# answered_bg NAME NS FROM TO: answered in the background into $T/NAME,
# its pid in $apids
answered_bg() {
  answered $2 $3 $4 >"$T/$1" &
  apids+=($!)
}
apids=()
answered_bg down3 $NA 10.99.0.1 10.3.0.1
answered_bg up3 $N3 10.3.0.1 10.99.0.1
wait "${apids[@]}"
[ "$(cat "$T/down3")" = 0 ] && [ "$(cat "$T/up3")" = 0 ] &&
  ok "s3 removed: no pings pass" || bad "s3 removed, its pings pass"
lost_none "s3 was removed"

# 5c. SIGHUP: s3 back (its numbers go on from its state file: site 3, still
# running, takes them), s2 with new keys and SPIs (site 2 restarted with
# them), and a new peer s4 (in site 2's namespace, port 4501)
for k in g2s2b s22gb g2s4 s42g; do head -c 32 /dev/urandom >"$T/$k.key"; done
chmod 600 "$T"/*.key
sed -e "s|^spi_out = $((0x1102))\$|spi_out = $((0x1302))|; s|^spi_in = $((0x1202))\$|spi_in = $((0x1402))|" \
  -e "s|^key_out = $T/g2s2.key|key_out = $T/g2s2b.key|; s|^key_in = $T/s22g.key|key_in = $T/s22gb.key|" \
  "$T/gw.conf.routes" >"$gw_conf"
printf '\n[peer s4]\npeer = 10.231.1.2:4501\ntransform = kuznyechik-mgm-ktree\nspi_out = %d\nspi_in = %d\nkey_out = %s\nkey_in = %s\nremote_ts = 10.4.0.0/16\n' \
  $((0x1104)) $((0x1204)) "$T/g2s4.key" "$T/s42g.key" >>"$gw_conf"
tunnel_stop $PID_s2
TUN=gxws2 TRANSFORM=magma-mgm-ktree tunnel_conf s2 10.231.1.2 10.231.1.1 $((0x1402)) $((0x1302)) \
  s22gb.key g2s2b.key
rm -f "$T/s2.state"
TUN=gxws4 tunnel_conf s4 10.231.1.2 10.231.1.1 $((0x1204)) $((0x1104)) s42g.key g2s4.key
sed -i 's|^local = \(.*\):4500|local = \1:4501|' "$T/s4.conf"
# first with a state file of other keys where s4's goes: refused whole
cp "$T/gw.state.peer.s1" "$T/gw.state.peer.s4"
kill -HUP $PID_gw
reloaded 4 && grep -q "reload refused: $T/gw.state.peer.s4: the state of other keys" "$T/gw.log" &&
  [ "$(grep -c 'reload' "$T/gw.log")" = 4 ] && ok "an added peer's state file of other keys: refused" ||
  bad "an added peer's state file of other keys: $(tail -2 "$T/gw.log")"
rm "$T/gw.state.peer.s4"
ping_on 20
kill -HUP $PID_gw
reloaded 5 && grep -q 'reload: 4 peers (2 added, 1 with new keys, 0 moved, 0 removed)' "$T/gw.log" &&
  ok "reload: s3 and s4 added, s2 with new keys" || bad "reload adding: $(tail -2 "$T/gw.log")"
# (site 4 beside site 2 reaches the gateway's second host, 10.99.4.1)
for i in 2 4; do
  TUN=gxws$i
  tunnel_start s$i $N2 || bad "site $i did not start: $(tail -3 "$T/s$i.log")"
  ip -n $N2 addr add 10.$i.0.1/32 dev gxws$i
done
ip -n $N2 route add 10.99.0.0/16 dev gxws2 src 10.2.0.1
ip -n $N2 route add 10.99.4.0/24 dev gxws4 src 10.4.0.1
apids=()
for i in 2 3 4; do
  ns=$(site_ns $i) gh=10.99.0.1
  [ $i = 4 ] && ns=$N2 gh=10.99.4.1
  answered_bg up$i $ns 10.$i.0.1 $gh
  answered_bg down$i $NA $gh 10.$i.0.1
done
wait "${apids[@]}"
for i in 2 3 4; do
  [ "$(cat "$T/up$i")" = 3 ] && [ "$(cat "$T/down$i")" = 3 ] &&
    ok "after the reload: site $i's pings both ways" || bad "after the reload: site $i's pings"
done
again3=$(awk '$1 == "out" {print $3}' "$T/gw.state.peer.s3")
[ "${again3:-0}" -gt "$used3" ] && ok "s3 added again: its numbers go on ($used3, now reserved to $again3)" ||
  bad "s3's state file after it came back: $again3 (was $used3)"
status_fresh gw
st2=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
[ "$(status_value "$st2" tx_noroute)" -ge $(($(status_value "$st" tx_noroute) + 3)) ] &&
  [ "$(status_value "$st2" rx_spi)" -ge $(($(status_value "$st" rx_spi) + 3)) ] &&
  ok "s3's packets while it was removed counted: tx_noroute, rx_spi" ||
  bad "s3's packets while removed: $(grep -E '^(tx_noroute|rx_spi) ' <<<"$st2") (before: $(grep -E '^(tx_noroute|rx_spi) ' <<<"$st"))"
[ "$(status_value "$st2" peers)" = 4 ] && grep -q '^peer s2 .* spi_in 0x00001402 ' <<<"$st2" &&
  grep -q '^peer s4 10.231.1.2:4501 ' <<<"$st2" && ok "status: peers 4, s2's new SPIs, s4" ||
  bad "status after the reload: $(grep -E '^(peers|peer) ' <<<"$st2")"
lost_none "peers came and changed"
# 5d. site 4 moves to port 4502 (its keys, SPIs and numbers kept: its state
# file): SIGHUP with its new address only, and its pings pass again
tunnel_stop $PID_s4
sed -i 's|^local = \(.*\):4501|local = \1:4502|' "$T/s4.conf"
sed -i 's|^peer = 10.231.1.2:4501|peer = 10.231.1.2:4502|' "$gw_conf"
kill -HUP $PID_gw
TUN=gxws4 tunnel_start s4 $N2 || bad "site 4 did not start again: $(tail -3 "$T/s4.log")"
ip -n $N2 addr add 10.4.0.1/32 dev gxws4
ip -n $N2 route add 10.99.4.0/24 dev gxws4 src 10.4.0.1
reloaded 6 && grep -q 'reload: 4 peers (0 added, 0 with new keys, 1 moved, 0 removed)' "$T/gw.log" &&
  [ "$(answered $N2 10.4.0.1 10.99.4.1)" = 3 ] && [ "$(answered $NA 10.99.4.1 10.4.0.1)" = 3 ] &&
  ok "site 4 moved: its new address taken, its pings both ways" ||
  bad "site 4 moved: $(tail -2 "$T/gw.log")"

# 6. the gateway restarted from its state files
used_before=$(awk '$1 == "out" {print $3}' "$T/gw.state.peer.s3")
tunnel_stop $PID_gw
wait $PID_gw 2>/dev/null
used_stop=$(awk '$1 == "out" {print $3}' "$T/gw.state.peer.s3")
[ -n "$used_stop" ] && [ "$used_stop" -ge 3 ] && [ "$used_stop" -lt "$used_before" ] &&
  ok "stopped: s3's exact number $used_stop in its state file (reserved $used_before)" ||
  bad "s3's state at the stop: $used_stop (reserved $used_before)"
gateway_start
all_pings "after a restart"
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$gw_conf")
grep -v 'reload refused' "$T/gw.log" | grep -q 'state of other keys\|no state file' &&
  bad "restart: $(cat "$T/gw.log")"
[ "$(peer_value "$st" s1 rx_replay)" = 0 ] && ok "after the restart: no replays at s1" ||
  bad "after the restart: s1's rx_replay $(peer_value "$st" s1 rx_replay)"

for i in 1 2 3 4; do tunnel_stop $(eval echo "\$PID_s$i"); done
tunnel_stop $PID_gw
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log; then
  bad "sanitizer reports (above)"
else
  ok "no sanitizer reports"
fi
finish
