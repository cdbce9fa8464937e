#!/usr/bin/env bash
# IKE SA establishments (IKE_SA_INIT + IKE_AUTH) per CPU-second of the
# responder, beside `gostx tls serve`'s full TLS 1.3 handshakes per
# CPU-second, in one run (issue 59's speed target):
#  - build/bench/ike_speed: lib/ike's engine, initiator and responder in
#    one thread, the responder's calls alone on the thread's CPU clock; PSK
#    and certificates (256 and 512 bits);
#  - bench/tls_speed.sh with TLS_SPEED_PART=hs13: its server-handshake rows
#    for TLS 1.3 (serve pinned to CPU 0, tls_hs_load on the others, the
#    server's CPU time from /proc), 256A/GC256A and 512C/GC512C: the same
#    measurement its own table prints, not a copy of it.
# The IKE figure has no sockets in it (the engine in memory); serve's has
# a TCP accept, its reads and writes and a backend connection per
# handshake: the TLS side carries more than the IKE side does.
#   usage: bench/ike_speed.sh [SECONDS (3)] [RUNS (3)]
# BASE=DIR (another build, e.g. of the commit before a change, with this
# tree's bench/ike_speed.c): instead, before/after in one run: DIR's and
# BUILD's ike_speed by turns (RUNS rounds, the order swapped each round,
# one run of SECONDS each), each row's median for both and their ratio
# (BUILD / BASE); the TLS rows are left out.
# Needs what tls_speed.sh needs (build/gostx, build/bench/tls_hs_load,
# nginx, openssl with gost-engine) and build/bench/ike_speed; BUILD=DIR for
# another build.
set -u -o pipefail
SECS=${1:-3}
RUNS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BUILD=$(abs "${BUILD:-$HERE/../build}")
[ -x "$BUILD/bench/ike_speed" ] || { echo "ike_speed: $BUILD/bench/ike_speed not built"; exit 1; }
echo "gostx IKE speed, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) online)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "${BASE:-}" ]; then
  BASE=$(abs "$BASE")
  [ -x "$BASE/bench/ike_speed" ] || { echo "ike_speed: $BASE/bench/ike_speed not built"; exit 1; }
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
  for r in $(seq 1 "$RUNS"); do
    order="BASE BUILD"
    [ $((r % 2)) = 0 ] && order="BUILD BASE"
    for which in $order; do
      dir=$BASE
      [ "$which" = BUILD ] && dir=$BUILD
      "$dir/bench/ike_speed" "$SECS" 1 >> "$OUT/$which" || exit 1
    done
  done
  echo "before (BASE=$BASE) / after (BUILD=$BUILD), medians of $RUNS runs of $SECS s by turns:"
  # the rows: a name, then its figure last; the tables' headings have none
  awk -v runs="$RUNS" '
    function median(name, w,   n, i, j, t, a) {
      n = split(vals[w, name], a, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
      }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    FNR == 1 { w = FILENAME ~ /BASE$/ ? "b" : "a" }
    /^  / && $NF ~ /^[0-9]+$/ {
      name = $0; sub(/[ ]+[0-9]+$/, "", name); sub(/^  /, "", name)
      if (!((w, name) in vals)) { if (w == "b") order[++n] = name }
      vals[w, name] = vals[w, name] " " $NF
    }
    END {
      printf "  %-69s %8s %8s %6s\n", "row (IKE SAs per responder CPU-s)", "before", "after", "ratio"
      for (i = 1; i <= n; i++) {
        b = median(order[i], "b"); a = median(order[i], "a")
        printf "  %-69s %8.0f %8.0f %6.2f\n", order[i], b, a, b ? a / b : 0
      }
    }' "$OUT/BASE" "$OUT/BUILD"
  exit 0
fi
"$BUILD/bench/ike_speed" "$SECS" "$RUNS" || exit 1
echo
BUILD=$BUILD TLS_SPEED_PART=hs13 bash "$HERE/tls_speed.sh" "$SECS" "$RUNS" | sed -n '/^Server handshakes/,$p'
