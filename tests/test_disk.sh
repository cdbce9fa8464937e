#!/usr/bin/env bash
# CLI tests of `gostx disk` (LUKS1, docs/DISK.md): format (size, refusal to
# overwrite, --force), dump (fields, slots, the master key behind a
# passphrase), add-pass and remove-pass (by passphrase, by slot, the last
# one refused without --force), wrong passphrases, damaged and short
# images, usage errors. Failures exit 1 with one line, usage errors 2, and
# leave the image as it was.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" disk
quiet() { "$@" > /dev/null; }
# fails WANT_RC TEXT "name" command...: exit status WANT_RC, one line on
# stderr holding TEXT, nothing on stdout
fails() {
  local want=$1 text=$2 name=$3
  shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = "$want" ] && grep -q -- "$text" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] &&
    [ ! -s "$T/out" ]; then
    ok
  else
    bad "$name: rc $rc (want $want), stderr: $(cat "$T/err")"
  fi
}
field() { "$G" disk dump "$1" | sed -n "s/^$2: *//p"; }
setbyte() { # setbyte FILE OFFSET VALUE
  printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
I="--iter 1000"
printf 'correct horse battery staple\n' >"$T/p1"
printf 'second passphrase' >"$T/p2"
printf 'third\r\n' >"$T/p3"
printf 'wrong\n' >"$T/bad"

# ---- format ----
d=$T/disk.img
uuid=$("$G" disk format "$d" --size 3M --pass-file "$T/p1" $I)
rc=$?
check "format: exit 0" [ $rc = 0 ]
check "format: prints a version 4 UUID" \
  grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' <<<"$uuid"
check "format: image = 2 MiB header area + 3 MiB payload" [ "$(stat -c %s "$d")" = $((5 << 20)) ]
check "format: magic" [ "$(head -c 6 "$d" | od -An -tx1 | tr -d ' ')" = 4c554b53babe ]
check "dump: UUID" [ "$(field "$d" UUID)" = "$uuid" ]
check "dump: cipher" [ "$(field "$d" 'Cipher name')/$(field "$d" 'Cipher mode')" = kuznyechik/xts-plain64 ]
check "dump: hash" [ "$(field "$d" 'Hash spec')" = streebog512 ]
check "dump: payload offset 4096" [ "$(field "$d" 'Payload offset')" = 4096 ]
check "dump: payload size" [ "$(field "$d" 'Payload size')" = "3145728 bytes" ]
check "dump: MK bits 512" [ "$(field "$d" 'MK bits')" = 512 ]
check "dump: slot 0 only" [ "$("$G" disk dump "$d" | grep -c ': ENABLED')" = 1 ]
check "dump: slot 0 material at 8, 4000 stripes" \
  [ "$("$G" disk dump "$d" | grep -A4 'Key Slot 0: ENABLED' | awk '/offset|stripes/ {print $NF}' | tr '\n' ' ')" = "8 4000 " ]
not_grep() { ! "$G" disk dump "$2" | grep -q "$1"; }
check "dump: no master key without --master-key" not_grep "Master key" "$d"
mk1=$("$G" disk dump "$d" --master-key --pass-file "$T/p1" | sed -n 's/^Master key: *//p')
check "dump --master-key: 64 bytes" grep -Eq '^[0-9a-f]{128}$' <<<"$mk1"

cp "$d" "$T/orig"
fails 1 "exists; refusing to overwrite" "format over an image" \
  "$G" disk format "$d" --size 1M --pass-file "$T/p1" $I
check "refused format left the image" cmp -s "$d" "$T/orig"
"$G" disk format "$T/second.img" --size 1M --pass-file "$T/p1" $I >/dev/null
mk2=$("$G" disk dump "$T/second.img" --master-key --pass-file "$T/p1" | sed -n 's/^Master key: *//p')
check "two formats: different master keys" [ "$mk1" != "$mk2" ]
check "format --force replaces" quiet "$G" disk format "$T/second.img" --size 512 --force --pass-file "$T/p1" $I
check "format --force: new size" [ "$(stat -c %s "$T/second.img")" = $((2 * 1024 * 1024 + 512)) ]

# ---- passphrases ----
fails 1 "no key slot opens with this passphrase" "dump --master-key, wrong passphrase" \
  "$G" disk dump "$d" --master-key --pass-file "$T/bad"
fails 1 "no key slot opens with this passphrase" "add-pass, wrong current passphrase" \
  "$G" disk add-pass "$d" --pass-file "$T/bad" --new-pass-file "$T/p2" $I
check "refusals left the image" cmp -s "$d" "$T/orig"
check "add-pass p2" quiet "$G" disk add-pass "$d" --pass-file "$T/p1" --new-pass-file "$T/p2" $I
check "add-pass p3 into slot 5" quiet "$G" disk add-pass "$d" --pass-file "$T/p2" --new-pass-file "$T/p3" --slot 5 $I
check "dump: slots 0, 1, 5 enabled" \
  [ "$("$G" disk dump "$d" | sed -n 's/^Key Slot \([0-7]\): ENABLED/\1/p' | tr '\n' ' ')" = "0 1 5 " ]
for p in p2 p3; do
  check "$p opens to the same master key" \
    [ "$("$G" disk dump "$d" --master-key --pass-file "$T/$p" | sed -n 's/^Master key: *//p')" = "$mk1" ]
done
fails 1 "key slot 5 is in use" "add-pass into an enabled slot" \
  "$G" disk add-pass "$d" --pass-file "$T/p1" --new-pass-file "$T/bad" --slot 5 $I
check "remove-pass p1 (by passphrase)" quiet "$G" disk remove-pass "$d" --pass-file "$T/p1"
fails 1 "no key slot opens" "p1 no longer opens" "$G" disk dump "$d" --master-key --pass-file "$T/p1"
check "remove-pass --slot 5 given p2" quiet "$G" disk remove-pass "$d" --pass-file "$T/p2" --slot 5
fails 1 "no key slot opens" "p3 no longer opens" "$G" disk dump "$d" --master-key --pass-file "$T/p3"
fails 1 "key slot 5 is not in use" "remove a disabled slot" \
  "$G" disk remove-pass "$d" --pass-file "$T/p2" --slot 5
cp "$d" "$T/last"
fails 1 "holds the last passphrase" "remove the last passphrase" \
  "$G" disk remove-pass "$d" --pass-file "$T/p2"
check "refused remove left the image" cmp -s "$d" "$T/last"
check "remove the last with --force" quiet "$G" disk remove-pass "$d" --pass-file "$T/p2" --force
fails 1 "no key slot is enabled" "no slot left" "$G" disk dump "$d" --master-key --pass-file "$T/p2"
check "payload untouched by slot changes" cmp -s <(tail -c +2097153 "$d") <(tail -c +2097153 "$T/orig")

# ---- damaged and short images ----
cp "$T/orig" "$T/dmg"
setbyte "$T/dmg" 0 0x4d
fails 1 "not a LUKS disk (bad magic)" "bad magic" "$G" disk dump "$T/dmg"
cp "$T/orig" "$T/dmg"
setbyte "$T/dmg" 7 2
fails 1 "LUKS2 header: only LUKS1" "version 2" "$G" disk dump "$T/dmg"
cp "$T/orig" "$T/dmg"
printf 'aes\0' | dd of="$T/dmg" bs=1 seek=8 conv=notrunc status=none
fails 1 "unsupported cipher-name" "cipher aes" "$G" disk dump "$T/dmg"
cp "$T/orig" "$T/dmg"
printf 'sha256\0' | dd of="$T/dmg" bs=1 seek=72 conv=notrunc status=none
fails 1 "unsupported hash-spec" "hash sha256" \
  "$G" disk add-pass "$T/dmg" --pass-file "$T/p1" --new-pass-file "$T/p2" $I
cp "$T/orig" "$T/dmg"
setbyte "$T/dmg" $((208 + 48 + 43)) 7 # slot 1 material at sector 7: over slot 0
fails 1 "overlap each other" "slot over slot" "$G" disk remove-pass "$T/dmg" --pass-file "$T/p1" --slot 0
head -c $((2 << 20)) "$T/orig" | head -c -512 >"$T/short"
fails 1 "smaller than its LUKS header area" "short image" "$G" disk dump "$T/short"
head -c 100 "$T/orig" >"$T/tiny"
fails 1 "truncated" "100-byte image" "$G" disk dump "$T/tiny"
fails 1 "No such file" "missing image" "$G" disk dump "$T/nonexistent"
: >"$T/empty"
fails 2 "empty passphrase" "empty passphrase file" "$G" disk format "$T/new.img" --size 1M --pass-file "$T/empty"
check "no image left by a refused format" [ ! -e "$T/new.img" ]
cp "$T/p1" "$T/p1.bak"
fails 2 "same file as the passphrase file" "format over the passphrase file" \
  "$G" disk format "$T/p1" --size 1M --pass-file "$T/p1" --force
check "the passphrase file survived" cmp -s "$T/p1" "$T/p1.bak"

# ---- usage errors ----
fails 2 "missing action" "no action" "$G" disk
fails 2 "unknown action" "unknown action" "$G" disk resize "$d"
fails 2 "missing IMAGE" "no image" "$G" disk dump
fails 2 "--size SIZE is required" "format without size" "$G" disk format "$T/x.img" --pass-file "$T/p1"
fails 2 "multiple of 512" "odd size" "$G" disk format "$T/x.img" --size 1000 --pass-file "$T/p1"
fails 2 "not a size" "bad size" "$G" disk format "$T/x.img" --size 1Q --pass-file "$T/p1"
fails 2 "--slot must be between 0 and 7" "slot 8" "$G" disk remove-pass "$d" --slot 8 --pass-file "$T/p1"
fails 2 "--iter must be between" "iter 0" "$G" disk format "$T/x.img" --size 1M --iter 0 --pass-file "$T/p1"
fails 2 "is not an option here" "format --slot" "$G" disk format "$T/x.img" --size 1M --slot 1
fails 2 "goes with --master-key" "dump --pass-file alone" "$G" disk dump "$d" --pass-file "$T/p1"
fails 2 "unexpected argument" "two images" "$G" disk dump "$d" "$d"
check "--help" quiet "$G" disk --help
check "gostx --help lists disk" grep -q "^  disk " <("$G" --help)

finish
