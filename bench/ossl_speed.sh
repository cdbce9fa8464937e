#!/usr/bin/env bash
# `openssl speed -evp NAME` with the gostx provider next to gost-engine's
# provider (gostprov), in one run: runs interleaved (gostx, gostprov, gostx,
# ...), the median of each, MB/s (10^6 bytes/s) and the gostx/gostprov
# ratio, at 16-byte and 16 KiB buffers (openssl speed's smallest and
# largest: per-call overhead and bulk speed).
#
# Usage: bench/ossl_speed.sh [--runs N] [--seconds S] [--build DIR] [NAME...]
#   default: 5 runs of 1 s per size, the names below; BUILD/ossl-modules/gostx.so
#   must exist (make build with libssl-dev installed). Needs openssl and
#   libengine-gost-openssl.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=5 seconds=1 build="$root/build"
names=()
. "$root/bench/bench_opts.sh"
bench_opt() { [[ $1 != -* ]] && names+=("$1"); }
bench_opts "runs seconds build" "$@"
[ ${#names[@]} -gt 0 ] || names=(kuznyechik-ctr magma-ctr md_gost12_256 md_gost12_512 magma-cbc gost89
  kuznyechik-ecb kuznyechik-cbc kuznyechik-ctr-acpkm gost89-cnt)
mods="$build/ossl-modules"
[ -f "$mods/gostx.so" ] || { echo "no $mods/gostx.so: run make build with libssl-dev" >&2; exit 1; }
sysdir=$(openssl version -m | sed 's/^MODULESDIR: "\(.*\)"$/\1/')
[ -f "$sysdir/gostprov.so" ] || { echo "no gostprov.so in $sysdir: apt-get install libengine-gost-openssl" >&2; exit 1; }
ours=(-provider-path "$mods" -provider gostx -provider default)
theirs=(-provider "$sysdir/gostprov.so" -provider default)

# one measurement: bytes per second of NAME at SIZE-byte buffers
speed() { # name size provider-args...
  local name=$1 size=$2
  shift 2
  openssl speed "$@" -seconds "$seconds" -bytes "$size" -mr -evp "$name" 2>/dev/null |
    awk -F: '/^\+F:/ {print $4}'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "openssl speed -evp NAME, -seconds $seconds, $runs interleaved runs, medians"
echo "$(date -u '+%Y-%m-%d %H:%MZ'); $(openssl version); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "gostx: $(openssl list -providers -verbose "${ours[@]}" 2>/dev/null | awk '/^  gostx$/ {f = 1} f && /build info:/ {sub(/.*build info: /, ""); print; exit}')"
for r in $(seq "$runs"); do
  for name in "${names[@]}"; do
    for size in 16 16384; do
      speed "$name" "$size" "${ours[@]}" >> "$tmp/$name.$size.gostx"
      speed "$name" "$size" "${theirs[@]}" >> "$tmp/$name.$size.gostprov"
    done
  done
done
printf '%-24s %12s %12s %7s %12s %12s %7s\n' name "16B gostx" "gostprov" x "16KiB gostx" "gostprov" x
for name in "${names[@]}"; do
  line=$(printf '%-24s' "$name")
  for size in 16 16384; do
    a=$(median < "$tmp/$name.$size.gostx") b=$(median < "$tmp/$name.$size.gostprov")
    line+=$(awk -v a="$a" -v b="$b" 'BEGIN {printf " %12.1f %12.1f %7.2f", a / 1e6, b / 1e6, (b > 0 ? a / b : 0)}')
  done
  echo "$line"
done
