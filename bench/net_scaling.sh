#!/usr/bin/env bash
# How the gostx tunnel scales with its workers (issue 29: "two cores >= 1.8x
# one core"). Each tunnel end runs W workers (threads = W) pinned to W CPUs of
# its own; the traffic comes from CLIENTS iperf3 processes, one flow each,
# pinned with their servers to the CPUs left over, so a worker never shares a
# core with the load it carries or with the other end. Needs root, iproute2,
# iperf3, taskset and 2 + 2*max(W) + 2*CLIENTS CPUs to mean what it says.
#   usage: bench/net_scaling.sh [SECONDS (5)] [RUNS (3)] [WORKERS ("1 2")]
# CPU layout (override with CPUS_A1 CPUS_B1 CPUS_A2 ... and CPUS_IPERF):
# CPUs 0-1 are left to the system; side a takes 2..W+1, side b the next W;
# iperf3 the rest, round robin.
# Tests: UDP at full rate (-b 0) with 1372-byte payloads (1400-byte IP
# packets, the tunnel MTU), and TCP; each client runs FLOWS (4) streams, so
# CLIENTS * FLOWS flows spread over the TUN queues by their hash.
# Per row, the median of RUNS runs (by Gbit/s) of:
#   Gbit/s, kpps  IP bytes / packets side b's TUN delivered per second
#   cpu s/GB      CPU seconds of both tunnel processes per 10^9 bytes
#   cores         CPU seconds of both tunnel processes per second (out of 2W)
#   busy          the same of the tunnels' pinned CPUs from /proc/stat, which
#                 adds the kernel's softirq work done there (the veth and the
#                 UDP and IP stacks a sendmmsg or a TUN write runs through)
# and the ratio of each row's Gbit/s to the same test with one worker.
# ONLY="tcp" (or "udp") runs one of the two tests; TRANSFORMS picks transforms.
# INTERLEAVE=1 takes run k of each W in turn (a fresh tunnel per run) instead
# of all runs of one W, then the next: ratios that hold on a busy host.
set -u
SECS=${1:-5}
RUNS=${2:-3}
WORKERS=${3:-1 2}
CLIENTS=${CLIENTS:-4}
FLOWS=${FLOWS:-4}
G=${GOSTX:-build/gostx}
[ "$(id -u)" = 0 ] || { echo "net_scaling: needs root"; exit 1; }
for c in iperf3 taskset ip; do
  command -v $c >/dev/null || { echo "net_scaling: $c missing"; exit 1; }
done
[ -x "$G" ] || { echo "net_scaling: $G not built"; exit 1; }
. "$(dirname "$0")/net_common.sh"

N=$(nproc)
maxw=0
for w in $WORKERS; do [ "$w" -gt $maxw ] && maxw=$w; done
IPERF_CPUS=${CPUS_IPERF:-$(seq -s, $((2 + 2 * maxw)) $((N - 1)))}
[ -n "$IPERF_CPUS" ] || IPERF_CPUS=$(seq -s, 0 $((N - 1)))
IFS=, read -r -a icpu <<<"$IPERF_CPUS"
need=$((2 + 2 * maxw + 2 * CLIENTS))
echo "# $N CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$N" -ge $need ] || echo "# WARNING: $need CPUs wanted for $CLIENTS clients and $maxw workers a side; workers share cores here"
echo "# iperf3 ${SECS}s, $CLIENTS clients x $FLOWS flows on CPUs $IPERF_CPUS, median of $RUNS runs; MTU 1400"

# busy jiffies (user nice system irq softirq steal) of the CPUs in list $1
busy() {
  awk -v l=",$1," '$1 ~ /^cpu[0-9]/ && index(l, "," substr($1, 4) ",") {t += $2 + $3 + $4 + $7 + $8 + $9} END {print t + 0}' /proc/stat
}
# one run: ARGS...; prints "Gbit/s kpps cpu_s_per_GB cores busy"
one() {
  local k srv=() cli=()
  for k in $(seq 0 $((CLIENTS - 1))); do
    ip netns exec $NB timeout $((SECS + 20)) taskset -c "${icpu[$(((2 * k + 1) % ${#icpu[@]}))]}" \
      iperf3 -s -1 -p $((5301 + k)) -B 10.232.0.2 >/dev/null 2>&1 &
    srv+=($!)
  done
  sleep 0.5
  local r0 p0 t0 r1 p1 t1 s0 s1 u0 u1
  read -r r0 p0 < <(dev_rx $NB gxb0)
  t0=$(ticks "${PIDS[@]}")
  u0=$(busy "$PINNED")
  s0=$(date +%s.%N)
  for k in $(seq 0 $((CLIENTS - 1))); do
    ip netns exec $NA timeout $((SECS + 15)) taskset -c "${icpu[$(((2 * k) % ${#icpu[@]}))]}" \
      iperf3 -c 10.232.0.2 -p $((5301 + k)) -t "$SECS" "$@" >>"$T/iperf.log" 2>&1 &
    cli+=($!)
  done
  wait "${cli[@]}" 2>/dev/null
  s1=$(date +%s.%N)
  t1=$(ticks "${PIDS[@]}")
  u1=$(busy "$PINNED")
  read -r r1 p1 < <(dev_rx $NB gxb0)
  wait "${srv[@]}" 2>/dev/null
  awk -v b=$((r1 - r0)) -v p=$((p1 - p0)) -v c=$((t1 - t0)) -v hz=$HZ -v s="$SECS" \
    -v u=$((u1 - u0)) -v w="$(awk -v a="$s0" -v b="$s1" 'BEGIN {print b - a}')" 'BEGIN {
      printf "%.3f %.1f %s %.2f %.2f\n", b * 8 / s / 1e9, p / s / 1e3,
      b ? sprintf("%.2f", c / hz / (b / 1e9)) : "-", c / hz / w, u / hz / w }'
}
# the median run (by Gbit/s), then every run's Gbit/s
median() {
  for _ in $(seq "$RUNS"); do one "$@"; done | sort -n |
    awk '{a[NR] = $0; g = g (NR > 1 ? "," : "") $1} END {print a[int((NR + 1) / 2)], g}'
}
TESTS=()
for t in "udp 1400|-u -b 0 -l 1372 -P $FLOWS" "tcp|-P $FLOWS"; do
  case " ${ONLY:-udp tcp} " in *" ${t%% *} "* | *" ${t%%|*} "*) TESTS+=("$t") ;; esac
done
printf '%-22s %-3s %-9s %8s %9s %8s %6s %6s %6s  %s\n' transform W test Gbit/s kpps "cpu s/GB" cores busy "x W=1" runs
# tunnel_up TRANSFORM W: both ends with W workers on their CPUs (sets PINNED)
tunnel_up() {
  local a b
  a=$(eval echo "\${CPUS_A$2:-$(seq -s, 2 $((1 + $2)))}")
  b=$(eval echo "\${CPUS_B$2:-$(seq -s, $((2 + maxw)) $((1 + maxw + $2)))}")
  PINNED=$a,$b
  gostx_up "$1" "$2" "$a" "$b"
  sleep 0.5
}
# row TRANSFORM W TEST "Gbit/s kpps cpu_s/GB cores busy runs"
row() {
  local gb kpps cpg cores bsy runs ratio
  read -r gb kpps cpg cores bsy runs <<<"$4"
  [ "$2" = 1 ] && base[$3]=$gb
  ratio=$(awk -v g="$gb" -v b="${base[$3]:-0}" 'BEGIN {print (b > 0 ? sprintf("%.2f", g / b) : "-")}')
  printf '%-22s %-3s %-9s %8s %9s %8s %6s %6s %6s  %s\n' "$1" "$2" "$3" "$gb" "$kpps" "$cpg" "$cores" "$bsy" "$ratio" "$runs"
}
for tr in ${TRANSFORMS:-kuznyechik-mgm-ktree magma-mgm-ktree}; do
  declare -A base=()
  if [ -n "${INTERLEAVE:-}" ]; then
    # run k of every W in turn, the tunnels brought up afresh for each, so
    # that every W's median comes from the same stretch of a noisy host
    for t in "${TESTS[@]}"; do
      name=${t%%|*}
      for _ in $(seq "$RUNS"); do
        for w in $WORKERS; do
          tunnel_up $tr "$w"
          # shellcheck disable=SC2086
          one ${t#*|} >>"$T/runs-$w"
          stop_all
        done
      done
      for w in $WORKERS; do
        row $tr "$w" "$name" "$(sort -n "$T/runs-$w" |
          awk '{a[NR] = $0; g = g (NR > 1 ? "," : "") $1} END {print a[int((NR + 1) / 2)], g}')"
        rm -f "$T/runs-$w"
      done
    done
  else
    for w in $WORKERS; do
      tunnel_up $tr "$w"
      for t in "${TESTS[@]}"; do
        # shellcheck disable=SC2086
        row $tr "$w" "${t%%|*}" "$(median ${t#*|})"
      done
      stop_all
    done
  fi
  unset base
done
for side in a b; do grep -v '^$' "$T/gostx-$side.log" 2>/dev/null | tail -3 | sed "s/^/# gostx-$side: /"; done
