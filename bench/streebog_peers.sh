#!/usr/bin/env bash
# Streebog-512 of a 64 MiB random file: gostx (each level this CPU runs, and
# the opt-in table method sbtable),
# openssl + gost-engine, libgcrypt, in one run. Reports the median of RUNS
# runs of wall time and of user CPU time (on a shared, loaded machine the
# CPU time is the steadier measure of single-core speed), MB/s = 10^6 B/s,
# and ratios to gost-engine and libgcrypt. Usage:
#   bench/streebog_peers.sh [build/gostx] [runs]
set -euo pipefail
GOSTX=${1:-build/gostx}
RUNS=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -c $((64 << 20)) /dev/urandom > "$work/in"
bytes=$((64 << 20))

peers=()
if openssl engine gost >/dev/null 2>&1; then peers+=(engine); fi
if cc -O2 "$here/peers/gcrypt_stribog.c" -lgcrypt -o "$work/gcrypt" 2>/dev/null; then peers+=(gcrypt); fi

cmd() { # name -> command line
  case $1 in
    engine) echo "openssl dgst -engine gost -md_gost12_512 $work/in" ;;
    gcrypt) echo "$work/gcrypt $work/in" ;;
    gostx-*) echo "env GOSTX_IMPL=${1#gostx-} $GOSTX hash -a streebog512 $work/in" ;;
  esac
}

# every level this CPU runs (gostx info), and the opt-in table method
levels=$("$GOSTX" info | awk '$1 == "levels:" {$1 = ""; print}')
names=()
for l in $levels sbtable; do names+=("gostx-$l"); done
names+=("${peers[@]}")
# All agree on the digest (gost-engine prints "...= HEX", libgcrypt HEX).
for n in "${names[@]}"; do
  $(cmd "$n") 2>/dev/null | grep -oE '[0-9a-f]{128}' | head -1
done | sort -u | awk 'END { if (NR != 1) { print "digests differ"; exit 1 } }'

declare -A wall user
for _ in $(seq "$RUNS"); do # round-robin, so load bursts hit everyone
  for n in "${names[@]}"; do
    /usr/bin/time -o "$work/t" -f "%e %U" $(cmd "$n") >/dev/null 2>&1
    out=$(tail -1 "$work/t")
    wall[$n]+="${out% *} "
    user[$n]+="${out#* } "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gostx: $("$GOSTX" info | grep streebog | tr -s ' ') (default)"
printf '%-16s %10s %10s %10s %10s\n' "streebog512" "wall MB/s" "cpu MB/s" "/engine" "/gcrypt"
for n in "${names[@]}"; do
  w=$(echo "${wall[$n]}" | median); u=$(echo "${user[$n]}" | median)
  mw=$(awk "BEGIN{print $bytes / $w / 1e6}"); mu=$(awk "BEGIN{print $bytes / $u / 1e6}")
  re=-; rg=-
  if [ -n "${user[engine]:-}" ]; then re=$(awk "BEGIN{printf \"%.2f\", $(echo "${user[engine]}" | median) / $u}"); fi
  if [ -n "${user[gcrypt]:-}" ]; then rg=$(awk "BEGIN{printf \"%.2f\", $(echo "${user[gcrypt]}" | median) / $u}"); fi
  printf '%-16s %10.1f %10.1f %10s %10s\n' "$n" "$mw" "$mu" "$re" "$rg"
done
echo "(ratios from median CPU time; gostx-LEVEL forces that level, gostx-sbtable is the opt-in LPS tables)"
