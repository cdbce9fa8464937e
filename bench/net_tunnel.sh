#!/usr/bin/env bash
# iperf3 through two network namespaces joined by a veth pair, in one run:
# no tunnel; gostx tunnel with Kuznyechik-MGM and Magma-MGM (RFC 9227
# transforms), each with one worker and with two (static keys), then with
# keying = ikev2 (PSK, one worker; TCP x1 and UDP 1372 B only), once with
# the default rekey_seconds (no rekey during the runs) and once with a's
# Child SA rekeyed every 2 s (so its IKE SA every 8 s); today's wireguard-go
# (ChaCha20-Poly1305, userspace like gostx, with its TUN and UDP offloads:
# the binary `wireguard` of `go install
# golang.zx2c4.com/wireguard@v0.0.0-20260522210424-ecfc5a8d5446`, looked for
# in PATH and in $(go env GOPATH)/bin, or WIREGUARD=PATH) beside Debian's
# (package wireguard-go, v0.0.20220316, no offloads); OpenVPN 2.6 with
# AES-256-GCM (userspace, one thread). Every tunnel's MTU is 1400. Root;
# Debian packages iproute2, iperf3, wireguard-go, wireguard-tools, openvpn,
# openssl (a peer that is not installed is skipped with a line saying so).
#   usage: bench/net_tunnel.sh [SECONDS (4)] [RUNS (3)]
# Subsets, for A/B runs (e.g. two gostx builds alternated, GOSTX=...):
#   ONLY="tcp x1,udp 1372 B"  the tests named (comma-separated); default all
#   TRANSFORMS="magma-mgm-ktree"  THREADS="1"  the gostx rows (default both
#   transforms, 1 and 2 workers); IKEV2=0 skips the ikev2 rows (builds
#   before keying = ikev2); OTHERS=0 skips the rows without gostx
#   (veth, wireguard-go, openvpn); UDP_OFFLOAD=off sets udp_offload = off,
#   TUN_OFFLOAD=off tun_offload = off, in both tunnels' configs (builds that
#   know the setting)
# Tests: TCP with 1 and 4 streams; UDP at full rate (-b 0) with payloads of
# 1372 bytes (1400-byte IP packets, the MTU) and of 64 bytes.
# Per setup and test, the median of RUNS runs of (per second: over the
# iperf3 client's SECONDS):
#   Gbit/s   IP bytes the receiving side's tunnel device delivered (its
#            rx_bytes, so the same measure for every setup; for TCP about
#            2 % above iperf3's payload rate)
#   kpps     IP packets that device delivered, thousands per second (a TUN
#            device whose writer joins segments into GSO super-packets,
#            gostx's and today's wireguard-go's, counts each one once)
#   cpu s/GB CPU seconds (utime + stime from /proc/PID/stat) of both tunnel
#            processes per 10^9 bytes delivered
#   sys s/GB the kernel's part of it (stime alone): the TUN and UDP sockets,
#            the stack under them, the softirq work charged to the tunnel
# Then the crypto alone (CRYPTO=0 skips it): build/bench/esp_speed (lib/esp,
# the tunnel's seal and open, against raw MGM and the MGM stream batch on the
# same CPU clock) and, for reference, `gostx bench --batch 1408` (wall
# clock); and the summary: per transform, the cipher's s/GB at 1400 bytes
# (seal + open bursts: both ends' crypto), the tunnel's TCP x1 CPU s/GB
# against it and against today's wireguard-go's, two workers' Gbit/s
# against one's per test, the split of TCP x1's CPU per 1400-byte packet
# (kernel from stime; user as the cipher's share, from esp_speed's seal +
# open, and the remainder: copies and bookkeeping; system calls per packet
# from one more run under strace -c -f, and the tunnel's own account of
# one more run with timing = yes: its workers' CPU per packet split into
# seal, open, the TUN and UDP calls and the rest, measured inside the
# workers rather than taken from esp_speed; SPLIT=0 skips both), ikev2's Gbit/s and CPU s/GB against the static
# row's (issue 59 asks >= 0.97x: CPU as static's / ikev2's, so higher is
# better in both) and the 2 s rekeys' Gbit/s against none (>= 0.9x).
set -u
SECS=${1:-4}
RUNS=${2:-3}
G=${GOSTX:-build/gostx}
[ "$(id -u)" = 0 ] || { echo "net_tunnel: needs root"; exit 1; }
command -v iperf3 >/dev/null || { echo "net_tunnel: iperf3 missing"; exit 1; }
. "$(dirname "$0")/net_common.sh"

# one run: DEV SERVER_ADDR IPERF_CLIENT_ARGS...; prints "Gbit/s kpps cpu_s_per_GB"
one() {
  local dev=$1 addr=$2
  shift 2
  ip netns exec $NB timeout $((SECS + 20)) iperf3 -s -1 -B $addr >/dev/null 2>&1 &
  local s=$!
  sleep 0.5
  local r0 p0 t0 r1 p1 t1 k0 k1
  read -r r0 p0 < <(dev_rx $NB $dev)
  t0=$(ticks "${PIDS[@]}")
  k0=$(sys_ticks "${PIDS[@]}")
  ip netns exec $NA timeout $((SECS + 15)) iperf3 -c $addr -t "$SECS" "$@" >>"$T/iperf.log" 2>&1
  t1=$(ticks "${PIDS[@]}")
  k1=$(sys_ticks "${PIDS[@]}")
  read -r r1 p1 < <(dev_rx $NB $dev)
  wait $s 2>/dev/null
  awk -v b=$((r1 - r0)) -v p=$((p1 - p0)) -v c=$((t1 - t0)) -v k=$((k1 - k0)) -v hz=$HZ \
    -v s="$SECS" -v n=${#PIDS[@]} 'BEGIN {
      printf "%.3f %.1f %s %s\n", b * 8 / s / 1e9, p / s / 1e3,
      (n && b) ? sprintf("%.2f", c / hz / (b / 1e9)) : "-",
      (n && b) ? sprintf("%.2f", k / hz / (b / 1e9)) : "-" }'
}
# the median (by Gbit/s) of RUNS runs
median() {
  for _ in $(seq "$RUNS"); do one "$@"; done | sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'
}
TESTS=()
for t in "tcp x1|-P 1" "tcp x4|-P 4" "udp 1372 B|-u -b 0 -l 1372" "udp 64 B|-u -b 0 -l 64"; do
  case ",${ONLY:-${t%%|*}}," in *",${t%%|*},"*) TESTS+=("$t") ;; esac
done
OTHERS=${OTHERS:-1}
measure() { # NAME DEV SERVER_ADDR [TEST...]; each row also into $T/rows (NAME|TEST|Gbit/s kpps s/GB)
  local t r
  for t in "${TESTS[@]}"; do
    # shellcheck disable=SC2076
    [ $# -gt 3 ] && [[ ! " ${*:4} " =~ " ${t%%|*} " ]] && continue
    # shellcheck disable=SC2086
    r=$(median $2 $3 ${t#*|})
    # shellcheck disable=SC2086
    printf '%-44s %-11s %8s %9s %8s %8s\n' "$1" "${t%%|*}" $r
    echo "$1|${t%%|*}|$r" >>"$T/rows"
  done
}

echo "# $(nproc) CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"
# the namespaces' TCP (iperf3's) takes the host's congestion control: with
# bbr its paced sends go out from a timer's softirq, charged to whatever
# process that CPU was running (a tunnel's worker among them)
echo "# TCP congestion control: $(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null || echo unknown)"
echo "# iperf3 ${SECS}s, median of $RUNS runs; MTU 1400 in every tunnel"
printf '%-44s %-11s %8s %9s %8s %8s\n' setup test Gbit/s kpps "cpu s/GB" "sys s/GB"
[ "$OTHERS" = 0 ] || measure "veth, no tunnel" $VB 10.231.0.2

# syscalls_per_packet NAME: one more TCP x1 run of SECONDS with strace -c -f
# on both tunnel processes: their system calls per 1400 bytes the receiving
# device delivered, and the three most frequent, into $T/sys (NAME|calls per
# packet|top). strace slows each call, so the tunnel batches differently
# than untraced: a count, not a rate. SPLIT=0 skips it.
syscalls_per_packet() {
  [ "${SPLIT:-1}" = 0 ] && return
  command -v strace >/dev/null || { echo "# strace missing: no system call count"; return; }
  local p st=() r0 r1 i=0
  for p in "${PIDS[@]}"; do
    strace -c -f -o "$T/strace.$i" -p "$p" 2>/dev/null &
    st+=($!)
    i=$((i + 1))
  done
  sleep 0.5
  ip netns exec $NB timeout $((SECS + 20)) iperf3 -s -1 -B 10.232.0.2 >/dev/null 2>&1 &
  local s=$!
  sleep 0.5
  read -r r0 _ < <(dev_rx $NB gxb0)
  ip netns exec $NA timeout $((SECS + 15)) iperf3 -c 10.232.0.2 -t "$SECS" -P 1 >>"$T/iperf.log" 2>&1
  read -r r1 _ < <(dev_rx $NB gxb0)
  wait $s 2>/dev/null
  kill -INT "${st[@]}" 2>/dev/null
  wait "${st[@]}" 2>/dev/null
  cat "$T"/strace.* | awk -v b=$((r1 - r0)) -v n="$1" '
    $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { calls[$NF] += $4; all += $4 }
    END { if (b <= 0) exit
      top = ""; for (k = 0; k < 3; k++) { m = ""; for (x in calls) if (m == "" || calls[x] > calls[m]) m = x
        if (m == "") break; top = top sprintf("%s%s %.2f", top == "" ? "" : ", ", m, calls[m] / (b / 1400)); delete calls[m] }
      printf "%s|%.2f|%s\n", n, all / (b / 1400), top }' >>"$T/sys"
  rm -f "$T"/strace.*
}
# split_inside NAME TRANSFORM: one more TCP x1 run of SECONDS through a
# tunnel with timing = yes, whose workers time their own phases (the TUN
# reads, sealing, sendmmsg; recvmmsg, opening, the TUN writes) and report
# them with their CPU time in the status file. Both ends' deltas, per
# 1400-byte packet the receiving device delivered; each end's figures are
# read from one snapshot, so the status file's one-second cadence does not
# skew them. The rest is the workers' CPU beyond the timed phases
# (segmenting, checks, poll, bookkeeping). SPLIT=0 skips it.
split_inside() {
  [ "${SPLIT:-1}" = 0 ] && return
  TIMING=yes gostx_up "$2" 1
  local side snap=(ns_worker_cpu ns_seal ns_open ns_tun_read ns_udp_send ns_udp_recv ns_tun_write rx_bytes)
  status_of() { # SIDE: the snapshot's values in snap's order
    local k
    for k in "${snap[@]}"; do awk -v k=$k '$1 == k {print $2}' "$T/$1.seq.status"; done | tr '\n' ' '
  }
  ip netns exec $NB timeout $((SECS + 20)) iperf3 -s -1 -B 10.232.0.2 >/dev/null 2>&1 &
  local s=$!
  sleep 1.2 # a status written since the tunnel came up
  local a0 b0 a1 b1
  a0=$(status_of a)
  b0=$(status_of b)
  ip netns exec $NA timeout $((SECS + 15)) iperf3 -c 10.232.0.2 -t "$SECS" -P 1 >>"$T/iperf.log" 2>&1
  wait $s 2>/dev/null
  sleep 1.2 # the status written after the run
  a1=$(status_of a)
  b1=$(status_of b)
  stop_all
  awk -v n="$1" -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" 'BEGIN {
    split(a0, x0, " "); split(a1, x1, " "); split(b0, y0, " "); split(b1, y1, " ")
    pk = (y1[8] - y0[8]) / 1400
    if (pk <= 0 || x1[1] == "" || y1[1] == "") { printf "%-22s inside split: no figures (timing = yes unknown to this build?)\n", n; exit }
    for (i = 1; i <= 7; i++) d[i] = ((x1[i] - x0[i]) + (y1[i] - y0[i])) / pk
    printf "%-22s TCP x1 t1 per 1400-B packet, both ends, timed inside the tunnel: workers CPU %.0f ns = seal %.0f + open %.0f + TUN read %.0f + UDP send %.0f + UDP recv %.0f + TUN write %.0f + the rest %.0f ns\n",
      n, d[1], d[2], d[3], d[4], d[5], d[6], d[7], r = d[1] - d[2] - d[3] - d[4] - d[5] - d[6] - d[7]
    # the phases and the whole are read on the CPU clocks of the worker threads: the rest
    # cannot be negative unless the figures are broken
    if (r < 0) printf "%-22s inside split: the phases exceed the worker CPU time: broken figures\n", n }'
}
gostx_run() { # TRANSFORM THREADS
  gostx_up "$1" "$2"
  measure "gostx $1 t$2${UDP_OFFLOAD:+ udp $UDP_OFFLOAD}${TUN_OFFLOAD:+ tun $TUN_OFFLOAD}" gxb0 10.232.0.2
  [ "$2" = 1 ] && [[ " ${TESTS[*]} " == *"tcp x1"* ]] && syscalls_per_packet "gostx $1 t1"
  stop_all
  [ "$2" = 1 ] && [[ " ${TESTS[*]} " == *"tcp x1"* ]] && split_inside "$1" "$1" | tee -a "$T/inside"
}
# keying = ikev2 (PSK, a initiating; the transform's IKE SA and Child SA):
# ikev2_up TRANSFORM THREADS REKEY_SECONDS_OF_A, up once both log "up".
# b's own rekey timer is an hour's, so a starts every rekey: the rate of
# rekeys is a's setting (crossing rekeys are test_tunnel_ike's and
# net_test_tunnel_ike_live's, not what this measures).
ikev2_up() {
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
  chmod 600 "$T/psk"
  local side l p ns ad me peer init rekey
  for side in b a; do
    if [ $side = a ]; then l=10.231.0.1 p=10.231.0.2 ns=$NA ad=10.232.0.1 me=a peer=b init=yes rekey=$3
    else l=10.231.0.2 p=10.231.0.1 ns=$NB ad=10.232.0.2 me=b peer=a init=no rekey=3600; fi
    printf '%s\n' "local = $l:4500" "peer = $p:4500" "tun = gxb0" "mtu = 1400" "threads = $2" \
      "keying = ikev2" "state = $T/$side.seq" "ike_auth = psk" "psk = $T/psk" \
      "local_id = $me.gostx.bench" "remote_id = $peer.gostx.bench" "ike_initiate = $init" \
      "transforms = $1" "rekey_seconds = $rekey" >"$T/$side.conf"
    rm -f "$T/gostx-$side.log"
    bg $ns gostx-$side "$G" tunnel -c "$T/$side.conf"
  done
  for _ in $(seq 100); do
    grep -q ' up, ' "$T/gostx-a.log" && grep -q ' up, ' "$T/gostx-b.log" && break
    sleep 0.1
  done
  for side in a b; do
    grep -q ' up, ' "$T/gostx-$side.log" || { echo "gostx ikev2: $side not up: $(tail -2 "$T/gostx-$side.log")"; return 1; }
  done
  ip -n $NA addr add 10.232.0.1/30 dev gxb0
  ip -n $NB addr add 10.232.0.2/30 dev gxb0
}
IKEV2_TESTS=("tcp x1" "udp 1372 B")
ikev2_run() { # TRANSFORM REKEY_SECONDS LABEL
  ikev2_up "$1" 1 "$2" && measure "gostx $1 t1 $3" gxb0 10.232.0.2 "${IKEV2_TESTS[@]}"
  [ "$2" -lt 3600 ] && echo "# $3: $(grep -c 'Child SA rekeyed' "$T/gostx-a.log") Child SA rekeys," \
    "$(grep -c 'IKE SA rekeyed' "$T/gostx-a.log") IKE SA rekeys"
  stop_all
}
if [ -x "$G" ]; then
  for tr in ${TRANSFORMS:-kuznyechik-mgm-ktree magma-mgm-ktree}; do
    for w in ${THREADS:-1 2}; do gostx_run $tr $w; done
    if [ "${IKEV2:-1}" != 0 ]; then
      ikev2_run $tr 3600 ikev2
      ikev2_run $tr 2 "ikev2 rekey 2s"
    fi
  done
else
  echo "gostx: $G not built: skipped"
fi

# wg_run BIN LABEL PREFIX: wireguard-go BIN on both sides, devices PREFIXa$$
# and PREFIXb$$ (one name per side: its control socket,
# /var/run/wireguard/NAME.sock, is a file, shared by the namespaces)
wg_run() {
  local bin=$1 side ns ad peer ep dev
  (umask 077; for side in a b; do wg genkey >"$T/wg$side.key"; wg pubkey <"$T/wg$side.key" >"$T/wg$side.pub"; done)
  for side in a b; do
    if [ $side = a ]; then ns=$NA ad=10.233.0.1 peer=b ep=10.231.0.2; else ns=$NB ad=10.233.0.2 peer=a ep=10.231.0.1; fi
    dev=$3$side$$
    rm -f /var/run/wireguard/$dev.sock
    bg $ns wg-$side env WG_PROCESS_FOREGROUND=1 "$bin" -f $dev
    wait_dev $ns $dev
    # its control socket comes after the device: wg set before it tries the
    # kernel's WireGuard ("Protocol not supported") and gives up
    for _ in $(seq 50); do [ -S /var/run/wireguard/$dev.sock ] && break; sleep 0.1; done
    ip netns exec $ns wg set $dev private-key "$T/wg$side.key" listen-port 51820 \
      peer "$(cat "$T/wg$peer.pub")" allowed-ips 10.233.0.0/30 endpoint $ep:51820
    ip -n $ns addr add $ad/30 dev $dev
    ip -n $ns link set $dev mtu 1400 up
  done
  measure "wireguard-go $("$bin" --version 2>/dev/null | grep -o 'v[0-9.]*' | head -1) $2" $3b$$ 10.233.0.2
  stop_all
}
WG_NEW=${WIREGUARD:-$(command -v wireguard || echo "$(go env GOPATH 2>/dev/null)/bin/wireguard")}
WG_NOTE="go install golang.zx2c4.com/wireguard@v0.0.0-20260522210424-ecfc5a8d5446"
if [ "$OTHERS" = 0 ]; then
  :
elif ! command -v wg >/dev/null; then
  echo "wireguard-go: wg (Debian's wireguard-tools) not installed: both wireguard-go rows skipped"
else
  if [ -x "$WG_NEW" ]; then
    wg_run "$WG_NEW" "(today, offloads)" gxwn
  else
    echo "wireguard-go (today's): $WG_NEW not installed ($WG_NOTE): skipped"
  fi
  if command -v wireguard-go >/dev/null; then
    wg_run wireguard-go "(Debian's)" gxwg
  else
    echo "wireguard-go (Debian's): not installed (apt-get install wireguard-go): skipped"
  fi
fi

if [ "$OTHERS" = 0 ]; then
  :
elif command -v openvpn >/dev/null && command -v openssl >/dev/null; then
  for side in a b; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
      -subj "/CN=$side" -keyout "$T/ov$side.key" -out "$T/ov$side.crt" 2>/dev/null
  done
  fp() { openssl x509 -fingerprint -sha256 -noout -in "$1" | cut -d= -f2; }
  ov=(--dev gxov0 --dev-type tun --proto udp --port 1194 --tun-mtu 1400 --data-ciphers AES-256-GCM --verb 1)
  bg $NA ovpn-a openvpn "${ov[@]}" --local 10.231.0.1 --remote 10.231.0.2 \
    --tls-server --dh none --cert "$T/ova.crt" --key "$T/ova.key" \
    --peer-fingerprint "$(fp "$T/ovb.crt")" --ifconfig 10.234.0.1 10.234.0.2
  bg $NB ovpn-b openvpn "${ov[@]}" --local 10.231.0.2 --remote 10.231.0.1 \
    --tls-client --cert "$T/ovb.crt" --key "$T/ovb.key" \
    --peer-fingerprint "$(fp "$T/ova.crt")" --ifconfig 10.234.0.2 10.234.0.1
  for _ in $(seq 100); do grep -q 'Initialization Sequence Completed' "$T/ovpn-b.log" 2>/dev/null && break; sleep 0.1; done
  if grep -q 'Initialization Sequence Completed' "$T/ovpn-b.log"; then
    measure "openvpn $(openvpn --version | head -1 | awk '{print $2}') AES-256-GCM" gxov0 10.234.0.2
  else
    echo "openvpn: did not come up: $(tail -2 "$T/ovpn-b.log")"
  fi
  stop_all
else
  echo "openvpn: not installed: skipped"
fi

if [ "${CRYPTO:-1}" != 0 ]; then
  E=$(dirname "$G")/bench/esp_speed
  echo "# crypto alone, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -x "$E" ]; then
    "$E" | grep -E '^(transform|kuznyechik|magma)' | tee "$T/esp"
  else
    echo "esp_speed: $E not built: skipped"
  fi
  "$G" bench --batch 1408 2>&1 | grep -E '^(algorithm|kuznyechik +mgm)'
fi

# The summary: the cipher's s/GB at 1400 B (seal + open bursts, ns per
# byte), the tunnel's TCP x1 CPU s/GB against it and against today's
# wireguard-go's, two workers' Gbit/s against one's, ikev2 against static
# and the 2 s rekeys against none
order=$(for t in "${TESTS[@]}"; do printf '%s|' "${t%%|*}"; done)
[ -s "$T/rows" ] && awk -v esp="$T/esp" -v sysf="$T/sys" -v order="$order" -F'|' '
  BEGIN {
    while ((getline l < esp) > 0) {
      split(l, f, " ")
      if (f[2] == 1400) cipher[f[1]] = (f[4] + f[6]) / 1400
    }
    while ((getline l < sysf) > 0) { split(l, f, "|"); calls[f[1]] = f[2]; top[f[1]] = f[3] }
  }
  { split($3, v, " "); gbit[$1 "|" $2] = v[1]; cpu[$1 "|" $2] = v[3]; sys[$1 "|" $2] = v[4] }
  $1 ~ /^wireguard-go .*today/ && $2 == "tcp x1" { wg = v[3] }
  $1 ~ /^gostx / {
    split($1, n, " ")
    if (!(n[2] in tr)) { tr[n[2]] = 1; trs[++ntr] = n[2] }
    # the ikev2 rows apart from the static ones of the same workers
    name[n[2] " " n[3] (n[4] != "ikev2" ? "" : n[5] == "rekey" ? " rekey" : " ikev2")] = $1
  }
  END {
    print "# summary"
    nt = split(order, tests, "|") - 1
    for (i = 1; i <= ntr; i++) {
      t = trs[i]
      t1 = name[t " t1"]; t2 = name[t " t2"]; c = cpu[t1 "|tcp x1"]
      if (t in cipher)
        printf "%-22s cipher alone (esp_speed 1400 B, seal + open bursts) %.2f s/GB\n", t, cipher[t]
      if (c != "" && c != "-" && (t in cipher))
        printf "%-22s TCP x1 t1 CPU s/GB %s = %.2fx the cipher alone (of it the kernel, stime: %s s/GB = %.2fx the cipher)\n", t, c, c / cipher[t], sys[t1 "|tcp x1"], sys[t1 "|tcp x1"] / cipher[t]
      # the non-cipher CPU per packet (1400 bytes delivered; both ends, as
      # the cipher figure is): kernel (stime: TUN, UDP, the stack, softirqs
      # charged to the tunnel), user beyond the cipher (copies and
      # bookkeeping: the remainder), and the system calls behind the kernel part
      if (c != "" && c != "-" && (t in cipher)) {
        k = sys[t1 "|tcp x1"]; u = c - k
        printf "%-22s TCP x1 t1 per 1400-B packet, both ends: CPU %.0f ns = kernel %.0f + user %.0f; user = cipher %.0f + the rest (copies, bookkeeping) %.0f ns", t, c * 1400, k * 1400, u * 1400, cipher[t] * 1400, (u - cipher[t]) * 1400
        if (t1 in calls) printf "; %s system calls a packet (%s)", calls[t1], top[t1]
        printf "\n"
      }
      if (c != "" && c != "-" && wg != "" && wg != "-")
        printf "%-22s TCP x1 t1: wireguard-go (today, offloads) CPU s/GB %s / ours %s = %.2f\n", t, wg, c, wg / c
      ik = name[t " t1 ikev2"]; rk = name[t " t1 rekey"]
      for (j = 1; j <= nt; j++) {
        x = tests[j]
        if (ik != "" && gbit[t1 "|" x] > 0 && gbit[ik "|" x] > 0)
          printf "%-22s ikev2 / static, %-10s %s / %s Gbit/s = %.2fx; CPU s/GB static / ikev2 %s / %s = %.2fx\n", t, x, gbit[ik "|" x], gbit[t1 "|" x], gbit[ik "|" x] / gbit[t1 "|" x], cpu[t1 "|" x], cpu[ik "|" x], (cpu[ik "|" x] > 0 ? cpu[t1 "|" x] / cpu[ik "|" x] : 0)
        if (rk != "" && gbit[ik "|" x] > 0 && (rk "|" x) in gbit)
          printf "%-22s ikev2, Child SA rekey every 2 s / none, %-10s %s / %s Gbit/s = %.2fx\n", t, x, gbit[rk "|" x], gbit[ik "|" x], gbit[rk "|" x] / gbit[ik "|" x]
      }
      if (t1 != "" && t2 != "")
        for (j = 1; j <= nt; j++)
          if (gbit[t1 "|" (x = tests[j])] > 0)
            printf "%-22s two workers / one, %-10s %s / %s Gbit/s = %.2fx\n", t, x, gbit[t2 "|" x], gbit[t1 "|" x], gbit[t2 "|" x] / gbit[t1 "|" x]
    }
  }' "$T/rows"
