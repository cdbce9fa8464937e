# Sourced by bench/net_tunnel.sh and bench/net_scaling.sh: two namespaces
# joined by a veth pair (tests/net/netns.sh), a temp dir $T, background
# processes kept in PIDS and killed on exit, and the counters both benches read.
NA=gxba$$ NB=gxbb$$ VA=gxbva$$ VB=gxbvb$$
NC=gxbc$$ VC=gxbvc$$ VD=gxbvd$$ # a third, when a bench makes it (hosts_behind)
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  ip netns del $NA 2>/dev/null
  ip netns del $NB 2>/dev/null
  ip netns del $NC 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/../tests/net/netns.sh"
netns_pair || { echo "$(basename "$0"): cannot make the namespaces"; exit 1; }

bg() { # NS LOGNAME COMMAND...: runs in the background, pid kept
  local ns=$1 log=$2
  shift 2
  ip netns exec "$ns" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/pid" "$@" >>"$T/$log.log" 2>&1 &
  for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
  PIDS+=($(cat "$T/pid"))
  rm -f "$T/pid"
}
stop_all() { # and wait for them to be gone (10 s at most): the next setup reuses their devices and ports
  local p _
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  PIDS=()
}
# veth_napi NS DEV: DEV's receive in its own NAPI kernel thread (GRO on,
# UDP GRO forwarding so plain datagrams and forwarded TSO packets take it,
# threaded), as a NIC's runs in its softirq: without it a veth's receiver's
# stack runs inside the sender's system call and is charged to the sender.
# Prints nothing; returns 1 where the kernel or ethtool cannot.
veth_napi() {
  command -v ethtool >/dev/null || return 1
  ip netns exec "$1" ethtool -K "$2" gro on rx-udp-gro-forwarding on >/dev/null 2>&1 || return 1
  ip netns exec "$1" sh -c "echo 1 >/sys/class/net/$2/threaded" 2>/dev/null
}
# hosts_behind: namespace NC (the hosts behind B: 10.250.0.1) joined to NB
# by a veth pair (10.233.0.1 in NB, .2 in NC), NB forwarding to it; every
# veth end's receive in its NAPI thread where the kernel allows. Prints the
# shape in one line.
hosts_behind() {
  ip netns add $NC || return 1
  ip link add $VC netns $NB type veth peer name $VD netns $NC || return 1
  ip -n $NC link set lo up
  ip netns exec $NC sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n $NB addr add 10.233.0.1/30 dev $VC && ip -n $NB link set $VC up &&
    ip -n $NC addr add 10.233.0.2/30 dev $VD && ip -n $NC link set $VD up &&
    ip -n $NC addr add 10.250.0.1/32 dev lo && ip -n $NC route add default via 10.233.0.1 &&
    ip -n $NB route add 10.250.0.0/24 via 10.233.0.2 || return 1
  ip netns exec $NB sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0
  local napi=yes
  veth_napi $NA $VA && veth_napi $NB $VB && veth_napi $NB $VC && veth_napi $NC $VD || napi=no
  # forwarded packets take VD's NAPI only when VC cannot take TSO packets
  # (the kernel's veth GRO rule): VC cuts them in software, in B's calls,
  # as a NIC without TSO would have its driver do
  ip netns exec $NB ethtool -K $VC tso off >/dev/null 2>&1
  echo "# the hosts behind in a third namespace, forwarded to over a veth; veth receive in NAPI threads: $napi"
}
wait_dev() { for _ in $(seq 50); do ip -n $1 link show $2 >/dev/null 2>&1 && return; sleep 0.1; done; }
# rx bytes and packets of device $2 in namespace $1
dev_rx() { ip -n $1 -s -j link show $2 | python3 -c \
  'import json,sys; s=json.load(sys.stdin)[0]["stats64"]["rx"]; print(s["bytes"], s["packets"])'; }
# CPU clock ticks (utime + stime) of the processes named
ticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat 2>/dev/null || echo 0))); done
  echo $t
}
# the same, system time (stime) alone: the kernel's share
sys_ticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $15}' /proc/$p/stat 2>/dev/null || echo 0))); done
  echo $t
}
HZ=$(getconf CLK_TCK)

# gostx tunnel on both sides, TUN gxb0 addressed 10.232.0.1 (a) and
# 10.232.0.2 (b), over the veth; CPUS_A / CPUS_B, when given, are taskset
# lists that pin each side's process; UDP_OFFLOAD and TUN_OFFLOAD (on/off),
# when set, go into both configs.
gostx_up() { # TRANSFORM THREADS [CPUS_A CPUS_B]
  head -c 32 /dev/urandom >"$T/k1"
  head -c 32 /dev/urandom >"$T/k2"
  chmod 600 "$T/k1" "$T/k2"
  rm -f "$T"/*.seq*
  local side l p o i ko ki ns ad cpus pin
  for side in a b; do
    if [ $side = a ]; then l=10.231.0.1 p=10.231.0.2 o=0x1001 i=0x2002 ko=k1 ki=k2 ns=$NA ad=10.232.0.1 cpus=${3:-}
    else l=10.231.0.2 p=10.231.0.1 o=0x2002 i=0x1001 ko=k2 ki=k1 ns=$NB ad=10.232.0.2 cpus=${4:-}; fi
    printf 'local = %s:4500\npeer = %s:4500\ntun = gxb0\nmtu = 1400\ntransform = %s\nspi_out = %s\nspi_in = %s\nkey_out = %s\nkey_in = %s\nstate = %s\nthreads = %s\n' \
      $l $p "$1" $o $i "$T/$ko" "$T/$ki" "$T/$side.seq" "$2" >"$T/$side.conf"
    [ -n "${UDP_OFFLOAD:-}" ] && echo "udp_offload = $UDP_OFFLOAD" >>"$T/$side.conf"
    [ -n "${TUN_OFFLOAD:-}" ] && echo "tun_offload = $TUN_OFFLOAD" >>"$T/$side.conf"
    [ -n "${TIMING:-}" ] && echo "timing = $TIMING" >>"$T/$side.conf"
    pin=()
    [ -n "$cpus" ] && pin=(taskset -c "$cpus")
    bg $ns gostx-$side "${pin[@]}" "$G" tunnel -c "$T/$side.conf" --new-keys # new each time
    wait_dev $ns gxb0
    ip -n $ns addr add $ad/30 dev gxb0
  done
}
