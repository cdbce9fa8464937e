#!/usr/bin/env bash
# The nbdkit filter (integrations/nbdkit) served by a real nbdkit over a real
# file, for each sector size and tweak convention:
#   - an image nbdcopy'd in and back out comes back equal;
#   - the backing file equals gostx's own XTS of the image, sector by sector
#     (`gostx cipher kuznyechik-xts`, a call per data unit, tweaks as the
#     convention says: 512-byte units, or sector numbers with
#     iv-large-sectors=true);
#   - unaligned reads, writes and zeroes at random offsets (nbdsh) match a
#     model of the disk, also across sector edges, and flush works;
#   - nbdinfo sees the sector size as the minimum block size and no trim;
#   - nbdkit killed (SIGKILL) under a writer leaves every sector old or new;
#   - bad keys and options are refused with one clear line.
# Usage: test_filter.sh FILTER.so GOSTX_BINARY
set -u
filter=$1
gostx=$2
for t in nbdkit nbdcopy nbdinfo python3; do
  command -v "$t" >/dev/null || { echo "skipped: $t not installed"; exit 77; }
done
# nbdsh is libnbd's Python module (python3-libnbd): use a python3 that has it
export PYNBD=
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import nbd' 2>/dev/null; then PYNBD=$py; break; fi
done
[ -n "$PYNBD" ] || { echo "skipped: no python3 with libnbd (python3-libnbd)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $what"; fail=$((fail + 1)); fi
}
head -c 64 /dev/urandom > "$tmp/key"
keyhex=$(od -An -tx1 -v "$tmp/key" | tr -d ' \n')

# serve DISK "CMD" OPTIONS...: nbdkit in captive mode, CMD run with $uri set
serve() {
  local disk=$1 cmd=$2
  shift 2
  nbdkit -U - --filter="$filter" --run "$cmd" file "$disk" key="$tmp/key" "$@"
}

# The expected backing file: XTS of each data unit with its tweak number.
reference() { # reference IMAGE SECTOR_SIZE UNITS_PER_TWEAK OUT
  local img=$1 ss=$2 per=$3 out=$4
  if [ "$per" = 1 ]; then
    "$gostx" cipher kuznyechik-xts -k "$keyhex" --sector 0 --sector-size "$ss" -i "$img" -o "$out"
    return
  fi
  local n=$(($(stat -c %s "$img") / ss)) s
  : > "$out"
  for ((s = 0; s < n; s++)); do
    dd if="$img" bs="$ss" skip="$s" count=1 status=none |
      "$gostx" cipher kuznyechik-xts -k "$keyhex" --sector $((s * per)) >> "$out"
  done
}

cat > "$tmp/rw.py" <<'PY'
# Random unaligned writes, zeroes and reads against a model of the disk.
import os, random, sys
img, seed = os.environ["IMG"], int(os.environ["SEED"])
rng = random.Random(seed)
# the filter advertises its sector as the minimum block size; libnbd would
# refuse smaller requests, and these are exactly what is being tested
h.set_strict_mode(h.get_strict_mode() & ~nbd.STRICT_ALIGN)
model = bytearray(open(img, "rb").read())
size = h.get_size()
assert size == len(model), (size, len(model))
bad = 0
for i in range(300):
    off = rng.randrange(size)
    n = min(rng.randrange(1, 9000), size - off)
    op = rng.randrange(10)
    if op < 5:
        buf = rng.randbytes(n)
        h.pwrite(buf, off)
        model[off:off + n] = buf
    elif op < 6:
        h.zero(n, off)
        model[off:off + n] = bytes(n)
    elif op < 7:
        h.flush()
    else:
        got = h.pread(n, off)
        if got != model[off:off + n]:
            bad += 1
            print(f"read mismatch at {off}+{n}", file=sys.stderr)
got = h.pread(size, 0)
if got != model:
    bad += 1
    print("whole-disk read differs from the model", file=sys.stderr)
open(img + ".model", "wb").write(model)
sys.exit(1 if bad else 0)
PY

for conf in "512 false" "4096 false" "4096 true"; do
  set -- $conf
  ss=$1 large=$2
  per=1
  [ "$large" = true ] || per=$((ss / 512))
  name="sector-size=$ss iv-large-sectors=$large"
  size=$((1024 * 1024 + 3 * ss)) # 1 MiB and a few sectors: pool and inline paths
  head -c "$size" /dev/urandom > "$tmp/img"
  truncate -s "$size" "$tmp/disk"
  opts=(sector-size="$ss" iv-large-sectors="$large")
  export IMG=$tmp/img OUT=$tmp/out SEED=$RANDOM RW=$tmp/rw.py
  check "$name: nbdcopy in" serve "$tmp/disk" 'nbdcopy "$IMG" "$uri"' "${opts[@]}"
  check "$name: nbdcopy back out" serve "$tmp/disk" 'nbdcopy "$uri" "$OUT"' "${opts[@]}"
  check "$name: image read back equal" cmp -s "$tmp/img" "$tmp/out"
  reference "$tmp/img" "$ss" "$per" "$tmp/ref"
  check "$name: backing file = gostx XTS per data unit, tweak unit $((per == 1 ? ss : 512))" \
    cmp -s "$tmp/disk" "$tmp/ref"
  check "$name: random unaligned I/O matches the model (seed $SEED)" \
    serve "$tmp/disk" '"$PYNBD" -m nbd -u "$uri" -c "exec(open(\"$RW\").read())"' "${opts[@]}"
  # what the model says the disk holds is what the backing file decrypts to
  reference "$tmp/img.model" "$ss" "$per" "$tmp/ref2"
  check "$name: backing file after random I/O = XTS of the model" cmp -s "$tmp/disk" "$tmp/ref2"
  serve "$tmp/disk" 'nbdinfo --json "$uri"' "${opts[@]}" > "$tmp/info.json"
  check "$name: nbdinfo: minimum block size $ss, no trim, size" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["exports"][0]
ok = d["block_size_minimum"] == int(sys.argv[2]) and d["can_trim"] is False and d["export-size"] == int(sys.argv[3])
sys.exit(0 if ok else 1)' "$tmp/info.json" "$ss" "$size"
done

# Crash safety: a writer over the filter, nbdkit killed with SIGKILL mid-run.
# After a restart every 512-byte sector holds its old content or its content
# from one of the writes that were issued (logged before each write), no
# other sector has changed, and reading twice gives the same bytes.
cat > "$tmp/writer.py" <<'PY'
import os, random, struct, sys, nbd
sock, log, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
h = nbd.NBD()
h.connect_unix(sock)
rng = random.Random(seed)
blocks = h.get_size() // 4096
with open(log, "w", buffering=1) as f:
    for v in range(1, 1 << 30):
        b = rng.randrange(blocks)
        f.write(f"{b} {v}\n")
        f.flush()
        h.pwrite(struct.pack("<QQ", b, v) * 256, b * 4096)
PY
cat > "$tmp/crashcheck.py" <<'PY'
import struct, sys
old, got, again = (open(p, "rb").read() for p in sys.argv[1:4])
log = sys.argv[4]
issued = {}
for line in open(log):
    parts = line.split()
    if len(parts) == 2:
        issued.setdefault(int(parts[0]), []).append(int(parts[1]))
bad = 0
if got != again:
    bad += 1
    print("two reads of the disk differ")
for s in range(len(old) // 512):
    b, o = s // 8, s * 512
    sec = got[o:o + 512]
    ok = sec == old[o:o + 512] or any(sec == struct.pack("<QQ", b, v) * 32 for v in issued.get(b, []))
    if not ok:
        bad += 1
        if bad < 5:
            print(f"sector {s} (block {b}) holds neither its old nor an issued content")
n = sum(len(v) for v in issued.values())
print(f"{n} writes issued, {len(issued)} blocks touched, {bad} bad")
sys.exit(1 if bad or n < 10 else 0)
PY
head -c $((4 << 20)) /dev/urandom > "$tmp/cimg"
truncate -s $((4 << 20)) "$tmp/cdisk"
export IMG=$tmp/cimg OUT=$tmp/cout OUT2=$tmp/cout2
serve "$tmp/cdisk" 'nbdcopy "$IMG" "$uri"'
rm -f "$tmp/csock" "$tmp/cpid"
nbdkit -U "$tmp/csock" -P "$tmp/cpid" --filter="$filter" file "$tmp/cdisk" key="$tmp/key"
for _ in $(seq 100); do [ -S "$tmp/csock" ] && [ -s "$tmp/cpid" ] && break; sleep 0.05; done
"$PYNBD" "$tmp/writer.py" "$tmp/csock" "$tmp/clog" "$RANDOM" 2> /dev/null &
wpid=$!
sleep 1.5
kill -KILL "$(cat "$tmp/cpid")"
wait "$wpid" 2> /dev/null
serve "$tmp/cdisk" 'nbdcopy "$uri" "$OUT" && nbdcopy "$uri" "$OUT2"'
check "crash: after SIGKILL every sector is old or written, the rest unchanged" \
  "$PYNBD" "$tmp/crashcheck.py" "$tmp/cimg" "$tmp/cout" "$tmp/cout2" "$tmp/clog"

# Refusals: one clear line, nbdkit exits non-zero.
truncate -s 65536 "$tmp/d2"
refused() { # refused WHAT EXPECTED-TEXT ARGS...
  local what=$1 want=$2
  shift 2
  if nbdkit -U - --filter="$filter" --run true file "$tmp/d2" "$@" > "$tmp/out2" 2>&1; then
    echo "FAIL: $what: accepted"
    fail=$((fail + 1))
  elif grep -q "$want" "$tmp/out2"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $what: message was: $(cat "$tmp/out2")"
    fail=$((fail + 1))
  fi
}
head -c 63 "$tmp/key" > "$tmp/short.key"
head -c 32 "$tmp/key" > "$tmp/half"
cat "$tmp/half" "$tmp/half" > "$tmp/same.key"
refused "no key" "key=KEYFILE is required"
refused "63-byte key" "must hold exactly 64 bytes" key="$tmp/short.key"
refused "missing key file" "No such file" key="$tmp/nonexistent"
refused "equal key halves" "halves must differ" key="$tmp/same.key"
refused "sector size 1024" "sector-size must be 512 or 4096" key="$tmp/key" sector-size=1024
refused "bad boolean" "boolean" key="$tmp/key" iv-large-sectors=maybe

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
