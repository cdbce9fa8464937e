#!/usr/bin/env bash
# gostx tunnel as a gateway of many peers (docs/TUNNEL.md, "Gateway (many
# peers)") under TCP from all of them at once, against the point-to-point
# tunnel on the same machine in the same run. Two namespaces joined by a
# veth pair (bench/net_common.sh): in one, SITES sites (default 64), each
# its own `gostx tunnel` (static keys, its own UDP port and TUN device, one
# worker, inner address 10.240.I.1 routed by a rule of its own); in the
# other, the gateway (a [peer] per site, remote_ts 10.240.I.0/24); the
# iperf3 servers behind it (10.250.0.1) in a third namespace (BEHIND below).
# Each site carries one TCP stream (iperf3 -P 1 from its inner address) to
# the servers, all at once.
# Root; Debian packages iproute2, iperf3 and ethtool.
#   usage: bench/net_gateway.sh [SECONDS (4)] [RUNS (3)]
#   QUICK=1: 8 sites, 2 s, one run (a smoke run of the script itself)
#   SITES=N, TRANSFORMS="kuznyechik-mgm-ktree magma-mgm-ktree" (default
#   both), THREADS="1 2" (the gateway's workers), GOSTX=PATH (another build),
#   GOSTX_SITES=PATH (the sites' build, when not GOSTX's), ACTIVE=N: only N
#   of the sites carry a stream at once (spread over them; the others idle),
#   TIMING=yes: the gateway's own split of its CPU per packet
#   PIN=1: the receiving tunnel (the gateway, the single peer's far end)
#   and its namespace's NAPI threads on the last CPU, the senders (sites,
#   the single peer's near end) and every iperf3 on the others, so that
#   the measured side's CPU per byte is not shared with what loads it
#   RATE=MBIT: every row's streams together offered MBIT Mbit/s (iperf3 -b,
#   split evenly), so that the receiving side's CPU per byte is compared
#   at one packet rate (a tunnel's batches, hence its CPU per byte, grow
#   with its rate: rows that carry different rates are not comparable)
#   PERF=FILE: `perf record -g` of the receiving tunnel process over the
#   measured seconds of each run (FILE.single, FILE.singleN, FILE.t1,
#   FILE.t2, FILE.kernel.*: the last run's of each row; `perf report -i` it)
#   BEHIND=0: the iperf3 servers in the gateway's own namespace (on its TUN
#   address), as before 2026-11-30 11:00Z: their TCP receive then runs in
#   the gateway's TUN writes and the sites' UDP receive in its sendmmsg
#   (veth), charged to the gateway. Default (BEHIND=1): the servers are hosts
#   behind the gateway in a third namespace, forwarded to over a veth, and
#   every veth's receive runs in its own NAPI thread (bench/net_common.sh
#   hosts_behind), as a NIC's would: the gateway pays for what a gateway
#   does (its TUN, routing, its sends), the receivers for theirs. The single
#   peer rows run in the same shape.
# Rows, per transform, the median (by Gbit/s) of RUNS runs, each measured
# over SECONDS in the middle of the streams (after they all started):
#   single peer  net_tunnel.sh's "tcp x1" setup (gostx_up: one tunnel each
#                side, one worker), one TCP stream
#   gateway tN   the SITES sites' streams through the gateway of N workers
#   Gbit/s       IP bytes the receiving side's TUN device(s) delivered
#                (BEHIND=1: the bytes the hosts behind received)
#   kpps         their packets, thousands per second
#   cpu s/GB     CPU seconds (utime + stime) of the receiving tunnel
#                process (the gateway; in the single-peer row the peer on
#                the gateway's side) per 10^9 bytes delivered, not the
#                senders' (SITES processes here and one there); with
#                BEHIND=1 also the NAPI threads of its namespace's
#                veths (its own receive and forwarding in the kernel)
#   user         the same, its user time alone (with BEHIND=0 the
#                receivers' stacks, the sites' UDP and the iperf3 servers'
#                TCP, run in the sender's system calls, in its stime)
#   napi         the part of cpu s/GB that is the NAPI threads' (BEHIND=1)
#   single peer t1, N streams  the gateway's N streams (ACTIVE) through
#                the single peer's one SA pair: the same traffic, one key
#   kernel IPsec the kernel's ESP (BEHIND=1, where the kernel has it: a
#                line says why not), the same rows; not run on the
#                2026-11-30 host (its kernel has no esp4)
# Then the ratios the issue asks (81): gateway t1 Gbit/s >= 0.95x single,
# its CPU s/GB <= 1.05x single's, t2 >= 1.7x t1 where the cores allow.
set -u
SECS=${1:-4}
RUNS=${2:-3}
SITES=${SITES:-64}
if [ -n "${QUICK:-}" ]; then SITES=${SITES_QUICK:-8} SECS=2 RUNS=1; fi
G=${GOSTX:-build/gostx}
# PIN: RECV_PIN / SEND_PIN, the taskset prefixes of either side (empty: none)
RECV_PIN=() SEND_PIN=()
if [ -n "${PIN:-}" ] && [ "$(nproc)" -ge 2 ]; then
  RECV_PIN=(taskset -c $(($(nproc) - 1))) SEND_PIN=(taskset -c 0-$(($(nproc) - 2)))
fi
GS=${GOSTX_SITES:-$G} # the sites' build (A/B runs of the gateway alone)
[ "$(id -u)" = 0 ] || { echo "net_gateway: needs root"; exit 1; }
command -v iperf3 >/dev/null || { echo "net_gateway: iperf3 missing"; exit 1; }
[ -x "$G" ] || { echo "net_gateway: $G not built"; exit 1; }
. "$(dirname "$0")/net_common.sh"
# the sites' replies come in on other devices than the main table's route
ip netns exec $NA sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
# where the iperf3 servers listen: SRV (namespace), GW_ADDR (the gateway
# rows), SINGLE_ADDR (the single peer's)
BEHIND=${BEHIND:-1}
# BOX: the NAPI threads of the gateway's namespace's veths (its receive and
# forwarding in the kernel, counted with its process; and alone in the
# kernel IPsec rows); RX_AT: where the delivered bytes are counted
BOX= RX_AT=
if [ "$BEHIND" = 1 ]; then
  hosts_behind || { echo "net_gateway: cannot make the hosts' namespace"; exit 1; }
  SRV=$NC GW_ADDR=10.250.0.1 SINGLE_ADDR=10.250.0.1 RX_AT=$NC:$VD
  BOX=$(ps -eo pid=,args= | awk -v a="[napi/$VB-" -v b="[napi/$VC-" \
    'index($2, a) == 1 || index($2, b) == 1 { printf "%s ", $1 }')
else
  SRV=$NB GW_ADDR=10.250.0.1 SINGLE_ADDR=10.232.0.2
fi
for p in $BOX; do [ ${#RECV_PIN[@]} = 0 ] || taskset -p -c "${RECV_PIN[2]}" $p >/dev/null; done
# steady DEV SERVER_ADDR "CPU_PIDS" SRC...: one iperf3 TCP stream from each
# SRC (in $NA) to SERVER_ADDR (in $SRV), all at once; prints "Gbit/s kpps
# cpu_s_per_GB user_s_per_GB" over SECS once they all run (DEV: the device
# whose received bytes count, NS:DEV or in $NB; CPU_PIDS: the processes and
# threads whose CPU is counted, the first one's recorded with PERF)
steady() {
  local dev=$1 addr=$2 cpu=$3 k=0 s r0 p0 t0 k0 n0 r1 p1 t1 k1 n1 run=() ns=$NB
  shift 3
  case $dev in *:*) ns=${dev%%:*} dev=${dev#*:} ;; esac
  for s in "$@"; do
    ip netns exec $SRV "${SEND_PIN[@]}" timeout $((SECS + 60)) iperf3 -s -1 -B $addr -p $((5300 + k)) >/dev/null 2>&1 &
    run+=($!)
    k=$((k + 1))
  done
  sleep 1
  k=0
  local rate=()
  [ -n "${RATE:-}" ] && rate=(-b "$((RATE * 1000 / $#))K")
  for s in "$@"; do
    ip netns exec $NA "${SEND_PIN[@]}" timeout $((SECS + 50)) iperf3 -c $addr -p $((5300 + k)) -B $s -t $((SECS + 4)) \
      -P 1 "${rate[@]}" >>"$T/iperf.log" 2>&1 &
    run+=($!)
    k=$((k + 1))
  done
  sleep 2 # every stream connected and past its slow start
  read -r r0 p0 < <(dev_rx $ns $dev)
  # shellcheck disable=SC2086
  t0=$(ticks $cpu)
  # shellcheck disable=SC2086
  k0=$(sys_ticks $cpu)
  # shellcheck disable=SC2086
  n0=$(ticks $BOX)
  if [ -n "${PERF:-}" ]; then # FILE.ROW (ROW: single, singleN, t1, t2)
    perf record -g -q -o "$PERF.$ROW" -p "${cpu%% *}" -- sleep "$SECS" >/dev/null 2>&1
  else
    sleep "$SECS"
  fi
  # shellcheck disable=SC2086
  t1=$(ticks $cpu)
  # shellcheck disable=SC2086
  k1=$(sys_ticks $cpu)
  # shellcheck disable=SC2086
  n1=$(ticks $BOX)
  read -r r1 p1 < <(dev_rx $ns $dev)
  wait "${run[@]}" 2>/dev/null
  awk -v b=$((r1 - r0)) -v p=$((p1 - p0)) -v c=$((t1 - t0)) -v u=$((t1 - t0 - k1 + k0)) -v n=$((n1 - n0)) \
    -v hz=$HZ -v s="$SECS" 'BEGIN {
    printf "%.3f %.1f %s %s %s\n", b * 8 / s / 1e9, p / s / 1e3, b ? sprintf("%.2f", c / hz / (b / 1e9)) : "-",
      b ? sprintf("%.2f", u / hz / (b / 1e9)) : "-", b ? sprintf("%.2f", n / hz / (b / 1e9)) : "-" }'
}
median() { # the median (by Gbit/s) of RUNS runs of steady ARGS...
  for _ in $(seq "$RUNS"); do steady "$@"; done | sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'
}
row() { # NAME TRANSFORM FIGURES: printed and kept in $T/rows
  printf '%-44s %8s %9s %8s %8s %8s\n' "$1" $3
  echo "$1|$2|$3" >>"$T/rows"
}

# the sites' keys (one pair each: the gateway refuses a key shared by two
# SAs) and the policy rules that send each site's inner address into its TUN
for i in $(seq "$SITES"); do
  head -c 32 /dev/urandom >"$T/g2s$i.key"
  head -c 32 /dev/urandom >"$T/s2g$i.key"
  ip -n $NA rule add from 10.240.$i.1 table $((100 + i))
done
chmod 600 "$T"/*.key

# gateway_up TRANSFORM WORKERS: the gateway in $NB (its pid in GW), then
# the sites in $NA, each with its address and route on its TUN device
gateway_up() {
  local i c=$T/gw.conf
  printf '%s\n' "local = 10.231.0.2:4500" "tun = gxg0" "mtu = 1400" "state = $T/gw.state" \
    "threads = $2" >"$c"
  [ -n "${TIMING:-}" ] && echo "timing = $TIMING" >>"$c" # its phases' CPU in the status file
  for i in $(seq "$SITES"); do
    printf '%s\n' "" "[peer s$i]" "peer = 10.231.0.1:$((5000 + i))" "transform = $1" \
      "spi_out = $((0x10000 + i))" "spi_in = $((0x20000 + i))" "key_out = $T/g2s$i.key" \
      "key_in = $T/s2g$i.key" "remote_ts = 10.240.$i.0/24" >>"$c"
  done
  rm -f "$T"/gw.state* "$T"/s*.state*
  bg $NB gw "${RECV_PIN[@]}" "$G" tunnel -c "$c" --new-keys
  GW=${PIDS[-1]}
  wait_dev $NB gxg0
  [ "$BEHIND" = 1 ] || ip -n $NB addr add 10.250.0.1/32 dev gxg0
  ip -n $NB link set gxg0 up
  if [ "$BEHIND" = 1 ]; then ip -n $NB route add 10.240.0.0/16 dev gxg0
  else ip -n $NB route add 10.240.0.0/16 dev gxg0 src 10.250.0.1; fi
  for i in $(seq "$SITES"); do
    printf '%s\n' "local = 10.231.0.1:$((5000 + i))" "peer = 10.231.0.2:4500" "tun = gxs$i" \
      "mtu = 1400" "transform = $1" "spi_out = $((0x20000 + i))" "spi_in = $((0x10000 + i))" \
      "key_out = $T/s2g$i.key" "key_in = $T/g2s$i.key" "state = $T/s$i.state" "threads = 1" \
      >"$T/s$i.conf"
    bg $NA s$i "${SEND_PIN[@]}" "$GS" tunnel -c "$T/s$i.conf" --new-keys
  done
  for i in $(seq "$SITES"); do
    wait_dev $NA gxs$i
    ip -n $NA addr add 10.240.$i.1/32 dev gxs$i
    ip -n $NA link set gxs$i up
    ip -n $NA route add 10.250.0.0/24 dev gxs$i src 10.240.$i.1 table $((100 + i))
  done
}
# the gateway's drops (none expected), how its workers shared the packets,
# the packets delivered per joined TUN write (about what a write carried) and,
# with TIMING=yes, its phases' CPU per packet (all runs together)
gw_counters() {
  sleep 1.2 # a status written after the run
  awk '$1 ~ /^(tx_noroute|rx_selector|rx_auth|rx_replay|rx_packets_by_worker)$/ {
    $1 = $1; printf "%s%s", sep, $0; sep = "; " }
    { v[$1] = $2 }
    END { if (v["rx_packets"] > 0) {
        if (v["tun_gso_out"] > 0) printf "; packets a joined TUN write %.1f", v["rx_packets"] / v["tun_gso_out"]
        if (v["ns_worker_cpu"] > 0)
          printf "; ns a packet: worker %.0f, seal %.0f, open %.0f, TUN write %.0f, UDP recv %.0f, TUN read %.0f, UDP send %.0f",
            v["ns_worker_cpu"] / v["rx_packets"], v["ns_seal"] / v["rx_packets"], v["ns_open"] / v["rx_packets"],
            v["ns_tun_write"] / v["rx_packets"], v["ns_udp_recv"] / v["rx_packets"],
            v["ns_tun_read"] / v["rx_packets"], v["ns_udp_send"] / v["rx_packets"] }
      print "" }' "$T/gw.state.status" 2>/dev/null
}

echo "# $(nproc) CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $SITES sites (${ACTIVE:-$SITES} carrying a stream), iperf3 TCP one stream each${RATE:+, all streams of a row $RATE Mbit/s together}, ${SECS}s measured, median of $RUNS runs; MTU 1400"
printf '%-44s %8s %9s %8s %8s %8s\n' setup Gbit/s kpps "cpu s/GB" "user" "napi"
# the sites that carry a stream: ACTIVE of them (default all), spread over
# the SITES (every SITES / ACTIVE-th), the others configured and idle
ACTIVE=${ACTIVE:-$SITES}
srcs=()
ssrcs=() # the single peer's as many streams' sources
for i in $(seq "$ACTIVE"); do
  srcs+=(10.240.$(((i - 1) * SITES / ACTIVE + 1)).1)
  ssrcs+=(10.232.1.$i)
done
for tr in ${TRANSFORMS:-kuznyechik-mgm-ktree magma-mgm-ktree}; do
  gostx_up "$tr" 1 "${SEND_PIN[2]:-}" "${RECV_PIN[2]:-}"
  [ "$BEHIND" = 1 ] && ip -n $NA route add 10.250.0.0/24 dev gxb0
  ROW=single
  row "$tr single peer t1" "$tr|single" "$(median ${RX_AT:-gxb0} $SINGLE_ADDR "${PIDS[1]} $BOX" 10.232.0.1)"
  if [ "$ACTIVE" -gt 1 ]; then # the gateway's streams through the one SA pair
    for i in $(seq "$ACTIVE"); do ip -n $NA addr add 10.232.1.$i/32 dev gxb0; done
    ip -n $NB route add 10.232.1.0/24 dev gxb0
    ROW=singleN
    row "$tr single peer t1, $ACTIVE streams" "$tr|singleN" "$(median ${RX_AT:-gxb0} $SINGLE_ADDR "${PIDS[1]} $BOX" "${ssrcs[@]}")"
  fi
  stop_all
  for w in ${THREADS:-1 2}; do
    gateway_up "$tr" "$w"
    ROW=t$w
    row "$tr gateway $SITES sites${ACTIVE:+ ($ACTIVE on)} t$w" "$tr|t$w" "$(median ${RX_AT:-gxg0} $GW_ADDR "$GW $BOX" "${srcs[@]}")"
    echo "#   gateway t$w: $(gw_counters)"
    stop_all
  done
done
# The kernel's IPsec (ESP in tunnel mode), the data path strongSwan installs
# for its gateway (charon negotiates no GOST transform, so the SAs are set by
# hand with ip xfrm, as charon would install them): the same streams through
# one SA pair, then through an SA pair per site, the same hosts behind. Its
# CPU is the gateway namespace's NAPI threads (BOX), where it decrypts,
# forwards and encrypts. AES-GCM (rfc4106(gcm(aes)), 128-bit keys, a 16-byte
# ICV) where the kernel has it, else AES-CBC with HMAC-SHA-256 (128-bit ICV),
# the row named by which. With BEHIND=1 and where the kernel has xfrm.
xfrm_key() { printf '0x%s' "$(head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n')"; }
XFRM_ALG=aes-gcm
xfrm_state() { # NS SRC DST SPI REQID: one SA of XFRM_ALG, keys from $T/xfrm.SPI
  [ -s "$T/xfrm.$4" ] || { xfrm_key 20; echo; xfrm_key 16; echo; xfrm_key 32; echo; } >"$T/xfrm.$4"
  local k
  mapfile -t k <"$T/xfrm.$4"
  if [ $XFRM_ALG = aes-gcm ]; then
    ip -n $1 xfrm state add src $2 dst $3 proto esp spi $4 reqid $5 mode tunnel aead 'rfc4106(gcm(aes))' ${k[0]} 128
  else
    ip -n $1 xfrm state add src $2 dst $3 proto esp spi $4 reqid $5 mode tunnel enc 'cbc(aes)' ${k[1]} \
      auth-trunc 'hmac(sha256)' ${k[2]} 128
  fi
}
xfrm_sa() { # SPI_AB SPI_BA REQID: one SA pair between the outer addresses, in both namespaces
  local ns
  for ns in $NA $NB; do
    xfrm_state $ns 10.231.0.1 10.231.0.2 $1 $3 && xfrm_state $ns 10.231.0.2 10.231.0.1 $2 $3 || return 1
  done
}
xfrm_pol() { # PREFIX_A PREFIX_B REQID: A's PREFIX_A (local) to B's PREFIX_B (forwarded) through REQID
  local ab="tmpl src 10.231.0.1 dst 10.231.0.2 proto esp reqid $3 mode tunnel"
  local ba="tmpl src 10.231.0.2 dst 10.231.0.1 proto esp reqid $3 mode tunnel"
  # shellcheck disable=SC2086
  ip -n $NA xfrm policy add src $1 dst $2 dir out $ab && ip -n $NA xfrm policy add src $2 dst $1 dir in $ba &&
    ip -n $NB xfrm policy add src $1 dst $2 dir in $ab && ip -n $NB xfrm policy add src $1 dst $2 dir fwd $ab &&
    ip -n $NB xfrm policy add src $2 dst $1 dir out $ba
}
xfrm_flush() {
  local ns
  for ns in $NA $NB; do ip -n $ns xfrm policy flush; ip -n $ns xfrm state flush; done
  ip -n $NA route del 10.250.0.0/24 2>/dev/null
  ip -n $NB route del 10.232.0.0/16 2>/dev/null
  ip -n $NB route del 10.240.0.0/16 2>/dev/null
  ip -n $NA addr flush dev lo scope global
}
xfrm_sa 0x3001 0x4001 1 2>/dev/null || XFRM_ALG=aes-cbc-hmac-sha256
xfrm_flush 2>/dev/null
if [ "$BEHIND" = 1 ] && [ "${KERNEL:-1}" = 1 ] && ! why=$(xfrm_sa 0x3001 0x4001 1 2>&1); then
  echo "# no kernel IPsec rows: ip xfrm refused an ESP SA here ($why; a kernel without esp4 or its ciphers)"
elif [ "$BEHIND" = 1 ] && [ "${KERNEL:-1}" = 1 ]; then
  xfrm_flush
  [ $XFRM_ALG = aes-gcm ] || echo "# the kernel here has no rfc4106(gcm(aes)): its IPsec rows are AES-CBC + HMAC-SHA-256 ($(awk '/^name/ { n = $3 } /^driver/ && n == "aes" { printf "%s ", $3 }' /proc/crypto))"
  # the inner MTU of the gostx rows (1400); the routes the policies take over
  ip -n $NA route add 10.250.0.0/24 via 10.231.0.2 mtu 1400
  ip -n $NB route add 10.232.0.0/16 via 10.231.0.1 mtu 1400
  ip -n $NA addr add 10.232.0.1/32 dev lo
  for i in $(seq "$ACTIVE"); do ip -n $NA addr add 10.232.1.$i/32 dev lo; done
  if xfrm_sa 0x3001 0x4001 1 && xfrm_pol 10.232.0.0/16 10.250.0.0/24 1; then
    ROW=kernel.single
    row "kernel IPsec $XFRM_ALG single peer" "kernel|single" "$(median $RX_AT $SINGLE_ADDR "$BOX" 10.232.0.1)"
    ROW=kernel.singleN
    [ "$ACTIVE" -gt 1 ] &&
      row "kernel IPsec $XFRM_ALG single peer, $ACTIVE streams" "kernel|singleN" "$(median $RX_AT $SINGLE_ADDR "$BOX" "${ssrcs[@]}")"
  fi
  xfrm_flush
  ip -n $NA route add 10.250.0.0/24 via 10.231.0.2 mtu 1400
  ip -n $NB route add 10.240.0.0/16 via 10.231.0.1 mtu 1400
  all_up=1
  for i in $(seq "$SITES"); do
    ip -n $NA addr add 10.240.$i.1/32 dev lo
    xfrm_sa $((0x30000 + i)) $((0x40000 + i)) $((100 + i)) && xfrm_pol 10.240.$i.1/32 10.250.0.0/24 $((100 + i)) ||
      { all_up=0; break; }
  done
  ROW=kernel.t1
  [ $all_up = 1 ] && row "kernel IPsec $XFRM_ALG gateway $SITES sites${ACTIVE:+ ($ACTIVE on)}" "kernel|t1" \
    "$(median $RX_AT $GW_ADDR "$BOX" "${srcs[@]}")"
  xfrm_flush
fi
awk -F'|' '{ split($4, f, " "); g[$2 "|" $3] = f[1]; c[$2 "|" $3] = f[3]; u[$2 "|" $3] = f[4] }
  END { for (k in g) { split(k, p, "|"); tr[p[1]] = 1 }
    for (t in tr) {
      split("single singleN", ss, " ")
      for (j = 1; j <= 2; j++) {
        s = t "|" ss[j]
        if (g[s] > 0 && g[t "|t1"] > 0)
          printf "# %s: gateway t1 / single peer%s: Gbit/s %.2fx (>= 0.95x asked), cpu s/GB %.2fx (<= 1.05x asked), user s/GB %.2fx\n",
            t, j == 2 ? " of as many streams" : "", g[t "|t1"] / g[s], (c[s] > 0 ? c[t "|t1"] / c[s] : 0),
            (u[s] > 0 ? u[t "|t1"] / u[s] : 0)
      }
      if (t != "kernel" && g[t "|t1"] > 0 && g["kernel|t1"] > 0)
        printf "# %s: gateway t1 / the kernel IPsec gateway ('"$XFRM_ALG"'): Gbit/s %.2fx, cpu s/GB %.2fx\n",
          t, g[t "|t1"] / g["kernel|t1"], (c["kernel|t1"] > 0 ? c[t "|t1"] / c["kernel|t1"] : 0)
      if (g[t "|t1"] > 0 && g[t "|t2"] > 0)
        printf "# %s: gateway t2 / t1: Gbit/s %.2fx (>= 1.7x asked where the cores allow: %d CPUs here)\n",
          t, g[t "|t2"] / g[t "|t1"], '"$(nproc)"'
    } }' "$T/rows"
