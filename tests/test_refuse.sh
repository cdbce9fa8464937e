#!/usr/bin/env bash
# What the command refuses before doing any work, and how it says so:
#  - an output that is the same file as an input, the key file, the
#    passphrase file or the AAD file (same device and inode: hard and symbolic
#    links too, and stdout appending to the key): exit 2, one line, the file
#    untouched;
#  - empty file names (`-o ''`, an unset shell variable) and outputs that
#    cannot be written (a directory, a missing directory): refused before the
#    input is read and before the KDF (reading a FIFO nobody writes, or 2^24
#    PBKDF2 iterations, would hang or delay a late refusal);
#  - PBKDF2 work beyond the documented limit in `gostx kdf pbkdf2` (2^24
#    iterations in total, as for enc and dec);
# and what it accepts and reports: MGM associated data from a file
# (--aad-file, for AAD beyond what a command line holds), a stdout write
# error reported once.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" refuse
lines() { grep -c . "$1"; }

"$G" keygen -o "$T/key" || exit 1
cp "$T/key" "$T/key.orig"
printf 'a passphrase\n' >"$T/pass"
cp "$T/pass" "$T/pass.orig"
head -c 10000 /dev/urandom >"$T/plain"
"$G" enc -q -k "$T/key" -i "$T/plain" -o "$T/plain.gx" || exit 1
cp "$T/plain.gx" "$T/plain.gx.orig"
"$G" enc -q --pass-file "$T/pass" --iter 1000 -i "$T/plain" -o "$T/plain.pgx" || exit 1
ln "$T/key" "$T/key.hard"
ln -s key "$T/key.sym"
ln -s pass "$T/pass.sym"
mkfifo "$T/fifo"
K=$(printf '%064x' 5)

# untouched WHAT: the key, passphrase and input files are as they were and
# nothing was left behind (restored after a failure, so that one failure does
# not cascade).
untouched() {
  local f
  for f in key pass plain.gx; do
    if cmp -s "$T/$f" "$T/$f.orig"; then ok; else
      bad "$1: $f was changed"
      cp "$T/$f.orig" "$T/$f"
    fi
  done
  check "$1: nothing left behind" [ -z "$(ls -A "$T" | grep gostx- || true)" ]
}
# refused WHAT REGEX COMMAND...: exit 2 within 10 s, one line on stderr
# matching REGEX, nothing on stdout, nothing changed.
refused() {
  local what=$1 re=$2; shift 2
  timeout 10 "$@" </dev/null >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc = 2 ] && [ "$(lines "$T/err")" = 1 ] && grep -Eq "^gostx: .*($re)" "$T/err" &&
    [ ! -s "$T/out" ]; then
    ok
  else
    bad "$what: rc $rc, stderr: $(head -c 300 "$T/err")"
  fi
  untouched "$what"
}

# ---- the output is an input ----
same="same file as the"
refused "enc -k K -o K" "$same key file" "$G" enc -k "$T/key" -i "$T/plain" -o "$T/key"
refused "enc -k K -o hard link to K" "$same key file" "$G" enc -k "$T/key" -i "$T/plain" -o "$T/key.hard"
refused "enc -k K -o symlink to K" "$same key file" "$G" enc -k "$T/key" -i "$T/plain" -o "$T/key.sym"
refused "enc -k symlink -o K" "$same key file" "$G" enc -k "$T/key.sym" -i "$T/plain" -o "$T/key"
refused "dec -k K -o K" "$same key file" "$G" dec -k "$T/key" -i "$T/plain.gx" -o "$T/key"
refused "enc --pass-file P -o P" "$same passphrase file" \
  "$G" enc --pass-file "$T/pass" --iter 1000 -i "$T/plain" -o "$T/pass"
refused "dec --pass-file P -o symlink to P" "$same passphrase file" \
  "$G" dec --pass-file "$T/pass" -i "$T/plain.pgx" -o "$T/pass.sym"
refused "dec -o input" "$same input" "$G" dec -k "$T/key" -i "$T/plain.gx" -o "$T/plain.gx"
# Before any work: the input is a FIFO nobody writes (opening it would hang).
refused "enc -k K -i FIFO -o K" "$same key file" "$G" enc -k "$T/key" -i "$T/fifo" -o "$T/key"
# stdout appending to the key file (the shell opened it; gostx must not write).
timeout 10 "$G" enc -k "$T/key" -i "$T/plain" >>"$T/key" 2>"$T/err"; rc=$?
check "enc -k K >> K: exit 2 (rc $rc)" [ $rc = 2 ]
check "enc -k K >> K: says why" grep -q "stdout is the $same key file" "$T/err"
timeout 10 "$G" dec --pass-file "$T/pass" -i "$T/plain.pgx" >>"$T/pass" 2>"$T/err"; rc=$?
check "dec --pass-file P >> P: exit 2 (rc $rc)" [ $rc = 2 ]
untouched ">> K, >> P"
head -c 64 /dev/urandom >"$T/aad"
cp "$T/aad" "$T/aad.orig"
refused "cipher --aad-file A -o A" "$same AAD file" \
  "$G" cipher kuznyechik-mgm -k "$K" --iv "$(printf '%032x' 1)" --aad-file "$T/aad" -i "$T/plain" -o "$T/aad"
check "AAD file untouched" cmp -s "$T/aad" "$T/aad.orig"

# ---- empty and impossible outputs, refused before any work ----
refused "enc -o ''" "-o needs a file name" "$G" enc -k "$T/key" -i "$T/fifo" -o ''
refused "enc --out=" "--out needs a file name" "$G" enc -k "$T/key" -i "$T/fifo" --out=
refused "enc -i ''" "-i needs a file name" "$G" enc -k "$T/key" -i '' -o "$T/x"
refused "enc -k ''" "-k needs a file name" "$G" enc -k '' -i "$T/fifo" -o "$T/x"
refused "enc --pass-file ''" "--pass-file needs a file name" "$G" enc --pass-file '' -i "$T/fifo" -o "$T/x"
refused "dec -o ''" "-o needs a file name" "$G" dec -k "$T/key" -i "$T/fifo" -o ''
refused "cipher -o ''" "-o needs a file name" "$G" cipher kuznyechik-ctr -k "$K" --iv 0102030405060708 -i "$T/fifo" -o ''
refused "cipher -i ''" "-i needs a file name" "$G" cipher kuznyechik-ctr -k "$K" --iv 0102030405060708 -i '' -o "$T/x"
refused "cipher --aad-file ''" "--aad-file needs a file name" \
  "$G" cipher kuznyechik-mgm -k "$K" --iv "$(printf '%032x' 1)" --aad-file '' -i "$T/fifo"
refused "keygen -o ''" "-o needs a file name" "$G" keygen -o ''
refused "mac -i ''" "-i needs a file name" "$G" mac kuznyechik-omac -k "$K" -i ''
check "no output file x created" [ ! -e "$T/x" ]
# An output that cannot be written fails before the KDF: 2^24 iterations
# (tens of seconds) would run first otherwise.
mkdir "$T/dir"
for o in "$T/dir" "$T/no-such-dir/out"; do
  timeout 10 "$G" enc --pass-file "$T/pass" --iter 16777216 -i "$T/plain" -o "$o" 2>"$T/err"; rc=$?
  check "enc -o $o: fails at once (rc $rc)" [ $rc = 1 ]
  check "enc -o $o: one line naming it" eval '[ "$(lines "$T/err")" = 1 ] && grep -q "$o" "$T/err"'
done
timeout 10 "$G" dec --pass-file "$T/pass" -i "$T/plain.pgx" -o "$T/dir" 2>"$T/err"; rc=$?
check "dec -o DIR: fails at once (rc $rc)" [ $rc = 1 ]
untouched "impossible outputs"
# A symbolic link loop as the output: ELOOP, as other tools say it, and the
# links stay links (not replaced by a regular file).
ln -s loop.b "$T/loop.a"
ln -s loop.a "$T/loop.b"
ln -s loop.self "$T/loop.self"
for o in loop.a loop.self; do
  for cmd in "enc -k $T/key -i $T/plain" "cipher kuznyechik-ctr -k $K --iv 0102030405060708 -i $T/plain"; do
    timeout 10 $G $cmd -o "$T/$o" 2>"$T/err"; rc=$?
    check "$cmd -o $o (loop): exit 1 (rc $rc)" [ $rc = 1 ]
    check "$cmd -o $o (loop): one line, ELOOP: $(head -c 200 "$T/err")" \
      eval '[ "$(lines "$T/err")" = 1 ] && grep -q "$o: Too many levels of symbolic links" "$T/err"'
    check "$cmd -o $o (loop): still a link" [ -L "$T/$o" ]
  done
done
check "loop links unchanged" [ "$(readlink "$T/loop.a") $(readlink "$T/loop.b") $(readlink "$T/loop.self")" = "loop.b loop.a loop.self" ]

# ---- PBKDF2 work: at most 2^24 iterations in total (kdf pbkdf2, as enc/dec) ----
pb=("$G" kdf pbkdf2 --pass x --salt 00)
refused "kdf pbkdf2 --iter 2^24+1" "--iter must be between 1 and 16777216" "${pb[@]}" --iter 16777217
refused "kdf pbkdf2 --iter 2^32-1" "--iter must be between 1 and 16777216" "${pb[@]}" --iter 4294967295
refused "kdf pbkdf2 --len 1 MiB + 1" "--len must be between 1 and 1048576" "${pb[@]}" --iter 1 --len 1048577
refused "kdf pbkdf2 2^24 x 2 blocks" "more than the limit of 16777216" "${pb[@]}" --iter 16777216 --len 65
refused "kdf pbkdf2 2^14 x 1025 blocks" "more than the limit" "${pb[@]}" --iter 16384 --len 65537
check "kdf pbkdf2 --len 1048576 at --iter 1 is allowed" \
  [ "$(timeout 60 "${pb[@]}" --iter 1 --len 1048576 | tr -d '\n' | wc -c)" = 2097152 ]
check "kdf --help states the limit" grep -q "16777216" <("$G" kdf --help)

# ---- --aad-file ----
N=$(printf '%032x' 77)
mgm() { "$G" cipher kuznyechik-mgm -k "$K" --iv "$N" "$@"; }
mgm_cmd=("$G" cipher kuznyechik-mgm -k "$K" --iv "$N")
head -c 1000 /dev/urandom >"$T/aad1k"
mgm --aad "$(od -An -v -tx1 "$T/aad1k" | tr -d ' \n')" -i "$T/plain" -o "$T/c1"
mgm --aad-file "$T/aad1k" -i "$T/plain" -o "$T/c2"
check "--aad-file equals --aad HEX" cmp -s "$T/c1" "$T/c2"
head -c 200000 /dev/urandom >"$T/aadbig" # 400 000 hex digits: too long for one argument
mgm --aad-file "$T/aadbig" -i "$T/plain" -o "$T/cbig" &&
  mgm -d --aad-file "$T/aadbig" -i "$T/cbig" -o "$T/pbig"
check "200 KB of AAD from a file: round trip" cmp -s "$T/pbig" "$T/plain"
cp "$T/aadbig" "$T/aadbad"
flip_byte "$T/aadbad" 150000
mgm -d --aad-file "$T/aadbad" -i "$T/cbig" -o "$T/pbad" 2>"$T/err"; rc=$?
check "changed AAD: authentication fails, no output (rc $rc)" eval '[ $rc = 1 ] && [ ! -e "$T/pbad" ]'
check "changed AAD: says so" grep -q "authentication failed" "$T/err"
refused "--aad with --aad-file" "not both" "${mgm_cmd[@]}" --aad 00 --aad-file "$T/aad1k" -i "$T/plain"
refused "--aad-file on CTR" "apply only to MGM" \
  "$G" cipher kuznyechik-ctr -k "$K" --iv 0102030405060708 --aad-file "$T/aad1k" -i "$T/plain"
timeout 10 "$G" cipher kuznyechik-mgm -k "$K" --iv "$N" --aad-file "$T/missing" -i "$T/plain" -o "$T/y" 2>"$T/err"; rc=$?
check "missing --aad-file: exit 1, named, no output (rc $rc)" \
  eval '[ $rc = 1 ] && grep -q missing "$T/err" && [ ! -e "$T/y" ]'

# ---- a stdout write error is reported once ----
if [ -w /dev/full ]; then
  for cmd in "cipher kuznyechik-ctr -k $K --iv 0102030405060708 -i $T/plain" \
             "enc -k $T/key -i $T/plain" "dec -k $T/key -i $T/plain.gx" "hash $T/plain" \
             "cipher kuznyechik-mgm -k $K --iv $N -i $T/plain"; do
    $G $cmd >/dev/full 2>"$T/err"; rc=$?
    check "$cmd > /dev/full: exit 1 (rc $rc)" [ $rc = 1 ]
    check "$cmd > /dev/full: one message, not two: $(tr '\n' '|' <"$T/err")" \
      [ "$(lines "$T/err")" = 1 ]
    check "$cmd > /dev/full: says why" grep -q "stdout: write error: No space left on device" "$T/err"
  done
fi

finish
