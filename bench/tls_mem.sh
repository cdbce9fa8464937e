#!/usr/bin/env bash
# Memory per connection of `gostx tls serve` and `gostx tls connect`,
# measured from outside (issue 61): N TLS 1.3 connections through both on
# loopback (plain client -> connect -> serve -> plain backend, one worker
# each, bench/tls_mem.py driving both plain ends), each moving 256 KiB both
# ways (8 connections at a time) and then idle, all N open. Printed per
# connection, from each proxy's VmRSS less its own at start: once all N have
# finished their handshakes (idle) and after the traffic (idle again).
# Medians of RUNS runs.
#   usage: bench/tls_mem.sh [N (1000)] [RUNS (3)]
# TLS_MEM_BASE=BINARY measures that gostx too, by turns with ours (before
# and after in one run). Needs a build (BUILD=DIR, or GOSTX=BINARY), python3
# and openssl with gost-engine (the test PKI), and 2*N+64 descriptors.
set -u
N=${1:-1000}
RUNS=${2:-3}
BASE=${TLS_MEM_BASE:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tls_paths.sh"
for f in "$G" ${BASE:+"$BASE"}; do [ -x "$f" ] || { echo "tls_mem: $f not built"; exit 1; }; done
command -v python3 >/dev/null || { echo "tls_mem: python3 missing"; exit 1; }
ulimit -n $((2 * N + 256)) 2>/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TLS_HERE=$HERE/../tests/net
. "$TLS_HERE/tls_common.sh"
tls_pki

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "gostx tls memory per connection, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "method: $N TLS 1.3 connections (KUZNYECHIK_MGM_L, GC256A), 256 KiB each way, medians of $RUNS runs"
names=(ours)
bins=("$G")
[ -n "$BASE" ] && names+=(base) && bins+=("$BASE")
for i in $(seq "$RUNS"); do
  for k in "${!bins[@]}"; do # by turns
    python3 "$HERE/tls_mem.py" "${bins[$k]}" "$PKI" "$N" >>"$T/${names[$k]}" ||
      { echo "tls_mem: the run of ${bins[$k]} failed"; exit 1; }
  done
done
printf "  %-60s %14s %14s\n" "bytes per connection (VmRSS)" "idle" "after traffic"
for k in "${!bins[@]}"; do
  for side in serve connect; do
    idle=$(awk -v s=$side '$1 == s {print $3}' "$T/${names[$k]}" | median)
    traffic=$(awk -v s=$side '$1 == s {print $5}' "$T/${names[$k]}" | median)
    printf "  %-60s %14.0f %14.0f\n" "gostx tls $side, ${names[$k]}: ${bins[$k]}" "$idle" "$traffic"
  done
done
