#!/usr/bin/env bash
# CLI tests of `gostx enc`, `gostx dec` and `gostx keygen` (docs/FORMAT.md):
# round trips (sizes around the chunk size, both algorithms, key file and
# passphrase file, thread counts, stdin/stdout), and hostile inputs: wrong key
# or passphrase, flipped bits in header/chunks/tags, truncation, reordered,
# duplicated and spliced chunks, changed header fields, trailing data, absurd
# header values. Each must exit non-zero with a clear message, leave no output
# file (and no temporary file) and leave the input unchanged.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" enc
not() { ! "$@"; }

# ---- byte surgery ----
# H = header length, K = chunk size used below, R = record (chunk + tag).
H=84
K=1024
size() { stat -c %s "$1"; }
flip() { # flip FILE OFFSET [MASK]: xor one byte in place
  local f=$1 off=$2 mask=${3:-1} b
  b=$(od -An -tu1 -j"$off" -N1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ mask)))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}
setbyte() { # setbyte FILE OFFSET VALUE
  printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
piece() { # piece FILE OFFSET LEN: bytes to stdout
  tail -c +$(($2 + 1)) "$1" | head -c "$3"
}

# ---- setup ----
"$G" keygen -o "$T/key" || { echo "keygen failed"; exit 1; }
"$G" keygen -o "$T/key2" || exit 1
printf 'correct horse battery staple\n' >"$T/pass"
printf 'correct horse battery stapler\n' >"$T/pass2"
head -c 3145733 /dev/urandom >"$T/big" # 3 MiB + 5: four default chunks
head -c 20000 /dev/urandom >"$T/src"

# ---- keygen ----
check "keygen: 32 bytes" [ "$(size "$T/key")" = 32 ]
check "keygen: mode 0600" [ "$(stat -c %a "$T/key")" = 600 ]
check "keygen: two keys differ" not cmp -s "$T/key" "$T/key2"
cp "$T/key" "$T/key.bak"
"$G" keygen -o "$T/key" 2>"$T/err"; rc=$?
check "keygen: refuses to overwrite (exit 1)" [ $rc = 1 ]
check "keygen: says why" grep -q "exists" "$T/err"
check "keygen: old key kept" cmp -s "$T/key" "$T/key.bak"
"$G" keygen -o "$T/key3" && chmod 644 "$T/key3" && "$G" keygen -o "$T/key3" --force
check "keygen --force: replaced, mode 0600" [ "$(stat -c %a "$T/key3")" = 600 ]
"$G" keygen >"$T/key4"
check "keygen to stdout (not a tty)" [ "$(size "$T/key4")" = 32 ]
"$G" keygen --bogus 2>/dev/null; check "keygen: bad option exits 2" [ $? = 2 ]

# ---- round trips ----
rt() { # rt NAME PLAINFILE ENC-OPTIONS... ; decrypts with matching secret
  local name=$1 in=$2; shift 2
  local sec=(-k "$T/key")
  case " $* " in *" --pass-file "*) sec=(--pass-file "$T/pass") ;; esac
  rm -f "$T/rt.enc" "$T/rt.dec"
  if "$G" enc "$@" -i "$in" -o "$T/rt.enc" && "$G" dec "${sec[@]}" -i "$T/rt.enc" -o "$T/rt.dec" &&
    cmp -s "$in" "$T/rt.dec"; then ok; else bad "round trip: $name"; fi
}
for alg in kuznyechik magma; do
  tl=16; [ $alg = magma ] && tl=8
  for n in 0 1 1023 1024 1025 5000; do
    head -c $n "$T/src" >"$T/p$n"
    rt "$alg $n bytes, chunk 1K" "$T/p$n" -a $alg --chunk 1K -k "$T/key"
    nchunks=$(( n / K + (n % K || n == 0 ? 1 : 0) ))
    check "$alg $n bytes: file size" [ "$(size "$T/rt.enc")" = $((H + n + nchunks * tl)) ]
  done
  rt "$alg 2 chunks exact" "$T/p1024" -a $alg --chunk 1K -k "$T/key"
  rt "$alg passphrase file" "$T/p5000" -a $alg --chunk 1K --pass-file "$T/pass" --iter 1000
  rt "$alg default chunk, 3 MiB + 5" "$T/big" -a $alg -k "$T/key"
done
rt "chunk 1M spelled in bytes" "$T/p5000" --chunk 1048576 -k "$T/key"
rt "chunk 64M" "$T/p5000" --chunk 64M -k "$T/key"
# Thread counts: encrypt with one, decrypt with every other.
for j in 1 2 4 0; do
  "$G" enc -j $j -k "$T/key" --chunk 4K -i "$T/big" -o "$T/j$j.enc" || bad "enc -j $j"
done
for je in 1 2 4 0; do
  for jd in 1 4; do
    rm -f "$T/jd"
    if "$G" dec -j $jd -k "$T/key" -i "$T/j$je.enc" -o "$T/jd" && cmp -s "$T/jd" "$T/big"; then
      ok; else bad "enc -j $je / dec -j $jd"; fi
  done
done
# Big outputs go past the page cache (cli/common/out.c): the container's whole
# aligned pages straight from its buffers, the rest through 8 MiB staging
# buffers: outputs of exactly one buffer, one buffer and one page, and two
# buffers and an unaligned tail, written with and without O_DIRECT, and with
# the fallback when the file system refuses it (GOSTX_ODIRECT=einval); the
# input mapped (cli_in_map) or read (GOSTX_MMAP=0), and decrypted the other
# way than it was encrypted.
head -c $((20 * 1048576 + 4099)) /dev/urandom >"$T/huge"
for n in 8388608 8392704 $((20 * 1048576 + 4099)); do
  head -c $n "$T/huge" >"$T/h"
  for od in 1 0 einval; do
    for mm in 1 0; do
      rm -f "$T/h.enc" "$T/h.dec"
      if GOSTX_ODIRECT=$od GOSTX_MMAP=$mm "$G" enc -k "$T/key" -i "$T/h" -o "$T/h.enc" &&
        [ "$(size "$T/h.enc")" = $((H + n + (n / 1048576 + (n % 1048576 ? 1 : 0)) * 16)) ] &&
        GOSTX_ODIRECT=$od GOSTX_MMAP=$((1 - mm)) "$G" dec -k "$T/key" -i "$T/h.enc" -o "$T/h.dec" &&
        cmp -s "$T/h.dec" "$T/h"; then ok
      else bad "staged round trip, $n bytes, O_DIRECT $od, mapped input $mm"; fi
    done
  done
done
# A mapped input that changes while it is read: enc fails and writes nothing
# (touched: "changed while it was read"; cut short: SIGBUS, or that message
# if no page past the cut was touched after it); no temporary file is left
# either. The change comes once enc has the file mapped (its /proc maps).
head -c $((24 * 1048576)) "$T/huge" >"$T/h" 2>/dev/null || head -c $((20 * 1048576)) "$T/huge" >"$T/h"
for how in touch truncate; do
  cp "$T/h" "$T/hc"
  rm -f "$T/hc.enc"
  # (in a subshell whose stderr is dropped: bash's "Bus error" line)
  ("$G" enc -j 1 --chunk 1K -k "$T/key" -i "$T/hc" -o "$T/hc.enc" 2>"$T/hc.err"; exit $?) 2>/dev/null &
  pid=$!
  mapped=0
  while kill -0 $pid 2>/dev/null; do
    if grep -qs "$T/hc\$" /proc/[0-9]*/maps; then
      if [ $how = touch ]; then touch -d @1000000 "$T/hc"; else truncate -s 4096 "$T/hc"; fi
      mapped=1
      break
    fi
  done
  rc=0
  wait $pid 2>/dev/null || rc=$?
  left=$(find "$T" -maxdepth 1 -name '.hc.enc.gostx-*' | wc -l)
  if [ $mapped = 0 ]; then
    bad "input changed ($how) during enc: enc ended (rc $rc) before its input was seen mapped"
  elif [ $rc -ne 0 ] && [ ! -e "$T/hc.enc" ] && [ "$left" = 0 ] &&
    { [ $rc -gt 128 ] || grep -q 'changed while it was read' "$T/hc.err"; }; then ok
  else bad "input changed ($how) during enc: rc $rc, output $([ -e "$T/hc.enc" ] && echo exists || echo absent), $left temp files: $(cat "$T/hc.err")"; fi
done
rm -f "$T/huge" "$T/h" "$T/h.enc" "$T/h.dec" "$T/hc" "$T/hc.enc" "$T/hc.err"
# stdin / stdout, and pipes both ways.
"$G" enc -k "$T/key" --chunk 1K <"$T/p5000" >"$T/s.enc" && "$G" dec -k "$T/key" <"$T/s.enc" >"$T/s.dec"
check "stdin/stdout round trip" cmp -s "$T/s.dec" "$T/p5000"
cat "$T/big" | "$G" enc -k "$T/key" | "$G" dec -k "$T/key" | cmp -s - "$T/big"
check "pipe round trip (3 MiB)" [ "${PIPESTATUS[*]}" = "0 0 0 0" ]
"$G" enc -k "$T/key" </dev/null | "$G" dec -k "$T/key" >"$T/empty.dec"
check "empty stdin round trip" [ "$(size "$T/empty.dec")" = 0 ]
# -o over an existing file replaces it.
echo old >"$T/exists"
"$G" dec -k "$T/key" -i "$T/s.enc" -o "$T/exists" && check "dec replaces an existing output" cmp -s "$T/exists" "$T/p5000"
# Same passphrase, two files: different salts, so different ciphertexts.
"$G" enc --pass-file "$T/pass" --iter 1000 -i "$T/p1" -o "$T/a1.enc"
"$G" enc --pass-file "$T/pass" --iter 1000 -i "$T/p1" -o "$T/a2.enc"
check "fresh salt per file" not cmp -s "$T/a1.enc" "$T/a2.enc"
check "iterations stored in the header" [ "$(od -An -tx1 -j16 -N4 "$T/a1.enc" | tr -d ' ')" = 000003e8 ]

# ---- hostile inputs ----
# A 5-chunk Kuznyechik file (4 full chunks + 100 bytes), another file of the
# same plaintext under the same key, and a 2-chunk file whose final chunk is full.
head -c $((4 * K + 100)) "$T/src" >"$T/plain"
"$G" enc -k "$T/key" --chunk 1K -i "$T/plain" -o "$T/good"
"$G" enc -k "$T/key" --chunk 1K -i "$T/plain" -o "$T/other"
head -c $((2 * K)) "$T/src" >"$T/p2k"
"$G" enc -k "$T/key" --chunk 1K -i "$T/p2k" -o "$T/full"
R=$((K + 16))

# must_fail NAME REGEX FILE [dec options...]: decryption fails cleanly.
must_fail() {
  local name=$1 re=$2 f=$3; shift 3
  local opts=("$@")
  [ ${#opts[@]} = 0 ] && opts=(-k "$T/key")
  local sum_before sum_after rc
  sum_before=$(cksum <"$f")
  rm -rf "$T/o"; mkdir "$T/o"
  "$G" dec "${opts[@]}" -i "$f" -o "$T/o/out" 2>"$T/err" >/dev/null; rc=$?
  sum_after=$(cksum <"$f")
  if [ $rc = 1 ] && grep -Eq "$re" "$T/err" && [ -z "$(ls -A "$T/o")" ] &&
    [ "$sum_before" = "$sum_after" ]; then
    ok
  else
    bad "$name: rc $rc, message '$(cat "$T/err")', left: $(ls -A "$T/o" | tr '\n' ' ')"
  fi
}

cp "$T/good" "$T/t"
must_fail "wrong key" "wrong key or passphrase" "$T/t" -k "$T/key2"
"$G" enc --pass-file "$T/pass" --iter 1000 --chunk 1K -i "$T/plain" -o "$T/pgood"
must_fail "wrong passphrase" "wrong key or passphrase" "$T/pgood" --pass-file "$T/pass2"
must_fail "key file for a passphrase file" "encrypted with a passphrase" "$T/pgood"
must_fail "passphrase for a key file" "encrypted with a key file" "$T/good" --pass-file "$T/pass"
head -c 5000 /dev/urandom >"$T/junk"
must_fail "not a gostx file" "not a gostx file" "$T/junk"
: >"$T/zero"
must_fail "empty input" "not a gostx file" "$T/zero"
head -c 50 "$T/good" >"$T/t"
must_fail "cut inside the header" "truncated file: incomplete header" "$T/t"
head -c $H "$T/good" >"$T/t"
must_fail "header only" "truncated file: no chunks" "$T/t"

# Flipped bits: header (magic, version, alg, kdf, reserved, chunk size, salt, check).
for off in 0 5 6 7 8 9 13 14 15 20 51 52 83; do
  cp "$T/good" "$T/t"; flip "$T/t" $off 4
  must_fail "header byte $off flipped" "not a gostx file|unsupported|unknown|reserved|out of range|wrong key or passphrase" "$T/t"
done
# Flipped bits in chunks and tags: "authentication failed: chunk N".
for spec in "$H 0" "$((H + 1)) 0" "$((H + K - 1)) 0" "$((H + K)) 0" "$((H + R - 1)) 0" \
            "$((H + 2 * R + 500)) 2" "$((H + 3 * R + K + 3)) 3" "$((H + 4 * R)) 4" \
            "$((H + 4 * R + 99)) 4" "$((H + 4 * R + 100)) 4" "$(( $(size "$T/good") - 1 )) 4"; do
  set -- $spec
  cp "$T/good" "$T/t"; flip "$T/t" "$1" 128
  must_fail "bit flipped at $1" "authentication failed: chunk $2" "$T/t"
done

# Truncation: mid-chunk, at every chunk boundary, one byte short.
sz=$(size "$T/good")
head -c $((sz - 1)) "$T/good" >"$T/t"
must_fail "one byte cut" "authentication failed: chunk 4" "$T/t"
head -c $((H + 2 * R + 300)) "$T/good" >"$T/t"
must_fail "cut mid-chunk" "authentication failed: chunk 2" "$T/t"
head -c $((H + 2 * R + 7)) "$T/good" >"$T/t"
must_fail "cut inside a chunk's first bytes" "truncated file: chunk 2 is incomplete" "$T/t"
for k in 1 2 3 4; do
  head -c $((H + k * R)) "$T/good" >"$T/t"
  must_fail "cut at chunk boundary $k" "truncated file: chunk $((k - 1)) is not the final chunk" "$T/t"
done
head -c $((H + R)) "$T/full" >"$T/t"
must_fail "full final chunk dropped" "truncated file: chunk 0 is not the final chunk" "$T/t"

# Reordered, duplicated, dropped and spliced chunks.
{ piece "$T/good" 0 $((H + R)); piece "$T/good" $((H + 2 * R)) $R; piece "$T/good" $((H + R)) $R
  piece "$T/good" $((H + 3 * R)) $sz; } >"$T/t"
must_fail "chunks 1 and 2 swapped" "authentication failed: chunk 1" "$T/t"
{ piece "$T/good" 0 $((H + 2 * R)); piece "$T/good" $((H + R)) $sz; } >"$T/t"
must_fail "chunk 1 duplicated" "authentication failed: chunk 2" "$T/t"
{ piece "$T/good" 0 $((H + R)); piece "$T/good" $((H + 2 * R)) $sz; } >"$T/t"
must_fail "chunk 1 dropped" "authentication failed: chunk 1" "$T/t"
{ piece "$T/good" 0 $((H + 2 * R)); piece "$T/other" $((H + 2 * R)) $R
  piece "$T/good" $((H + 3 * R)) $sz; } >"$T/t"
must_fail "chunk 2 spliced from another file (same key)" "authentication failed: chunk 2" "$T/t"
{ piece "$T/other" 0 $H; piece "$T/good" $H $sz; } >"$T/t"
must_fail "header of another file (same key)" "authentication failed: chunk 0" "$T/t"
{ piece "$T/good" 0 $((H + 4 * R)); piece "$T/other" $((H + 4 * R)) $sz; } >"$T/t"
must_fail "final chunk from another file" "authentication failed: chunk 4" "$T/t"

# Changed header fields.
cp "$T/good" "$T/t"; setbyte "$T/t" 13 8   # chunk size 1 KiB -> 512 KiB + 1 KiB, still valid
must_fail "chunk size changed" "wrong key or passphrase" "$T/t"
cp "$T/good" "$T/t"; setbyte "$T/t" 7 2    # Kuznyechik -> Magma
must_fail "algorithm changed" "wrong key or passphrase" "$T/t"
cp "$T/good" "$T/t"; setbyte "$T/t" 8 2; setbyte "$T/t" 19 1   # key file -> PBKDF2, iter 1
must_fail "KDF changed" "encrypted with a passphrase" "$T/t"
must_fail "KDF changed (with a passphrase)" "wrong key or passphrase" "$T/t" --pass-file "$T/pass"

# Trailing data after the final chunk.
{ cat "$T/good"; printf 'x'; } >"$T/t"
must_fail "1 trailing byte" "authentication failed: chunk 4 .*extra data" "$T/t"
{ cat "$T/full"; printf 'garbage'; } >"$T/t"
must_fail "trailing garbage after a full final chunk" "trailing data after final chunk 1" "$T/t"
{ cat "$T/full"; cat "$T/full"; } >"$T/t"
must_fail "two files concatenated" "trailing data after final chunk 1" "$T/t"

# Absurd header values.
for spec in "12 0 0 0 0 chunk size out of range" "12 255 255 255 255 chunk size out of range" \
            "12 0 0 3 255 chunk size out of range" "12 4 0 0 1 chunk size out of range" \
            "6 0 - - - unsupported format version" "6 2 - - - unsupported format version" \
            "6 255 - - - unsupported format version" "7 0 - - - unknown algorithm" \
            "7 3 - - - unknown algorithm" "8 0 - - - unknown key derivation" \
            "8 9 - - - unknown key derivation" "10 1 - - - reserved header bytes" \
            "16 0 0 0 1 iteration count must be 0"; do
  set -- $spec
  cp "$T/good" "$T/t"
  setbyte "$T/t" "$1" "$2"
  [ "$3" != - ] && { setbyte "$T/t" $(($1 + 1)) "$3"; setbyte "$T/t" $(($1 + 2)) "$4"; setbyte "$T/t" $(($1 + 3)) "$5"; }
  off=$1; shift 5
  must_fail "header byte $off: $*" "$*" "$T/t"
done
cp "$T/pgood" "$T/t"; setbyte "$T/t" 16 255
must_fail "iterations 2^32-ish" "iteration count out of range" "$T/t" --pass-file "$T/pass"
cp "$T/pgood" "$T/t"; setbyte "$T/t" 16 0; setbyte "$T/t" 17 0; setbyte "$T/t" 18 0; setbyte "$T/t" 19 0
must_fail "iterations 0" "iteration count out of range" "$T/t" --pass-file "$T/pass"

# A failing dec never replaces an existing output file.
echo precious >"$T/keep"
cp "$T/good" "$T/t"; flip "$T/t" $((H + 3 * R)) 1
"$G" dec -k "$T/key" -i "$T/t" -o "$T/keep" 2>/dev/null
check "failed dec keeps the old output" [ "$(cat "$T/keep")" = precious ]
check "no temporary files left" [ -z "$(ls -A "$T" | grep gostx- || true)" ]
# To a pipe: only verified chunks (here chunks 0..2) arrive, and the exit status says failure.
"$G" dec -k "$T/key" -i "$T/t" 2>"$T/err" >"$T/piped"; rc=$?
check "piped dec: exit 1" [ $rc = 1 ]
check "piped dec: exactly the verified prefix" cmp -s "$T/piped" <(head -c $((3 * K)) "$T/plain")
check "piped dec: says chunks were already written" grep -q "already received 3 verified" "$T/err"

# ---- -p: the passphrase from the terminal (a pseudo-terminal driven by python3) ----
if command -v python3 >/dev/null 2>&1; then
  cat >"$T/drive_prompt.py" <<'PY'
import os, pty, sys
def run(args, answers):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[1], [sys.argv[1]] + args)
    out = b""
    for a in answers:
        buf = b""
        while b"Passphrase" not in buf:
            try: d = os.read(fd, 1024)
            except OSError: d = b""
            if not d: break
            buf += d
        out += buf
        os.write(fd, a + b"\n")
    while True:
        try: d = os.read(fd, 4096)
        except OSError: break
        if not d: break
        out += d
    _, st = os.waitpid(pid, 0)
    return os.WEXITSTATUS(st), out
d = sys.argv[2]
rc1, o1 = run(["enc", "-p", "--iter", "1000", "-i", d + "/p5000", "-o", d + "/tty.enc"], [b"s3cret", b"s3cret"])
rc2, o2 = run(["dec", "-p", "-i", d + "/tty.enc", "-o", d + "/tty.dec"], [b"s3cret"])
rc3, o3 = run(["dec", "-p", "-i", d + "/tty.enc", "-o", d + "/tty.bad"], [b"wrong"])
rc4, o4 = run(["enc", "-p", "-i", d + "/p1", "-o", d + "/tty2.enc"], [b"one", b"two"])
ok = (rc1 == 0 and b"s3cret" not in o1 and rc2 == 0 and rc3 == 1 and b"wrong key or passphrase" in o3
      and rc4 == 1 and b"do not match" in o4)
print("tty ok" if ok else "tty FAILED: %r" % ((rc1, o1, rc2, o2, rc3, o3, rc4, o4),))
PY
  timeout 60 python3 "$T/drive_prompt.py" "$G" "$T" >"$T/tty.out" 2>&1
  check "-p: prompts without echo, twice on enc, wrong passphrase refused" grep -q "^tty ok" "$T/tty.out"
  check "-p: decrypts" cmp -s "$T/tty.dec" "$T/p5000"
  printf 's3cret\n' >"$T/ttypass"
  "$G" dec --pass-file "$T/ttypass" -i "$T/tty.enc" -o "$T/tty.dec2"
  check "-p and --pass-file (one trailing newline dropped) agree" cmp -s "$T/tty.dec2" "$T/p5000"
  check "-p: no output left after a wrong passphrase or a mismatch" \
    [ ! -e "$T/tty.bad" ] && check "(mismatch)" [ ! -e "$T/tty2.enc" ]
fi

# ---- refusals and usage ----
cp "$T/p5000" "$T/same"
"$G" enc -k "$T/key" -i "$T/same" -o "$T/same" 2>"$T/err"; rc=$?
check "enc -o = -i refused (exit 2)" [ $rc = 2 ]
check "enc -o = -i: input unchanged" cmp -s "$T/same" "$T/p5000"
ln -sf same "$T/same.link"
"$G" dec -k "$T/key" -i "$T/same" -o "$T/same.link" 2>/dev/null; rc=$?
check "dec -o symlink to -i refused" [ $rc = 2 ]
check "input unchanged" cmp -s "$T/same" "$T/p5000"
"$G" enc -k "$T/key" -i "$T/same" >>"$T/same" 2>/dev/null; rc=$?
check "enc >> input refused" [ $rc = 2 ] && check "input unchanged" cmp -s "$T/same" "$T/p5000"
usage() { # usage NAME ARGS...: exit 2
  "$G" "$@" </dev/null >/dev/null 2>"$T/err"; local rc=$?
  if [ $rc = 2 ] && [ -s "$T/err" ]; then ok; else bad "usage error exit 2: $* (rc $rc)"; fi
}
usage enc --bogus -k "$T/key"
usage enc -i "$T/p1"
usage enc -k "$T/key" -p
usage enc -k "$T/key" --pass-file "$T/pass"
usage enc -k "$T/key" --chunk 100
usage enc -k "$T/key" --chunk 65M
usage enc -k "$T/key" --chunk 12Q
usage enc -k "$T/key" -a aes
usage enc -k "$T/key" --iter 5
usage enc --pass-file "$T/pass" --iter 0
usage enc --pass-file "$T/pass" --iter 16777217
usage enc -k "$T/key" -j x
usage enc -k "$T/p1"
usage dec -k "$T/key" --chunk 1K
usage dec -k "$T/key" -a magma
usage dec -k "$T/key" extra-arg
: >"$T/emptypass"
usage enc --pass-file "$T/emptypass"
for c in enc dec keygen; do
  "$G" $c --help >"$T/help" 2>&1; rc=$?
  check "$c --help" [ $rc = 0 ] && check "$c --help text" grep -q "Usage: gostx $c" "$T/help"
done
check "dec --help mentions piped output" grep -q "check the exit status" <("$G" dec --help)
check "gostx --help lists enc" grep -q "enc" <("$G" --help)

finish
