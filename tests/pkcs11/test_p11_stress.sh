#!/usr/bin/env bash
# gostx's PKCS#11 token under load and through a crash (tests/pkcs11/
# p11_stress.c): four processes make key pairs in one token folder at once
# while a fifth signs from four threads; then a writer is killed (-9) in
# the middle of its work, and a torn temporary file is left as an
# interrupted write would. Afterwards every pair a process reported made is
# there and signs, and no object file is unreadable.
# usage: test_p11_stress.sh MODULE STRESS
. "$(dirname "$0")/../cli_common.sh" p11stress no-gostx
M=$1 S=$2 PIN=user-pin-1
export GOSTX_PKCS11_DIR=$T/tokens
# tokens with a short PIN KDF: the tests log in often (docs/PKCS11.md)
export GOSTX_PKCS11_KDF_ITER=2000
check "init" "$S" "$M" $PIN init

pids=()
for i in 1 2 3 4; do
  "$S" "$M" $PIN gen 3 >"$T/made$i" 2>"$T/err$i" &
  pids+=($!)
done
"$S" "$M" $PIN threads 4 25 >"$T/threads" 2>"$T/errt" &
pids+=($!)
for p in "${pids[@]}"; do
  wait "$p" || bad "a concurrent process failed: $(cat "$T"/err* | head -3)"
done
check "the threads signed" grep -q "^threads 4 signatures 100$" "$T/threads"
cat "$T"/made[1-4] >"$T/made"
check "each process made its pairs" test "$(grep -c '^made ' "$T/made")" = 12

# A writer killed mid-way: what it reported made survives.
"$S" "$M" $PIN gen 1000 >"$T/killed" 2>/dev/null &
victim=$!
for _ in $(seq "$(bound 200)"); do
  [ "$(grep -c '^made ' "$T/killed")" -ge 3 ] && break
  sleep 0.1
done
kill -9 $victim 2>/dev/null
wait $victim 2>/dev/null
check "the killed writer had made pairs" test "$(grep -c '^made ' "$T/killed")" -ge 3
# A torn temporary file, as a write cut short before its rename leaves it.
tok=$(ls "$GOSTX_PKCS11_DIR")
head -c 37 /dev/urandom >"$GOSTX_PKCS11_DIR/$tok/.o-0123456789abcdef.obj.Xy12Zq"

"$S" "$M" $PIN check >"$T/check" 2>"$T/errc" || bad "check: $(cat "$T/errc")"
cat "$T/made" "$T/killed" | sed -n 's/^made //p' | sort -u >"$T/want"
sed -n 's/^ok //p' "$T/check" | sort -u >"$T/have"
check "every reported pair is stored and signs" test -z "$(comm -23 "$T/want" "$T/have")"
read -r _ pairs _ files < <(grep '^pairs ' "$T/check")
# every file read: two per pair, and at most the public half of the
# pair the kill cut short
check "no unreadable object file ($pairs pairs, $files files)" \
  test "$files" -ge $((2 * pairs)) -a "$files" -le $((2 * pairs + 1))
finish
