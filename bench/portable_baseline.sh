#!/usr/bin/env bash
# Wall-clock throughput of the gostx command on a 64 MiB file (one core), next to
# openssl + gost-engine on the same file in the same run. Median of N runs.
# Usage: bench/portable_baseline.sh [build/gostx] [runs]
set -euo pipefail
GOSTX=${1:-build/gostx}
RUNS=${2:-3}
SIZE_MIB=64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -c $((SIZE_MIB << 20)) /dev/urandom > "$work/in"
K=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
have_engine=0
openssl engine gost >/dev/null 2>&1 && have_engine=1

# median seconds of RUNS runs of a command (stdout discarded)
median() {
  local ts=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    ts+=("$(awk "BEGIN{print $t1 - $t0}")")
  done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

row() { # name, gostx command..., -- openssl command...
  local name=$1; shift
  local g=() o=()
  while [ "$1" != "--" ]; do g+=("$1"); shift; done; shift
  o=("$@")
  local tg to=""
  tg=$(median "${g[@]}")
  if [ $have_engine = 1 ] && [ ${#o[@]} -gt 0 ]; then to=$(median "${o[@]}"); fi
  local mg mo="-" ratio="-"
  mg=$(awk "BEGIN{print $SIZE_MIB * 1.048576 / $tg}")
  if [ -n "$to" ]; then
    mo=$(awk "BEGIN{print $SIZE_MIB * 1.048576 / $to}"); ratio=$(awk "BEGIN{print $mg / $mo}")
    mo=$(printf '%.1f' "$mo"); ratio=$(printf '%.2f' "$ratio")
  fi
  printf '%-22s %10.1f %14s %8s\n' "$name" "$mg" "$mo" "$ratio"
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "gostx: $("$GOSTX" info | tr '\n' ' ')"
echo "file: $SIZE_MIB MiB, median of $RUNS runs, wall clock, MB/s = 10^6 B/s"
printf '%-22s %10s %14s %8s\n' "work" "gostx MB/s" "gost-engine" "ratio"
OE=(openssl enc -engine gost -in "$work/in" -K "$K")
row kuznyechik-ecb "$GOSTX" cipher kuznyechik-ecb -k "$K" -i "$work/in" -- "${OE[@]}" -kuznyechik-ecb -nopad
row kuznyechik-ctr "$GOSTX" cipher kuznyechik-ctr -k "$K" --iv 1234567890abcef0 -i "$work/in" -- "${OE[@]}" -kuznyechik-ctr -iv 1234567890abcef0
row kuznyechik-cbc "$GOSTX" cipher kuznyechik-cbc -k "$K" --iv 00112233445566778899aabbccddeeff -i "$work/in" -- "${OE[@]}" -kuznyechik-cbc -nopad -iv 00112233445566778899aabbccddeeff
row kuznyechik-mgm "$GOSTX" cipher kuznyechik-mgm -k "$K" --iv 00112233445566778899aabbccddeeff -i "$work/in" --
# gost-engine's kuznyechik-mac is broken in Debian's build (it computes Magma's MAC): no peer.
row kuznyechik-omac "$GOSTX" mac kuznyechik-omac -k "$K" -i "$work/in" --
row magma-omac "$GOSTX" mac magma-omac -k "$K" -i "$work/in" -- openssl dgst -engine gost -mac magma-mac -macopt "hexkey:$K" "$work/in"
row magma-ctr "$GOSTX" cipher magma-ctr -k "$K" --iv 12345678 -i "$work/in" -- "${OE[@]}" -magma-ctr -iv 12345678
row magma-cbc "$GOSTX" cipher magma-cbc -k "$K" --iv 0011223344556677 -i "$work/in" -- "${OE[@]}" -magma-cbc -nopad -iv 0011223344556677
row gost89-cnt "$GOSTX" cipher gost89-cnt -k "$K" --iv 0011223344556677 --mesh -i "$work/in" -- "${OE[@]}" -gost89-cnt -iv 0011223344556677
row streebog256 "$GOSTX" hash -a streebog256 "$work/in" -- openssl dgst -engine gost -md_gost12_256 "$work/in"
row streebog512 "$GOSTX" hash -a streebog512 "$work/in" -- openssl dgst -engine gost -md_gost12_512 "$work/in"
row hmac-streebog256 "$GOSTX" mac hmac-streebog256 -k "$K" -i "$work/in" -- openssl dgst -engine gost -md_gost12_256 -mac hmac -macopt "hexkey:$K" "$work/in"
