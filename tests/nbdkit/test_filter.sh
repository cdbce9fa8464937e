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
#   - bad keys and options are refused with one clear line;
#   - LUKS1 mode (passphrase=+FILE on a disk from `gostx disk format`): the
#     same in/out, reference and random I/O checks on the payload, whose
#     sectors equal XTS under the master key (`gostx disk dump --master-key`)
#     with tweaks counted from the payload's start; the plugin sees no
#     write and no cache request before the payload (nbdkit's log filter
#     below ours); a passphrase added by `gostx disk add-pass` serves the
#     same disk (also from a file ending in CR LF); wrong passphrase,
#     damaged header, short disk, a header changed after start-up and bad
#     option mixes, an empty passphrase refused with their line;
#   - a passphrase that does not open the disk stops nbdkit at start-up with a
#     non-zero status and the reason on stderr (as a daemon, in the
#     foreground, and under --run, whose command is then not run), unless
#     luks-failure=refuse-connections, where every connection fails instead;
#   - the file plugin's dir= mode: refused at start-up with a clear line by
#     default (it once crashed nbdkit), and with refuse-connections each
#     export is its own LUKS1 disk, opened on its first connection;
#   - key and passphrase files that group or others can access are refused,
#     naming the file and its mode; insecure-key-file=true takes them with a
#     warning.
# Usage: test_filter.sh FILTER.so GOSTX_BINARY
set -u
filter=$1
gostx=$2
for t in nbdkit nbdcopy nbdinfo python3; do
  command -v "$t" >/dev/null || { echo "skipped: $t not installed"; exit 77; }
done
# the waits' scale on a busy or slow machine: bound N, a scaled timeout(1)
. "$(dirname "$0")/../support/time_factor.sh"
# nbdsh is libnbd's Python module (python3-libnbd): use a python3 that has it
export PYNBD=
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import nbd' 2>/dev/null; then PYNBD=$py; break; fi
done
[ -n "$PYNBD" ] || { echo "skipped: no python3 with libnbd (python3-libnbd)"; exit 77; }
# key and passphrase files only the owner can read (the filter refuses others)
umask 077
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# nbdkit -U - makes its socket's directory in /tmp (not under $TMPDIR) and
# leaves it behind when it exits on an error (the refusals below): ~20 empty
# /tmp/nbdkitXXXXXX per run. An nbdkit first on PATH (for `timeout nbdkit`
# too) turns -U - into a socket in $tmp, named by its pid.
mkdir "$tmp/bin"
cat >"$tmp/bin/nbdkit" <<EOF
#!/usr/bin/env bash
args=() prev=
for a in "\$@"; do
  if [ "\$prev" = -U ] && [ "\$a" = - ]; then a=$tmp/nbd.\$\$.sock; rm -f "\$a"; fi
  args+=("\$a") prev=\$a
done
exec $(command -v nbdkit) "\${args[@]}"
EOF
chmod +x "$tmp/bin/nbdkit"
export PATH=$tmp/bin:$PATH
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
for _ in $(seq $(bound 100)); do [ -S "$tmp/csock" ] && [ -s "$tmp/cpid" ] && break; sleep 0.05; done
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
# refused_by "CMD" DISK WHAT EXPECTED-TEXT ARGS...: nbdkit serving DISK with
# ARGS, or CMD run against it, fails, and the output says EXPECTED-TEXT
refused_by() {
  local cmd=$1 disk=$2 what=$3 want=$4
  shift 4
  if timeout 60 nbdkit -U - --filter="$filter" --run "$cmd" file "$disk" "$@" > "$tmp/out2" 2>&1
  then
    echo "FAIL: $what: accepted"
    fail=$((fail + 1))
  elif grep -q "$want" "$tmp/out2"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $what: message was: $(cat "$tmp/out2")"
    fail=$((fail + 1))
  fi
}
refused() { refused_by true "$tmp/d2" "$@"; } # refused WHAT EXPECTED-TEXT ARGS...
head -c 63 "$tmp/key" > "$tmp/short.key"
head -c 32 "$tmp/key" > "$tmp/half"
cat "$tmp/half" "$tmp/half" > "$tmp/same.key"
refused "no key" "key=KEYFILE is required"
refused "63-byte key" "must hold exactly 64 bytes" key="$tmp/short.key"
refused "missing key file" "No such file" key="$tmp/nonexistent"
refused "equal key halves" "halves must differ" key="$tmp/same.key"
refused "sector size 1024" "sector-size must be 512 or 4096" key="$tmp/key" sector-size=1024
refused "bad boolean" "boolean" key="$tmp/key" iv-large-sectors=maybe

# ---- LUKS1 mode ----
printf 'luks passphrase\n' > "$tmp/lpass"
printf 'second passphrase' > "$tmp/lpass2"
printf 'not the passphrase\n' > "$tmp/lwrong"
ldisk=$tmp/luks.img
area=$((2 << 20)) # the header area: payload offset 4096 sectors
size=$((1024 * 1024 + 3 * 512))
"$gostx" disk format "$ldisk" --size "$size" --pass-file "$tmp/lpass" --iter 1000 > /dev/null
mk=$("$gostx" disk dump "$ldisk" --master-key --pass-file "$tmp/lpass" |
  sed -n 's/^Master key: *//p')
cp "$ldisk" "$tmp/luks.orig"
head -c "$size" /dev/urandom > "$tmp/limg"
lserve() { # lserve DISK "CMD" OPTIONS...
  local disk=$1 cmd=$2
  shift 2
  nbdkit -U - --filter="$filter" --run "$cmd" file "$disk" "$@"
}
payload_is_xts_of() { # the payload = XTS of IMAGE under the master key, tweaks from 0
  tail -c +$((area + 1)) "$ldisk" > "$tmp/payload"
  "$gostx" cipher kuznyechik-xts -k "$mk" --sector 0 --sector-size 512 -i "$1" -o "$tmp/lref"
  cmp -s "$tmp/payload" "$tmp/lref"
}
export IMG=$tmp/limg OUT=$tmp/lout SEED=$RANDOM RW=$tmp/rw.py LOG=$tmp/llog
check "luks: nbdinfo size = the payload" \
  [ "$(lserve "$ldisk" 'nbdinfo --size "$uri"' passphrase=+"$tmp/lpass")" = "$size" ]
check "luks: nbdcopy in" lserve "$ldisk" 'nbdcopy "$IMG" "$uri"' passphrase=+"$tmp/lpass"
check "luks: nbdcopy back out" lserve "$ldisk" 'nbdcopy "$uri" "$OUT"' passphrase=+"$tmp/lpass"
check "luks: image read back equal" cmp -s "$tmp/limg" "$tmp/lout"
check "luks: payload = XTS under the master key, tweak = sector from the payload's start" \
  payload_is_xts_of "$tmp/limg"
check "luks: header area untouched" \
  cmp -s <(head -c "$area" "$ldisk") <(head -c "$area" "$tmp/luks.orig")
rm -f "$LOG"
check "luks: random unaligned I/O matches the model (seed $SEED)" \
  nbdkit -U - --filter="$filter" --filter=log --run \
  '"$PYNBD" -m nbd -u "$uri" -c "h.cache(65536, 4096); exec(open(\"$RW\").read())"' \
  file "$ldisk" passphrase=+"$tmp/lpass" logfile="$LOG"
check "luks: payload after random I/O = XTS of the model" payload_is_xts_of "$tmp/limg.model"
check "luks: header area untouched by random I/O" \
  cmp -s <(head -c "$area" "$ldisk") <(head -c "$area" "$tmp/luks.orig")
check "luks: the plugin saw writes, and no write or cache before the payload" python3 -c '
import re, sys
log, area = open(sys.argv[1]).read(), int(sys.argv[2])
ops = [(m[1], int(m[2], 16))
       for m in re.finditer(r" (Write|Cache|Zero|Trim) id=\d+ offset=(0x[0-9a-f]+)", log)]
writes = [o for op, o in ops if op == "Write"]
cache = [o for op, o in ops if op == "Cache"]
ok = writes and cache == [area + 4096] and min(o for _, o in ops) >= area
sys.exit(0 if ok else 1)' "$LOG" "$area"
"$gostx" disk add-pass "$ldisk" --pass-file "$tmp/lpass" --new-pass-file "$tmp/lpass2" \
  --iter 1000 > /dev/null
check "luks: a passphrase added by gostx disk serves the same disk" \
  lserve "$ldisk" 'nbdcopy "$uri" "$OUT"' passphrase=+"$tmp/lpass2"
check "luks: ... and reads the model" cmp -s "$tmp/limg.model" "$tmp/lout"
printf 'crlf line end\r\n' > "$tmp/lpass3"
"$gostx" disk add-pass "$ldisk" --pass-file "$tmp/lpass" --new-pass-file "$tmp/lpass3" \
  --iter 1000 > /dev/null
check "luks: a passphrase file ending in CR LF reads as gostx disk reads it" \
  lserve "$ldisk" 'nbdinfo --size "$uri" > /dev/null' passphrase=+"$tmp/lpass3"

# Refusals in LUKS mode: a bad configuration stops nbdkit at start-up; a disk
# that does not open is logged once and every connection fails with the
# reason (nbdkit cannot exit then: after it forks, --run's client would wait).
lrefused() { # lrefused WHAT EXPECTED-TEXT DISK ARGS...
  local what=$1 want=$2 disk=$3
  shift 3
  refused_by 'nbdinfo --size "$uri"' "$disk" "luks: $what" "$want" "$@"
}
cp "$ldisk" "$tmp/lbad"
lrefused "wrong passphrase" "cannot open the LUKS1 disk: no key slot opens with this passphrase" \
  "$tmp/lbad" passphrase=+"$tmp/lwrong"
printf 'LUKZ' | dd of="$tmp/lbad" conv=notrunc status=none
lrefused "bad magic" "LUKS1 header: not a LUKS disk (bad magic)" "$tmp/lbad" \
  passphrase=+"$tmp/lpass"
cp "$ldisk" "$tmp/lbad"
printf 'aes\0' | dd of="$tmp/lbad" bs=1 seek=8 conv=notrunc status=none
lrefused "cipher aes" "unsupported cipher-name" "$tmp/lbad" passphrase=+"$tmp/lpass"
cp "$ldisk" "$tmp/lbad"
printf '\0\2' | dd of="$tmp/lbad" bs=1 seek=6 conv=notrunc status=none
lrefused "LUKS2" "only LUKS1 is supported" "$tmp/lbad" passphrase=+"$tmp/lpass"
head -c $((area - 512)) "$ldisk" > "$tmp/lshort"
lrefused "short disk" "smaller than its LUKS1 header area" "$tmp/lshort" passphrase=+"$tmp/lpass"
head -c 100 "$ldisk" > "$tmp/ltiny"
lrefused "100-byte disk" "too small to hold a LUKS1 header" "$tmp/ltiny" passphrase=+"$tmp/lpass"
lrefused "key and passphrase" "not both" "$ldisk" passphrase=+"$tmp/lpass" key="$tmp/key"
lrefused "passphrase twice" "passphrase given twice" "$ldisk" passphrase=+"$tmp/lpass" \
  passphrase=+"$tmp/lpass"
lrefused "sector-size 4096" "512-byte sectors" "$ldisk" passphrase=+"$tmp/lpass" sector-size=4096
lrefused "missing passphrase file" "No such file" "$ldisk" passphrase=+"$tmp/nonexistent"
printf '\n' > "$tmp/lempty"
lrefused "empty passphrase" "passphrase must be 1 to 1024 bytes" "$ldisk" passphrase=+"$tmp/lempty"
# the header changed under a running server: the next connection is refused
cp "$ldisk" "$tmp/lchg"
rm -f "$tmp/lsock"
nbdkit -f -U "$tmp/lsock" --filter="$filter" file "$tmp/lchg" passphrase=+"$tmp/lpass" \
  2> "$tmp/lsrv" &
lpid=$!
first=1 # the server up: the first connection succeeds (PBKDF2 at start-up: on a
# loaded machine that took over 10 s, so wait up to a minute)
for _ in $(seq $(bound 1200)); do
  nbdinfo --size "nbd+unix:///?socket=$tmp/lsock" > /dev/null 2>&1 && first=0 && break
  sleep 0.05
done
# one UUID character changed: 'X' is never in a UUID (writing a hex digit
# left the header unchanged whenever the UUID already had it there: 1 run in 16)
printf 'X' | dd of="$tmp/lchg" bs=1 seek=168 conv=notrunc status=none
nbdinfo --size "nbd+unix:///?socket=$tmp/lsock" > /dev/null 2>&1
second=$?
kill "$lpid"
wait "$lpid" 2> /dev/null
changed_refused() {
  [ "$first" = 0 ] && [ "$second" != 0 ] && grep -q "not the one opened at start-up" "$tmp/lsrv" ||
    { echo "first connection $first, second $second, server: $(cat "$tmp/lsrv")"; false; }
}
check "luks: a header changed after start-up is refused" changed_refused

# A passphrase that does not open the disk stops nbdkit at start-up: non-zero
# status, the reason on stderr, in each way nbdkit is run.
wrong_reason="cannot open the LUKS1 disk: no key slot opens with this passphrase"
exits_with_reason() { # exits_with_reason WANT NBDKIT-ARGS...: nbdkit fails, says WANT
  local want=$1 rc
  shift
  timeout 60 nbdkit "$@" > "$tmp/exit.out" 2>&1
  rc=$?
  [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "$want" "$tmp/exit.out" ||
    { echo "nbdkit exit status $rc, output: $(cat "$tmp/exit.out")"; false; }
}
rm -f "$tmp/wsock" "$tmp/wpid"
check "luks: wrong passphrase: nbdkit (daemon) exits non-zero with the reason" \
  exits_with_reason "$wrong_reason" -U "$tmp/wsock" -P "$tmp/wpid" --filter="$filter" \
  file "$ldisk" passphrase=+"$tmp/lwrong"
# a daemon that did start (the check failed) is stopped, and its socket gone
[ -s "$tmp/wpid" ] && kill "$(cat "$tmp/wpid")" &&
  for _ in $(seq $(bound 10)); do kill -0 "$(cat "$tmp/wpid")" 2>/dev/null || break; sleep 0.05; done
rm -f "$tmp/wsock"
check "luks: wrong passphrase: nbdkit -f exits non-zero with the reason" \
  exits_with_reason "$wrong_reason" -f -U "$tmp/wsock" --filter="$filter" file "$ldisk" \
  passphrase=+"$tmp/lwrong"
export TMPRAN=$tmp/ran
rm -f "$TMPRAN"
check "luks: wrong passphrase: nbdkit --run exits non-zero, the reason given" \
  exits_with_reason "$wrong_reason" -U - --filter="$filter" --run 'touch "$TMPRAN"' \
  file "$ldisk" passphrase=+"$tmp/lwrong"
check "luks: ... and --run's command was not run" [ ! -e "$tmp/ran" ]
# luks-failure=refuse-connections keeps nbdkit up; every connection fails
# with the reason (logged once, when the first connection tried it)
both_fail='! nbdinfo --size "$uri" && ! nbdinfo --size "$uri"'
check "luks: refuse-connections: nbdkit serves, each connection fails" \
  lserve "$ldisk" "$both_fail" passphrase=+"$tmp/lwrong" luks-failure=refuse-connections \
  2> "$tmp/refuse.err"
check "luks: refuse-connections: the reason is logged" \
  grep -q "$wrong_reason" "$tmp/refuse.err"
check "luks: refuse-connections with the right passphrase serves the disk" \
  lserve "$ldisk" 'nbdcopy "$uri" "$OUT"' passphrase=+"$tmp/lpass2" \
  luks-failure=refuse-connections
check "luks: ... and reads the model" cmp -s "$tmp/limg.model" "$tmp/lout"
lrefused "luks-failure=maybe" "luks-failure must be exit or refuse-connections" "$ldisk" \
  passphrase=+"$tmp/lpass" luks-failure=maybe
refused "luks-failure with key=" "luks-failure= is for a LUKS1 disk" key="$tmp/key" \
  luks-failure=exit

# The file plugin's dir= mode: a disk per export name, none at start-up.
mkdir "$tmp/dir"
for d in a b; do
  "$gostx" disk format "$tmp/dir/$d.img" --size "$size" --pass-file "$tmp/lpass" \
    --iter 1000 > /dev/null
  head -c "$size" /dev/urandom > "$tmp/dimg.$d"
done
"$gostx" disk format "$tmp/dir/c.img" --size "$size" --pass-file "$tmp/lpass2" \
  --iter 1000 > /dev/null
check "luks: dir= without refuse-connections: refused at start-up with a clear line" \
  exits_with_reason "add luks-failure=refuse-connections" -U - --filter="$filter" \
  --run 'nbdinfo --list "$uri"' file dir="$tmp/dir" passphrase=+"$tmp/lpass"
export SOCKURI='nbd+unix:///%s?socket=%s'
dserve() { # dserve "CMD" OPTIONS...: the directory, each export its own disk
  local cmd=$1
  shift
  nbdkit -U - --filter="$filter" --run "$cmd" file dir="$tmp/dir" \
    passphrase=+"$tmp/lpass" luks-failure=refuse-connections "$@"
}
export DIMG=$tmp/dimg
check "luks: dir=: an image into each export, two connections each" dserve '
  for d in a b; do
    nbdcopy "$DIMG.$d" "$(printf "$SOCKURI" $d.img "$unixsocket")" || exit 1
    nbdinfo --size "$(printf "$SOCKURI" $d.img "$unixsocket")" > /dev/null || exit 1
  done'
for d in a b; do # each file opened alone (file=) holds its own image
  check "luks: dir=: $d.img holds its image, under its own master key" \
    lserve "$tmp/dir/$d.img" 'nbdcopy "$uri" "$OUT"' passphrase=+"$tmp/lpass"
  check "luks: dir=: ... equal" cmp -s "$tmp/dimg.$d" "$tmp/lout"
done
check "luks: dir=: an export with another passphrase fails, the others serve" dserve '
  ! nbdinfo --size "$(printf "$SOCKURI" c.img "$unixsocket")" &&
  nbdinfo --size "$(printf "$SOCKURI" a.img "$unixsocket")" > /dev/null' 2> "$tmp/dir.err"
check "luks: dir=: ... with the reason logged" grep -q "$wrong_reason" "$tmp/dir.err"

# Key and passphrase files that group or others can access: refused with the
# file and its mode named, unless insecure-key-file=true (then a warning).
cp "$tmp/key" "$tmp/open.key"
chmod 644 "$tmp/open.key"
refused "key file mode 0644" "key file $tmp/open.key has mode 0644" key="$tmp/open.key"
cp "$tmp/lpass" "$tmp/open.pass"
chmod 640 "$tmp/open.pass"
lrefused "passphrase file mode 0640" "passphrase file $tmp/open.pass has mode 0640" "$ldisk" \
  passphrase=+"$tmp/open.pass"
chmod 600 "$tmp/open.key"
check "key file mode 0600 accepted" \
  nbdkit -U - --filter="$filter" --run 'nbdinfo --size "$uri" > /dev/null' file "$tmp/d2" \
  key="$tmp/open.key"
chmod 604 "$tmp/open.key"
check "key file mode 0604 with insecure-key-file=true accepted" \
  nbdkit -U - --filter="$filter" --run 'nbdinfo --size "$uri" > /dev/null' file "$tmp/d2" \
  key="$tmp/open.key" insecure-key-file=true 2> "$tmp/warn.err"
check "... with a warning naming the file and its mode" \
  grep -q "warning: key file $tmp/open.key has mode 0604" "$tmp/warn.err"
check "passphrase file mode 0640 with insecure-key-file=true accepted" \
  lserve "$ldisk" 'nbdinfo --size "$uri" > /dev/null' passphrase=+"$tmp/open.pass" \
  insecure-key-file=true 2> "$tmp/warn.err"
check "... with a warning naming the file and its mode" \
  grep -q "warning: passphrase file $tmp/open.pass has mode 0640" "$tmp/warn.err"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
