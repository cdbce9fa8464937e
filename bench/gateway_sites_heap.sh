#!/usr/bin/env bash
# A gateway's heap per IKEv2 site (issue 81: memory per established peer),
# configured and up. Two namespaces joined by a veth pair
# (bench/net_common.sh): in one the `gostx tunnel` gateway with N [peer]
# sections of keying = ikev2 (PSK, remote_ts 10.1xx.y.0/24), in the other N
# point-to-point tunnels with keying = ikev2 (one address, a port each,
# ike_initiate = yes), one per site. Run for FEW and MANY sites, the
# gateway's heap_bytes (its status; glibc's per-thread cache off, so that
# freed chunks count as free) before any site is up and once all are: the
# differences between the two runs, per site, are a configured site's
# slot and an established site (the first SAs' one-time tables, made in
# both runs, left out). Root.
#   usage: bench/gateway_sites_heap.sh [FEW [MANY]]   (4, 24)
#   GOSTX=PATH: the gostx binary (build/gostx)
set -u
FEW=${1:-4} MANY=${2:-24}
G=${GOSTX:-build/gostx}
[ "$(id -u)" = 0 ] || { echo "gateway_sites_heap: needs root"; exit 1; }
. "$(dirname "$0")/net_common.sh"

# run N: "IDLE UP", the gateway's heap_bytes with N sites configured,
# before any is up and once all are (a line said when not all came up)
run() {
  local n=$1 i idle up k
  printf 'local = 10.231.0.1:4500\ntun = gxbh0\nstate = %s\nthreads = 1\n\n' "$T/gw$n.state" \
    >"$T/gw$n.conf"
  for i in $(seq 1 "$n"); do
    [ -e "$T/s$i.psk" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/s$i.psk"
    chmod 600 "$T/s$i.psk"
    printf '[peer s%d]\nkeying = ikev2\npeer = 10.231.0.2:%d\nremote_id = s%d.sites.test\n' \
      "$i" $((4500 + i)) "$i" >>"$T/gw$n.conf"
    printf 'local_id = gw.sites.test\npsk = %s\nremote_ts = 10.%d.%d.0/24\n\n' "$T/s$i.psk" \
      $((100 + i / 250)) $((i % 250)) >>"$T/gw$n.conf"
    printf '%s\n' "local = 10.231.0.2:$((4500 + i))" "peer = 10.231.0.1:4500" "tun = gxbs$i" \
      "threads = 1" "keying = ikev2" "ike_port = $((4500 + i))" "ike_initiate = yes" \
      "ike_auth = psk" "psk = $T/s$i.psk" "local_id = s$i.sites.test" \
      "remote_id = gw.sites.test" "state = $T/s$i.state" >"$T/s$i.conf"
  done
  GLIBC_TUNABLES=glibc.malloc.tcache_count=0 bg $NA gw$n "$G" tunnel -c "$T/gw$n.conf" --new-keys
  for _ in $(seq 100); do grep -q ' up, ' "$T/gw$n.log" && break; sleep 0.05; done
  sleep 2.5 # the status file, written every second
  idle=$(ip netns exec $NA "$G" tunnel --status -c "$T/gw$n.conf" | sed -n 's/^heap_bytes //p')
  for i in $(seq 1 "$n"); do bg $NB s$i "$G" tunnel -c "$T/s$i.conf"; done
  for _ in $(seq 600); do
    k=$(grep -c 'IKE SA with .* established' "$T/gw$n.log")
    [ "$k" -ge "$n" ] && break
    sleep 0.1
  done
  [ "$k" -ge "$n" ] || echo "gateway_sites_heap: $k of $n sites up: $(tail -2 "$T/gw$n.log")" >&2
  sleep 3
  up=$(ip netns exec $NA "$G" tunnel --status -c "$T/gw$n.conf" | sed -n 's/^heap_bytes //p')
  stop_all
  echo "$idle $up"
}
read -r i1 u1 <<<"$(run "$FEW")"
read -r i2 u2 <<<"$(run "$MANY")"
echo "gateway heap_bytes: $FEW sites: $i1 configured, $u1 up; $MANY sites: $i2 configured, $u2 up"
echo "per site: configured $(((i2 - i1) / (MANY - FEW))) B, established $(((u2 - u1) / (MANY - FEW))) B" \
  "(up over configured: $((((u2 - u1) - (i2 - i1)) / (MANY - FEW))) B)"
