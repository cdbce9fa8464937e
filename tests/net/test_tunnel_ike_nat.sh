#!/usr/bin/env bash
# gostx tunnel with keying = ikev2 and UDP encapsulation of IKE on the data
# port (docs/TUNNEL.md, "Behind a NAT"; RFC 7296 2.23, RFC 3948):
# 1. encap = yes on a, no NAT: after IKE_SA_INIT on port 500 IKE moves to
#    the data port behind the non-ESP marker (the workers hand it to the
#    IKE thread: rx_ike on both sides); UDP through; a Child SA rekey over
#    the data port, UDP through again; then a's ike_port = 4500 (local's
#    port): IKE there from IKE_SA_INIT on, no socket on port 500, no NAT
#    seen, both ends' local 0.0.0.0 (b hashes where a's IKE_SA_INIT came
#    to, a the address of its route to b: until 2026-11-30 both hashed
#    0.0.0.0 and saw NATs);
# 2. a behind a NAT (a namespace of its own routed through the first one,
#    which masquerades with random ports: nftables): NAT detection logged
#    on both sides, IKE moved to the data port, UDP through both ways (b
#    sends ESP to the NAT's mapping of a's port, learned from IKE), --status
#    saying so (ike_nat, ike_encap, ike_remote), a's
#    keepalives (nat_keepalive_seconds = 1) counted by b (rx_keepalive)
#    when a is quiet, none while it sends, a
#    Child SA rekey through the NAT and UDP both ways again; the NAT's
#    mappings dropped: b follows a's next IKE message to its new port
#    (RFC 7296 2.23's dynamic update), UDP both ways again.
# (1c and 1d: a's IKE_AUTH with a chain of four certificates: whole or in
# RFC 7383 fragments; 1d over IPv6, see there.)
# Needs root and /dev/net/tun (exit 77, skipped, without them), and nft.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxn python3 timeout nft
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
chmod 600 "$T/psk"

# wait_log SIDE PATTERN [TENTHS]: 0 once SIDE's log has PATTERN (within
# TENTHS / 10 s, 5 s by default), else 1
wait_log() {
  for _ in $(seq $(bound ${3:-50})); do grep -q -- "$2" "$T/$1.log" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# through WHAT: 200 numbered datagrams each way through the tunnel
through() {
  local got
  got=$(udp_through $NA $NB 10.232.0.2 udpsend 200 600)
  [ "$got" = "received 200 distinct 200 bad 0" ] && ok "$1: UDP a to b: $got" || bad "$1: UDP a to b: $got"
  got=$(udp_through $NB $NA 10.232.0.1 udpsend 200 600)
  [ "$got" = "received 200 distinct 200 bad 0" ] && ok "$1: UDP b to a: $got" || bad "$1: UDP b to a: $got"
}
# up_and_through WHAT: both up, the inner addresses, UDP both ways
up_and_through() {
  both_start
  both_up || { bad "$1: not up: a: $(tail -3 "$T/a.log") b: $(tail -3 "$T/b.log")"; return 1; }
  ip -n $NA addr add 10.232.0.1/30 dev $TUN
  ip -n $NB addr add 10.232.0.2/30 dev $TUN
  through "$1"
}
# rekeyed WHAT: a Child SA rekey (a's rekey_seconds = 2) seen by both
# sides, then UDP both ways again
rekeyed() {
  if wait_log a 'Child SA rekeyed (ours)' 80 && wait_log b "Child SA rekeyed (the peer's)"; then
    ok "$1: a Child SA rekey: $(grep -m1 'Child SA rekeyed' "$T/b.log" | sed 's/.*ike: //')"
  else
    bad "$1: no rekey: a: $(tail -3 "$T/a.log") b: $(tail -3 "$T/b.log")"
  fi
  through "$1, rekeyed"
}

# 1. encap = yes, no NAT
ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.2" \
  "encap = yes" "rekey_seconds = 2"
ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.1" \
  "rekey_seconds = 3600"
if up_and_through "encap = yes"; then
  grep -q 'IKE moves to 10.231.0.2:4500 (UDP encapsulation, encap = yes)' "$T/a.log" &&
    ok "encap = yes: $(grep -m1 'IKE moves' "$T/a.log" | sed 's/.*ike: //')" ||
    bad "encap = yes: IKE did not move: $(cat "$T/a.log")"
  rekeyed "encap = yes"
  # b: IKE_AUTH and the rekey's request and Delete at least; a: their answers
  n=$(tunnel_counters $NB b rx_ike rx_ike_dropped rx_malformed)
  m=$(tunnel_counters $NA a rx_ike)
  read -r bi bd bm <<<"$n"
  [ "$bi" -ge 3 ] && [ "$m" -ge 3 ] && [ "$bd $bm" = "0 0" ] &&
    ok "encap = yes: IKE on the data port (rx_ike: b $bi, a $m; dropped $bd, malformed $bm)" ||
    bad "encap = yes: rx_ike b $bi a $m, dropped $bd, malformed $bm"
fi
both_stop

# 1b. a's ike_port = local's port: IKE on the data port from IKE_SA_INIT on,
# no IKE socket of its own; b (ike_port 500) answers there, and NAT
# detection hashes the port the request came to: no NAT on either side.
# Both bound to 0.0.0.0: b's detection hashes the address a's request came
# to (IP_PKTINFO), a's the address of its route to b
ike_conf a 0.0.0.0 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.2" \
  "ike_port = 4500" "local_id = 10.231.0.1"
ike_conf b 0.0.0.0 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.1" \
  "local_id = 10.231.0.2"
if up_and_through "ike_port = 4500"; then
  n=$(tunnel_counters $NB b rx_ike rx_ike_dropped)
  read -r bi bd <<<"$n"
  sockets=$(ip netns exec $NA ss -Hluan | awk '{print $4}' | grep -c ':500$')
  [ "$bi" -ge 2 ] && [ "$bd" = 0 ] && [ "$sockets" = 0 ] && ! grep -q 'IKE moves' "$T/a.log" &&
    grep -q 'listening on port 4500 (the data port' "$T/a.log" &&
    ok "ike_port = 4500: IKE_SA_INIT and after on the data port (b's rx_ike $bi), no socket on 500" ||
    bad "ike_port = 4500: rx_ike $bi dropped $bd, a's sockets on 500: $sockets, a: $(cat "$T/a.log")"
  grep -q 'NAT detection: no NAT$' "$T/a.log" && ! grep -q 'NAT detection' "$T/b.log" &&
    grep -q 'local 0.0.0.0:4500: our address toward 10.231.0.2:4500 is 10.231.0.1:4500 ' "$T/a.log" &&
    ok "ike_port = 4500, local 0.0.0.0: no NAT seen by either side" ||
    bad "ike_port = 4500: a NAT seen: a: $(grep NAT "$T/a.log") b: $(grep NAT "$T/b.log")"
fi
both_stop

# 1c. certificates with a's chain of four (512-bit, about 570 bytes each:
# its IKE_AUTH about 2.7 KB, past the 2 KB packet slots of the data path;
# with three it passed them by only a little) under encap = yes, b with
# and without UDP offloads: up
printf '%s\n' 'basicConstraints = critical, CA:true' 'keyUsage = critical, keyCertSign, cRLSign' >"$T/ca.ext"
pki() { # NAME SUBJ ISSUER [X509_REQ_OPTIONS]
  "$G" genpkey -c 512A -o "$T/$1.key" || return 1
  if [ "$3" = self ]; then
    "$G" req -x509 -ca -key "$T/$1.key" -subj "$2" -days 2 -out "$T/$1.pem"
  else
    "$G" req -new -key "$T/$1.key" -subj "$2" -out "$T/$1.csr" &&
      "$G" x509 -req ${4:-} -in "$T/$1.csr" -CA "$T/$3.pem" -CAkey "$T/$3.key" -days 2 -out "$T/$1.pem"
  fi
}
pki root "/C=RU/O=gostx test/CN=root" self &&
  pki mid "/C=RU/O=gostx test/CN=intermediate 1" root "-extfile $T/ca.ext" &&
  pki mid2 "/C=RU/O=gostx test/CN=intermediate 2" mid "-extfile $T/ca.ext" &&
  pki ca "/C=RU/O=gostx test/CN=a" mid2 && pki cb "/C=RU/O=gostx test/CN=b" root || bad "test PKI"
chmod 600 "$T"/*.key
cat "$T/ca.pem" "$T/mid2.pem" "$T/mid.pem" "$T/root.pem" >"$T/chain.pem"
# sizes_bg: ike_sizes.py measuring what crosses $VA in the background (its
# pid in $spid), returning once its capture socket is bound; sizes_got:
# its `ike N largest L ipfrags F` into $sizes
sizes_bg() {
  rm -f "$T/sizes.ready" "$T/sizes.stop"
  ip netns exec $NA timeout 40 python3 "$HERE/ike_sizes.py" --dev $VA --ready "$T/sizes.ready" \
    --stop "$T/sizes.stop" >"$T/sizes.out" 2>"$T/sizes.err" &
  spid=$!
  PIDS+=($spid)
  ready_or_gone "$T/sizes.ready" $spid
}
sizes_got() {
  touch "$T/sizes.stop"
  wait $spid
  sizes=$(cat "$T/sizes.out" "$T/sizes.err")
}
# the fragments a logged sending IKE_AUTH (0: none, sent whole)
fragments_sent() {
  local n
  n=$(sed -n 's/.*IKE_AUTH sent in \([0-9]*\) fragments$/\1/p' "$T/a.log" | head -1)
  echo "${n:-0}"
}
# chain_run WHAT A B FRAG OFFLOAD: a (at address A) with its chain of four
# under encap = yes and fragmentation = FRAG, b (at B) with udp_offload =
# OFFLOAD: up, UDP both ways; with FRAG no the IKE_AUTH goes whole (IP
# fragments it), with yes in RFC 7383 fragments, no IKE datagram past
# strongSwan's 1280 nor IP-fragmented, b's workers handing IKE every one
chain_run() {
  local what=$1 n nf
  ike_conf a "$2" "$3" yes "ike_auth = cert" "cert = $T/chain.pem" "key = $T/ca.key" \
    "ca = $T/root.pem" "remote_id = C=RU, O=gostx test, CN=b" "encap = yes" "fragmentation = $4"
  ike_conf b "$3" "$2" no "ike_auth = cert" "cert = $T/cb.pem" "key = $T/cb.key" \
    "ca = $T/root.pem" "remote_id = C=RU, O=gostx test, CN=a" "udp_offload = $5"
  sizes_bg || bad "ike_sizes.py did not start: $(cat "$T/sizes.err")"
  up=0
  up_and_through "$what, fragmentation = $4, b's udp_offload = $5" && up=1
  sizes_got
  if [ $up = 1 ]; then
    n=$(tunnel_counters $NB b rx_ike rx_malformed)
    read -r _ ike _ largest _ ipfrags <<<"$sizes"
    nf=$(fragments_sent)
    if [ "$4" = no ]; then
      [ "$n" = "1 0" ] && [ "$nf" = 0 ] && [ "$largest" -gt 1280 ] && [ "$ipfrags" -ge 2 ] &&
        ok "$what: IKE_AUTH whole on the data port (b's rx_ike, rx_malformed: $n; $sizes)" ||
        bad "$what, fragmentation = no: b's rx_ike, rx_malformed: $n; fragments $nf; $sizes"
    else
      [ "$n" = "$nf 0" ] && [ "$nf" -ge 3 ] && [ "$largest" -le 1280 ] && [ "$largest" -gt 1100 ] &&
        [ "$ipfrags" = 0 ] &&
        ok "$what: IKE_AUTH in $nf RFC 7383 fragments (b's rx_ike, rx_malformed: $n; $sizes)" ||
        bad "$what, fragmentation = yes: b's rx_ike, rx_malformed: $n; fragments $nf; $sizes"
    fi
  fi
  both_stop
}
for run in "off no" "on no" "on yes"; do # b's receive buffers: packet slots, GRO trains
  read -r offload frag <<<"$run"
  chain_run "a chain of four" 10.231.0.1 10.231.0.2 $frag $offload
done

# 1d. the outer path over IPv6 (local and peer [fd00:231::1], [fd00:231::2]):
# a PSK pair with IKE on port 500: up, no NAT seen, --status with the
# bracketed address, UDP both ways, a Child SA rekey; then a's chain of
# four under encap = yes: its IKE_AUTH in RFC 7383 fragments sized for IPv6
# (its 40-octet header: no datagram past 1280, none IP-fragmented), every
# fragment handed to IKE by b's workers, UDP through
ip netns exec $NA sysctl -qw net.ipv6.conf.$VA.disable_ipv6=0 && # off elsewhere (netns.sh)
  ip netns exec $NB sysctl -qw net.ipv6.conf.$VB.disable_ipv6=0 &&
  ip -n $NA addr add fd00:231::1/64 dev $VA nodad && ip -n $NB addr add fd00:231::2/64 dev $VB nodad ||
  bad "IPv6 addresses"
ike_conf a "[fd00:231::1]" "[fd00:231::2]" yes "ike_auth = psk" "psk = $T/psk" \
  "local_id = a.gostx.test" "remote_id = b.gostx.test" "rekey_seconds = 2"
ike_conf b "[fd00:231::2]" "[fd00:231::1]" no "ike_auth = psk" "psk = $T/psk" \
  "local_id = b.gostx.test" "remote_id = a.gostx.test" "rekey_seconds = 3600"
if up_and_through "IPv6 outside, PSK"; then
  st="$(tunnel_status $NA a ike_nat) $(tunnel_status $NA a ike_encap) $(tunnel_status $NA a ike_remote)"
  grep -q 'NAT detection: no NAT$' "$T/a.log" && [ "$st" = "none no [fd00:231::2]:500" ] &&
    ok "IPv6 outside, PSK: no NAT seen; a's --status ike_nat, ike_encap, ike_remote: $st" ||
    bad "IPv6 outside, PSK: --status $st; a: $(grep NAT "$T/a.log")"
  rekeyed "IPv6 outside, PSK"
fi
both_stop
chain_run "IPv6 outside, a chain of four" "[fd00:231::1]" "[fd00:231::2]" yes on

# 2. a behind a NAT. The namespaces: $NA (the NAT: 10.231.0.1 outside,
# 10.233.0.1 inside) and a's own, $NC (10.233.0.2), routed through it.
NC=gxnc$$ VC=gxnvc$$ VN=gxnvn$$
# (NA is NC from below on: the NAT's namespace, NR then, removed by name)
trap 'netns_test_end; ip netns del $NC 2>/dev/null; ip netns del ${NR:-$NC} 2>/dev/null' EXIT
ip netns add $NC && ip link add $VC netns $NC type veth peer name $VN netns $NA &&
  ip -n $NC link set lo up && ip -n $NC addr add 10.233.0.2/30 dev $VC && ip -n $NC link set $VC up &&
  ip -n $NA addr add 10.233.0.1/30 dev $VN && ip -n $NA link set $VN up &&
  ip -n $NC route add default via 10.233.0.1 &&
  ip netns exec $NA sysctl -qw net.ipv4.ip_forward=1 &&
  ip netns exec $NA nft -f - <<EOF || { bad "the NAT namespace"; finish; }
table ip gxnat {
  chain post {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "$VA" masquerade random
  }
}
EOF
NR=$NA NA=$NC # a runs behind the NAT; the helpers above take a's namespace from NA
ike_conf a 10.233.0.2 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" "local_id = a.gostx.test" \
  "remote_id = b.gostx.test" "rekey_seconds = 2" "nat_keepalive_seconds = 1"
# b sees a at the NAT's outside address
ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" "local_id = b.gostx.test" \
  "remote_id = a.gostx.test" "rekey_seconds = 3600"
if up_and_through "behind a NAT"; then
  grep -q 'NAT detection: a NAT in front of us$' "$T/a.log" &&
    grep -q 'NAT detection: a NAT in front of the peer$' "$T/b.log" &&
    grep -q 'IKE moves to 10.231.0.2:4500 (UDP encapsulation)$' "$T/a.log" &&
    ok "behind a NAT: detected by both, IKE moved: $(grep -m1 'NAT detection' "$T/a.log" | sed 's/.*ike: //')" ||
    bad "behind a NAT: a: $(cat "$T/a.log") b: $(cat "$T/b.log")"
  # masquerade random gave a's data port another one outside: b's ESP goes there
  port=$(grep -m1 "ESP goes to the peer's NAT mapping" "$T/b.log" | awk '{print $NF}')
  [ -n "$port" ] && [ "$port" != 4500 ] && grep -q "mapping 10.231.0.1 port $port$" "$T/b.log" &&
    ok "behind a NAT: b sends ESP to a's mapping, 10.231.0.1 port $port" ||
    bad "behind a NAT: no mapping followed: $(cat "$T/b.log")"
  st="$(tunnel_status $NA a ike_nat) $(tunnel_status $NA a ike_encap) / $(tunnel_status $NB b ike_nat)"
  st="$st $(tunnel_status $NB b ike_encap) $(tunnel_status $NB b ike_remote)"
  [ "$st" = "local yes / peer yes 10.231.0.1:$port" ] && ok "behind a NAT: --status a, b: ike_nat, ike_encap (ike_remote): $st" ||
    bad "behind a NAT: --status: $st"
  # keepalives only when a's data port sent nothing for an interval (RFC
  # 3948 4): none while a sends a datagram every 20 ms for 8 s, then some
  # once it is quiet
  WAIT=()
  ike_stream $NA $NB 10.232.0.2 "$T/ka.out" 400 200 0.02
  sleep 0.5 # (tunnel_counters waits 1.2 s for a fresh status file)
  k0=$(tunnel_counters $NB b rx_keepalive)
  sleep 3 # (a window: what counts is that none came in it)
  k1=$(tunnel_counters $NB b rx_keepalive)
  wait "${WAIT[@]}"
  got=$(echo $(cat "$T/ka.out"))
  [ "$got" = "received 400 distinct 400 bad 0" ] && [ "$k1" = "$k0" ] &&
    ok "behind a NAT: no keepalive while traffic flows (b's rx_keepalive $k0, 4 s later $k1)" ||
    bad "behind a NAT: keepalives during traffic: rx_keepalive $k0 then $k1; UDP $got"
  # then, quiet, some within a few intervals (polled: on a loaded 2-core CI
  # machine the stream's end and the status file lag; a fixed 2.5 s once
  # read the counter before the first keepalive)
  q0=$SECONDS
  for _ in $(seq $(bound 6)); do
    sleep 1
    k=$(tunnel_counters $NB b rx_keepalive)
    [ "$k" -gt "$k1" ] && break
  done
  [ "$k" -gt "$k1" ] && ok "behind a NAT: quiet $((SECONDS - q0)) s: b counted $((k - k1)) keepalives from a ($k in all)" ||
    bad "behind a NAT: rx_keepalive $k at b after $((SECONDS - q0)) s quiet"
  rekeyed "behind a NAT"
  # the NAT forgets its mappings (masquerade drops them with the address it
  # maps to): a's next IKE request (a rekey) comes from a new port, and b
  # follows it there (an authenticated, new message)
  ip -n $NR addr del 10.231.0.1/30 dev $VA && ip -n $NR addr add 10.231.0.1/30 dev $VA
  if wait_log b "the peer's NAT mapping moved" 80; then
    ok "behind a NAT: $(grep -m1 'mapping moved' "$T/b.log" | sed 's/.*ike: //')"
    moved=$(grep -m1 'mapping moved' "$T/b.log" | awk '{print $NF}')
    status_fresh b # a status file of the move
    [ "$(tunnel_status $NB b ike_remote)" = "10.231.0.1:$moved" ] && ok "behind a NAT: ike_remote moved too" ||
      bad "behind a NAT: ike_remote $(tunnel_status $NB b ike_remote), moved to $moved"
  else
    bad "behind a NAT: b did not follow the new mapping: $(tail -3 "$T/b.log")"
  fi
  through "behind a NAT, the mapping moved"
fi
both_stop
finish
