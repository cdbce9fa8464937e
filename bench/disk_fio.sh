#!/usr/bin/env bash
# The encrypted disk judged by fio, side by side (docs/DISK.md): nbdkit
# serving a 1 GiB disk held in memory (a file on /dev/shm, nbdkit's file
# plugin) three ways:
#   plain  no encryption
#   luks   nbdkit's luks filter, AES-256-XTS (AES-NI), a LUKS1 image made by qemu-img
#   gostx  the gostx filter, Kuznyechik-XTS, 512-byte sectors, plain64 tweaks
# Profiles (the storage article's): randread 4k, randwrite 4k, read 4k,
# write 4k, read 128k, write 128k; queue depth 32, 2 jobs, fio's nbd engine.
# The three are interleaved per profile and each run --reps times; medians of
# IOPS, mean and p99 completion latency, and nbdkit's CPU seconds per GB moved.
#
# Usage: bash bench/disk_fio.sh [--seconds 5] [--reps 3] [--build build]
#                               [--threads N (gostx-threads, default: CPUs)]
#                               [--ab DIR (another build's filter, interleaved
#                                as config gostx-ab on the same image: before/after)]
# Needs: nbdkit, fio, qemu-img (Debian: nbdkit fio qemu-utils), and a build
# with the filter (nbdkit-plugin-dev present when cmake ran).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=5 reps=3 build=build threads= ab=
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) secs=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --ab) ab=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--reps N] [--build DIR] [--threads N] [--ab DIR]" >&2; exit 2 ;;
  esac
done
filter=$PWD/$build/nbdkit-gostx-filter.so
for t in nbdkit fio qemu-img python3; do
  command -v $t >/dev/null || { echo "$0: $t is not installed" >&2; exit 1; }
done
[ -f "$filter" ] || { echo "$0: no $filter (build with nbdkit-plugin-dev installed)" >&2; exit 1; }
configs=(plain luks gostx)
if [ -n "$ab" ]; then
  abfilter=$(cd "$ab" && pwd)/nbdkit-gostx-filter.so
  [ -f "$abfilter" ] || { echo "$0: no $abfilter" >&2; exit 1; }
  configs+=(gostx-ab)
fi

work=$(mktemp -d /dev/shm/gostx-fio.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
size=1G
truncate -s $size "$work/plain.img" "$work/gostx.img"
head -c 64 /dev/urandom > "$work/key"
printf 'fio-bench-passphrase' > "$work/pass"
chmod 600 "$work/key" "$work/pass" # the filter refuses key files others can read
# LUKS1 (qemu-img writes LUKS1), AES-256-XTS with plain64 IVs as cryptsetup's default.
qemu-img create -q -f luks --object secret,id=s0,file="$work/pass" \
  -o key-secret=s0,cipher-alg=aes-256,cipher-mode=xts,ivgen-alg=plain64,hash-alg=sha256,iter-time=10 \
  "$work/luks.img" $size

start() { # start CONFIG: nbdkit in the background on $work/sock
  rm -f "$work/sock" "$work/pid"
  local args=()
  case $1 in
    plain) args=(file "$work/plain.img") ;;
    luks) args=(--filter=luks file "$work/luks.img" passphrase=+"$work/pass") ;;
    gostx | gostx-ab)
           f=$filter
           [ "$1" = gostx ] || f=$abfilter
           args=(--filter="$f" file "$work/gostx.img" key="$work/key")
           [ -z "$threads" ] || args+=(gostx-threads="$threads") ;;
  esac
  nbdkit -U "$work/sock" -P "$work/pid" "${args[@]}"
  for _ in $(seq 100); do [ -s "$work/pid" ] && [ -S "$work/sock" ] && break; sleep 0.05; done
  pid=$(cat "$work/pid")
}
stop() { kill "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done; pid=; }
cpu_s() { # utime + stime of the server, seconds
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$pid/stat"
}

# Fill the disks once so that reads read written data.
for c in plain luks gostx; do
  start $c
  fio --name=fill --ioengine=nbd --uri="nbd+unix:///?socket=$work/sock" --rw=write --bs=1M \
      --iodepth=8 --size=$size --output=/dev/null
  stop
done

profiles=("randread 4k" "randwrite 4k" "read 4k" "write 4k" "read 128k" "write 128k")
results=$work/results.txt
: > "$results"
cpu_model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
echo "CPU: $cpu_model, $(nproc) CPUs; $(date -u +%FT%TZ); ${secs}s per run, $reps runs each" >&2
for ((r = 1; r <= reps; r++)); do
  for p in "${profiles[@]}"; do
    set -- $p
    for c in "${configs[@]}"; do
      start $c
      c0=$(cpu_s)
      fio --name=bench --ioengine=nbd --uri="nbd+unix:///?socket=$work/sock" --rw="$1" \
          --bs="$2" --iodepth=32 --numjobs=2 --group_reporting --time_based --runtime="$secs" \
          --size=$size --output-format=json --output="$work/out.json"
      c1=$(cpu_s)
      stop
      python3 - "$work/out.json" "$c" "$1" "$2" "$c0" "$c1" >> "$results" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
side = j["read"] if j["read"]["io_bytes"] > 0 else j["write"]
lat = side["clat_ns"]
p99 = lat.get("percentile", {}).get("99.000000", 0)
gb = side["io_bytes"] / 1e9
cpu = float(sys.argv[6]) - float(sys.argv[5])
print(sys.argv[2], sys.argv[3], sys.argv[4], side["iops"], lat["mean"] / 1e3, p99 / 1e3,
      cpu / gb if gb else 0)
PY
      echo "run $r: $c $p done" >&2
    done
  done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    c, rw, bs, iops, mean, p99, cpu = line.split()
    rows.setdefault((rw, bs), {}).setdefault(c, []).append((float(iops), float(mean), float(p99), float(cpu)))
med = lambda v, i: statistics.median(x[i] for x in v)
print("| profile | config | IOPS | mean lat us | p99 lat us | nbdkit CPU s/GB | vs luks IOPS | vs plain IOPS |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for (rw, bs), d in rows.items():
    for c in ("plain", "luks", "gostx", "gostx-ab"):
        if c not in d: continue
        v = d[c]
        iops = med(v, 0)
        print(f"| {rw} {bs} | {c} | {iops:,.0f} | {med(v, 1):,.0f} | {med(v, 2):,.0f} | "
              f"{med(v, 3):.2f} | {iops / med(d['luks'], 0):.2f}x | {iops / med(d['plain'], 0):.2f}x |")
PY
