#!/usr/bin/env bash
# iperf3 through two network namespaces joined by a veth pair: no tunnel,
# gostx tunnel with Kuznyechik-MGM and Magma-MGM (RFC 9227 transforms),
# wireguard-go (ChaCha20-Poly1305, userspace like gostx) and OpenVPN 2.6
# with AES-256-GCM (userspace, one thread). Root; Debian packages iproute2,
# iperf3, wireguard-go, wireguard-tools, openvpn, openssl (those missing are
# skipped with a note).
#   usage: bench/net_tunnel.sh [SECONDS (5)] [STREAMS (1)]
# Prints one line per setup: Mbit/s at the receiver.
set -u
SECS=${1:-5}
STREAMS=${2:-1}
G=${GOSTX:-build/gostx}
[ "$(id -u)" = 0 ] || { echo "net_tunnel: needs root"; exit 1; }
NA=gxba$$ NB=gxbb$$ VA=gxbva$$ VB=gxbvb$$
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  ip netns del $NA 2>/dev/null
  ip netns del $NB 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/../tests/net/netns.sh"
netns_pair || { echo "net_tunnel: cannot make the namespaces"; exit 1; }

bg() { # NS LOGNAME COMMAND...: runs in the background, pid kept
  local ns=$1 log=$2
  shift 2
  ip netns exec "$ns" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/pid" "$@" >>"$T/$log.log" 2>&1 &
  for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
  PIDS+=($(cat "$T/pid"))
  rm -f "$T/pid"
}
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1
  PIDS=()
}
wait_dev() { for _ in $(seq 50); do ip -n $1 link show $2 >/dev/null 2>&1 && return; sleep 0.1; done; }
measure() { # NAME SERVER_ADDR
  ip netns exec $NB timeout $((SECS + 20)) iperf3 -s -1 -B $2 >/dev/null 2>&1 &
  local s=$!
  sleep 0.5
  local r
  r=$(ip netns exec $NA timeout $((SECS + 15)) iperf3 -c $2 -t "$SECS" -P "$STREAMS" -f m 2>&1 |
    awk '/receiver/ {v = $(NF-2)} END {print v}')
  wait $s 2>/dev/null
  printf '%-34s %8s Mbit/s\n' "$1" "${r:-failed}"
}

echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), iperf3 ${SECS}s x $STREAMS stream(s)"
[ -n "${ONLY_PEERS:-}" ] || measure "veth, no tunnel" 10.231.0.2

gostx_run() { # TRANSFORM SALT
  head -c 32 /dev/urandom >"$T/k1"
  head -c 32 /dev/urandom >"$T/k2"
  rm -f "$T"/*.seq
  for side in a b; do
    if [ $side = a ]; then l=10.231.0.1 p=10.231.0.2 o=0x1001 i=0x2002 ko=k1 ki=k2 ns=$NA ad=10.232.0.1
    else l=10.231.0.2 p=10.231.0.1 o=0x2002 i=0x1001 ko=k2 ki=k1 ns=$NB ad=10.232.0.2; fi
    printf 'local = %s:4500\npeer = %s:4500\ntun = gxb0\ntransform = %s\nspi_out = %s\nspi_in = %s\nkey_out = %s\nkey_in = %s\nstate = %s\n' \
      $l $p "$1" $o $i "$T/$ko" "$T/$ki" "$T/$side.seq" >"$T/$side.conf"
    bg $ns gostx-$side "$G" tunnel -c "$T/$side.conf"
    wait_dev $ns gxb0
    ip -n $ns addr add $ad/30 dev gxb0
  done
  measure "gostx tunnel $1" 10.232.0.2
  stop_all
}
if [ -x "$G" ] && [ -z "${ONLY_PEERS:-}" ]; then
  gostx_run kuznyechik-mgm-ktree
  gostx_run magma-mgm-ktree
elif [ -z "${ONLY_PEERS:-}" ]; then
  echo "gostx: $G not built: skipped"
fi

if command -v wireguard-go >/dev/null && command -v wg >/dev/null; then
  # one name per side: wireguard-go's control socket (/var/run/wireguard/NAME.sock)
  # is a file, shared by the namespaces
  (umask 077; for side in a b; do wg genkey >"$T/wg$side.key"; wg pubkey <"$T/wg$side.key" >"$T/wg$side.pub"; done)
  for side in a b; do
    if [ $side = a ]; then ns=$NA ad=10.233.0.1 peer=b ep=10.231.0.2; else ns=$NB ad=10.233.0.2 peer=a ep=10.231.0.1; fi
    dev=gxwg$side$$
    rm -f /var/run/wireguard/$dev.sock
    bg $ns wg-$side env WG_PROCESS_FOREGROUND=1 wireguard-go -f $dev
    wait_dev $ns $dev
    ip netns exec $ns wg set $dev private-key "$T/wg$side.key" listen-port 51820 \
      peer "$(cat "$T/wg$peer.pub")" allowed-ips 10.233.0.0/30 endpoint $ep:51820
    ip -n $ns addr add $ad/30 dev $dev
    ip -n $ns link set $dev mtu 1420 up
  done
  measure "wireguard-go (ChaCha20-Poly1305)" 10.233.0.2
  stop_all
else
  echo "wireguard-go: not installed (apt-get install wireguard-go wireguard-tools): skipped"
fi

if command -v openvpn >/dev/null && command -v openssl >/dev/null; then
  for side in a b; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
      -subj "/CN=$side" -keyout "$T/ov$side.key" -out "$T/ov$side.crt" 2>/dev/null
  done
  fp() { openssl x509 -fingerprint -sha256 -noout -in "$1" | cut -d= -f2; }
  bg $NA ovpn-a openvpn --dev gxov0 --dev-type tun --proto udp --local 10.231.0.1 --remote 10.231.0.2 \
    --port 1194 --tls-server --dh none --cert "$T/ova.crt" --key "$T/ova.key" \
    --peer-fingerprint "$(fp "$T/ovb.crt")" --ifconfig 10.234.0.1 10.234.0.2 \
    --data-ciphers AES-256-GCM --verb 1
  bg $NB ovpn-b openvpn --dev gxov0 --dev-type tun --proto udp --local 10.231.0.2 --remote 10.231.0.1 \
    --port 1194 --tls-client --cert "$T/ovb.crt" --key "$T/ovb.key" \
    --peer-fingerprint "$(fp "$T/ova.crt")" --ifconfig 10.234.0.2 10.234.0.1 \
    --data-ciphers AES-256-GCM --verb 1
  for _ in $(seq 100); do grep -q 'Initialization Sequence Completed' "$T/ovpn-b.log" 2>/dev/null && break; sleep 0.1; done
  if grep -q 'Initialization Sequence Completed' "$T/ovpn-b.log"; then
    measure "openvpn 2.6 (AES-256-GCM)" 10.234.0.2
  else
    echo "openvpn: did not come up: $(tail -2 "$T/ovpn-b.log")"
  fi
  stop_all
else
  echo "openvpn: not installed: skipped"
fi
