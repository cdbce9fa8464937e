#!/usr/bin/env bash
# File encryption end to end: `gostx enc` then `gostx dec` of one big file
# against `openssl enc -engine gost -kuznyechik-ctr` (gost-engine, one thread,
# unauthenticated) on the same file, wall clock, interleaved in one run.
# This is issue 4's measurement (docs/FORMAT.md §7 has the figures).
# Issue 21's rows, in the same rounds: `gostx enc` over an existing output,
# `cp` of the plaintext to a new file and over an existing one (the file
# system's own price of writing and of replacing a file; cp does not fsync,
# gostx does), and the pool's in-memory MGM rate (`gostx bench --threads J
# --filter ALG-mgm-enc --size 64M`, one repetition a round), against which
# the last column puts every gostx row (issue 21's target: enc >= 0.9x).
#
#   bench/file_speed.sh [--mib N] [--runs N] [--peer-runs N] [--dir DIR]
#                       [--gostx PATH] [--alg kuznyechik|magma] [-j N] [--no-peer]
#                       [--cache written|read]
#
# --cache: how the plaintext got into the page cache: "written" (default: as
# head wrote it) or "read" (dropped from the cache, then read back by cat, as
# a file read from disk is; the kernel then keeps it in larger folios, which
# the mapped input of gostx enc takes with fewer page faults).
# Defaults: 1024 MiB of random data in $TMPDIR (or /tmp), 5 gostx runs of each
# direction, 2 openssl runs (each takes ~15 s per GiB), build/gostx, all cores.
# Every gostx run's output is compared with the input (the decrypted file) so a
# fast wrong answer cannot pass. The files are removed at exit. Needs GNU time
# (/usr/bin/time, package "time") and, for the peer, openssl with
# libengine-gost-openssl (bench/peers.sh installs both).
set -euo pipefail

mib=1024 runs=5 peer_runs=2 threads=0 alg=kuznyechik peer=1 cache=written
dir=${TMPDIR:-/tmp}
gostx=build/gostx
while [ $# -gt 0 ]; do
  case "$1" in
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --peer-runs) peer_runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --gostx) gostx=$2; shift 2 ;;
    --alg) alg=$2; shift 2 ;;
    -j) threads=$2; shift 2 ;;
    --no-peer) peer=0; shift ;;
    --cache) cache=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "file_speed.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$gostx" ] || { echo "file_speed.sh: $gostx not found (make build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "file_speed.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
if [ "$peer" = 1 ] && ! openssl engine gost >/dev/null 2>&1; then
  echo "file_speed.sh: openssl has no gost engine (apt-get install libengine-gost-openssl), or pass --no-peer" >&2
  exit 2
fi

work=$(mktemp -d "$dir/gostx-file-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
plain=$work/plain ct=$work/plain.gx out=$work/plain.out
"$gostx" keygen -o "$work/key"
head -c "$((mib * 1048576))" /dev/urandom >"$plain"
case $cache in
  written) ;;
  read) # out of the cache (written back first), then read back in
    sync "$plain"
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$plain" ;;
  *) echo "file_speed.sh: --cache written|read" >&2; exit 2 ;;
esac
cat "$plain" >/dev/null # in the page cache before the first run
okey=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
oiv=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')

# timed LABEL CMD...: appends "wall user sys" to $work/LABEL.
timed() {
  local label=$1; shift
  if ! /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >/dev/null 2>"$work/err"; then
    echo "file_speed.sh: failed: $*" >&2; cat "$work/err" >&2; exit 1
  fi
  cat "$work/t" >>"$work/$label"
}

# MB/s of the in-memory MGM row, appended as the wall time it would take for
# $mib MiB to $work/mgm (so that median() below reads it like the others).
mgm_round() {
  local j=$threads mbps
  [ "$j" = 0 ] && j=all
  mbps=$("$gostx" bench --threads "$j" --filter "$alg-mgm-enc" --size 64M --repeat 1 --json |
    sed -n 's/.*"mbps_aligned": \([0-9.]*\).*/\1/p' | head -1)
  awk -v m="$mbps" -v n="$mib" 'BEGIN {printf "%.3f - -\n", n * 1.048576 / m}' >>"$work/mgm"
}

# Outputs are removed before each timed run, for gostx and openssl alike:
# replacing an existing 1 GiB file cost up to ~1 s more on the build machine's
# ext4 (mounted with discard: freeing the old file's blocks; and ext4 starts
# writeback of a file that replaces another by rename), a cost of the file
# system, not of the cipher.
# The "over" rows replace the previous run's output, after a sync so that its
# writeback is not charged to them.
for ((i = 0; i < runs; i++)); do
  mgm_round
  rm -f "$ct"
  sync
  timed enc "$gostx" enc -q -a "$alg" -j "$threads" -k "$work/key" -i "$plain" -o "$ct"
  sync
  timed enc_over "$gostx" enc -q -a "$alg" -j "$threads" -k "$work/key" -i "$plain" -o "$ct"
  rm -f "$work/copy"
  sync
  timed cp_new cp "$plain" "$work/copy"
  sync
  timed cp_over cp "$plain" "$work/copy"
  rm -f "$work/copy"
  cat "$ct" >/dev/null # enc writes past the page cache (O_DIRECT): warm the input of dec
  timed dec "$gostx" dec -q -j "$threads" -k "$work/key" -i "$ct" -o "$out"
  cmp -s "$plain" "$out" || { echo "file_speed.sh: round trip differs (run $i)" >&2; exit 1; }
  rm -f "$out"
  if [ "$peer" = 1 ] && [ "$i" -lt "$peer_runs" ]; then
    timed openssl openssl enc -engine gost -kuznyechik-ctr -K "$okey" -iv "$oiv" \
      -in "$plain" -out "$work/plain.ossl"
    rm -f "$work/plain.ossl"
  fi
done

# median of column 1 (wall), and the runs as a list
median() { sort -n "$1" | awk '{w[NR] = $1} END {print (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2}'; }
runs_of() { awk '{printf "%s%s", (NR > 1 ? " " : ""), $1}' "$1"; }
cpu_of() { sort -n "$1" | awk '{u[NR] = $2; s[NR] = $3} END {i = int((NR + 1) / 2); printf "%s / %s", u[i], s[i]}'; }

echo "file encryption, $mib MiB of random data in $dir (page cache: $cache), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) online), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gostx: -a $alg -j $threads; implementations: $("$gostx" info 2>/dev/null | grep -E "^($alg|mgm) " | tr -s ' ' | paste -sd, - | sed 's/,/, /g')"
printf '%-46s %10s %10s %22s %8s %8s\n' command "MB/s" "wall med" "user / sys (med run)" "x" "xMGM"
base=""
[ "$peer" = 1 ] && base=$(median "$work/openssl")
mgm=$(median "$work/mgm")
for label in mgm enc enc_over dec cp_new cp_over openssl; do
  [ -s "$work/$label" ] || continue
  m=$(median "$work/$label")
  case $label in
    mgm) name="in memory: gostx bench $alg-mgm-enc (pool)" ;;
    enc) name="gostx enc ($alg-MGM, authenticated)" ;;
    enc_over) name="gostx enc over an existing output" ;;
    dec) name="gostx dec" ;;
    cp_new) name="cp to a new file (no fsync)" ;;
    cp_over) name="cp over an existing file (no fsync)" ;;
    openssl) name="openssl enc -engine gost -kuznyechik-ctr" ;;
  esac
  ratio="-" rmgm="-"
  [ -n "$base" ] && ratio=$(awk -v b="$base" -v m="$m" 'BEGIN {printf "%.2f", b / m}')
  case $label in enc|enc_over|dec) rmgm=$(awk -v b="$mgm" -v m="$m" 'BEGIN {printf "%.2f", b / m}') ;; esac
  printf '%-46s %10.1f %9.2fs %22s %8s %8s\n' "$name" "$(awk -v m="$m" -v n="$mib" 'BEGIN {print n * 1.048576 / m}')" \
    "$m" "$(cpu_of "$work/$label")" "$ratio" "$rmgm"
  echo "    runs (wall, s): $(runs_of "$work/$label")"
done
[ -n "$base" ] && echo "x = openssl's median wall time / this row's (above 1: faster than gost-engine's CTR)"
echo "xMGM = this row's MB/s / the in-memory MGM row's (issue 21: enc to a new output >= 0.9)"
exit 0
