# Sourced (after netns.sh and ike_common.sh) by the gateway tests of a
# static site 1 ($NB, the pair of netns.sh) beside IKEv2 peers:
# test_tunnel_gateway_ra.sh and test_tunnel_gateway_sites.sh.

# gw_site1 GW_TUN S1_TUN: site 1's key files, the head of the gateway's
# config $T/gw.conf (on GW_TUN) with its [peer s1] section (remote_ts
# 10.1.0.0/16; the caller appends its IKEv2 sections), and site 1's own
# config $T/s1.conf (on S1_TUN); GW_DEV and S1_DEV those devices
gw_site1() {
  GW_DEV=$1 S1_DEV=$2
  head -c 32 /dev/urandom >"$T/g2s1.key"
  head -c 32 /dev/urandom >"$T/s12g.key"
  chmod 600 "$T/g2s1.key" "$T/s12g.key"
  gw_conf_head "$1" >"$T/gw.conf"
  cat >>"$T/gw.conf" <<EOF
[peer s1]
peer = 10.231.0.2:4500
transform = kuznyechik-mgm-ktree
spi_out = 4353
spi_in = 4609
key_out = $T/g2s1.key
key_in = $T/s12g.key
remote_ts = 10.1.0.0/16

EOF
  TUN=$2 tunnel_conf s1 10.231.0.2 10.231.0.1 4609 4353 s12g.key g2s1.key
}
# gw_start NET...: the gateway of $T/gw.conf in $NA (PID_gw; its log
# $T/gw.log), its host 10.99.0.1 on its device, and site 1 in $NB (its
# host 10.1.0.1): each routes to the other and to NET... through its
# device. 1 (said) when either is not up within the bound.
gw_start() {
  ip netns exec $NA "$G" tunnel -c "$T/gw.conf" --new-keys 2>"$T/gw.log" </dev/null >/dev/null &
  PID_gw=$!
  PIDS+=($!)
  for _ in $(seq $(bound 100)); do grep -q ' up, ' "$T/gw.log" && break; sleep 0.05; done
  grep -q ' up, ' "$T/gw.log" || { bad "gateway did not start: $(tail -3 "$T/gw.log")"; return 1; }
  ip -n $NA addr add 10.99.0.1/32 dev $GW_DEV
  ip -n $NA link set $GW_DEV up
  local net
  for net in 10.1.0.0/16 "$@"; do ip -n $NA route add $net dev $GW_DEV src 10.99.0.1; done
  TUN=$S1_DEV tunnel_start s1 $NB || { bad "site 1 did not start: $(tail -3 "$T/s1.log")"; return 1; }
  ip -n $NB addr add 10.1.0.1/32 dev $S1_DEV
  for net in 10.99.0.0/16 "$@"; do ip -n $NB route add $net dev $S1_DEV src 10.1.0.1; done
}
# answered NS FROM TO [COUNT]: how many of COUNT (3) pings from FROM to TO were answered
answered() {
  ip netns exec $1 timeout 60 ping -q -c ${4:-3} -i 0.2 -W $(bound 1) -I $2 $3 2>/dev/null |
    awk '/received/ {print $4}'
}
# peer_value STATUS NAME KEY: KEY's value in the peer NAME's line
peer_value() {
  awk -v n="$2" -v k="$3" '$1 == "peer" && $2 == n { for (i = 4; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$1"
}
