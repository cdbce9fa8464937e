#!/usr/bin/env bash
# Secrets off the command line (issue 32 item 17): cipher, mac and kdf
# kdf256/kdftree take the key as raw bytes from --key-file FILE or --key-fd N,
# kdf pbkdf2 the passphrase from --pass-file FILE or --pass-fd N (as gostx enc:
# one trailing newline dropped). Each gives the same output as -k HEX /
# --pass; a missing file, a closed descriptor or a key of the wrong length is
# an error that names it; two sources are a usage error; --help says that -k
# and --pass on the command line are visible to other users.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" secret-opts
lines() { grep -c . "$1"; }
"$G" keygen -o "$T/key" || exit 1
K=$(od -An -v -tx1 "$T/key" | tr -d ' \n')
head -c 64 /dev/urandom >"$T/key64"
K64=$(od -An -v -tx1 "$T/key64" | tr -d ' \n')
head -c 45 /dev/urandom >"$T/hkey" # HMAC: any length
HK=$(od -An -v -tx1 "$T/hkey" | tr -d ' \n')
head -c 5000 /dev/urandom >"$T/plain"
N16=$(printf '%032x' 9)

# same WHAT FILE HEX COMMAND...: COMMAND with -k HEX, --key-file FILE,
# --key-fd 3 (3<FILE) and --key-fd 3 from a pipe print the same, non-empty.
same() {
  local what=$1 file=$2 hex=$3; shift 3
  "$@" -k "$hex" >"$T/ref" 2>"$T/err" || { bad "$what: -k HEX failed: $(cat "$T/err")"; return; }
  check "$what: -k HEX gives output" [ -s "$T/ref" ]
  "$@" --key-file "$file" >"$T/o1" 2>"$T/err"
  check "$what: --key-file = -k HEX $(head -c 200 "$T/err")" cmp -s "$T/ref" "$T/o1"
  "$@" --key-fd 3 3<"$file" >"$T/o2" 2>"$T/err"
  check "$what: --key-fd 3 (file) = -k HEX $(head -c 200 "$T/err")" cmp -s "$T/ref" "$T/o2"
  "$@" --key-fd 3 3< <(cat "$file") >"$T/o3" 2>"$T/err"
  check "$what: --key-fd 3 (pipe) = -k HEX $(head -c 200 "$T/err")" cmp -s "$T/ref" "$T/o3"
}
same "cipher kuznyechik-ctr" "$T/key" "$K" "$G" cipher kuznyechik-ctr --iv 0102030405060708 -i "$T/plain"
same "cipher magma-cbc" "$T/key" "$K" "$G" cipher magma-cbc --iv 0102030405060708 --pad 2 -i "$T/plain"
same "cipher kuznyechik-mgm" "$T/key" "$K" "$G" cipher kuznyechik-mgm --iv "$N16" --aad 0102 -i "$T/plain"
same "cipher kuznyechik-xts (64-byte key)" "$T/key64" "$K64" \
  "$G" cipher kuznyechik-xts --sector 7 --sector-size 512 -i "$T/plain"
same "cipher gost89-cfb" "$T/key" "$K" "$G" cipher gost89-cfb --iv 0102030405060708 -i "$T/plain"
same "mac kuznyechik-omac" "$T/key" "$K" "$G" mac kuznyechik-omac -i "$T/plain"
same "mac gost89-imit" "$T/key" "$K" "$G" mac gost89-imit -i "$T/plain"
same "mac hmac-streebog512 (45-byte key)" "$T/hkey" "$HK" "$G" mac hmac-streebog512 -i "$T/plain"
same "kdf kdf256" "$T/hkey" "$HK" "$G" kdf kdf256 --label 0102 --seed 0304
same "kdf kdftree" "$T/key" "$K" "$G" kdf kdftree --label 0102 --seed 0304 --len 100 --r 2
# decryption with the key from a file undoes encryption with -k
"$G" cipher kuznyechik-mgm -k "$K" --iv "$N16" -i "$T/plain" -o "$T/c" &&
  "$G" cipher kuznyechik-mgm -d --key-file "$T/key" --iv "$N16" -i "$T/c" -o "$T/p"
check "mgm: -k encrypt, --key-file decrypt: round trip" cmp -s "$T/plain" "$T/p"

# pbkdf2: --pass-file / --pass-fd = --pass (the file's trailing newline dropped)
pb=("$G" kdf pbkdf2 --salt 0a0b0c --iter 50 --len 80)
printf 'correct horse battery\n' >"$T/pw"
printf 'correct horse battery' >"$T/pw.nonl"
want=$("${pb[@]}" --pass 'correct horse battery')
check "pbkdf2 --pass gives output" [ -n "$want" ]
check "pbkdf2 --pass-file (newline) = --pass" [ "$("${pb[@]}" --pass-file "$T/pw")" = "$want" ]
check "pbkdf2 --pass-file (no newline) = --pass" [ "$("${pb[@]}" --pass-file "$T/pw.nonl")" = "$want" ]
check "pbkdf2 --pass-fd 4 (file) = --pass" [ "$("${pb[@]}" --pass-fd 4 4<"$T/pw")" = "$want" ]
check "pbkdf2 --pass-fd 4 (pipe) = --pass" \
  [ "$(printf 'correct horse battery\n' | "${pb[@]}" --pass-fd 4 4<&0)" = "$want" ]
check "pbkdf2 --pass-hex still = --pass" \
  [ "$("${pb[@]}" --pass-hex "$(printf 'correct horse battery' | od -An -v -tx1 | tr -d ' \n')")" = "$want" ]

# fails RC WHAT REGEX COMMAND...: exit RC, one line on stderr matching REGEX,
# nothing on stdout.
fails() {
  local want_rc=$1 what=$2 re=$3; shift 3
  timeout 10 "$@" </dev/null >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc = "$want_rc" ] && [ "$(lines "$T/err")" = 1 ] && grep -Eq "^gostx: .*($re)" "$T/err" &&
    [ ! -s "$T/out" ]; then
    ok
  else
    bad "$what: rc $rc (want $want_rc), stderr: $(head -c 300 "$T/err")"
  fi
}
ctr=("$G" cipher kuznyechik-ctr --iv 0102030405060708 -i "$T/plain")
fails 1 "cipher --key-file missing" "$T/missing: No such file or directory" "${ctr[@]}" --key-file "$T/missing"
fails 1 "cipher --key-file a directory" "$T: (Is a directory|read error)" "${ctr[@]}" --key-file "$T"
fails 2 "cipher --key-file 33 bytes" "exactly 32 raw bytes .*longer" "${ctr[@]}" --key-file <(head -c 33 /dev/zero)
fails 2 "cipher --key-file hex text" "exactly 32 raw bytes .*longer" "${ctr[@]}" --key-file <(echo "$K")
fails 2 "cipher --key-file 31 bytes" "exactly 32 raw bytes .*shorter" "${ctr[@]}" --key-file <(head -c 31 /dev/zero)
fails 2 "xts --key-file 32 bytes" "exactly 64 raw bytes .*shorter" \
  "$G" cipher kuznyechik-xts --sector 1 -i "$T/plain" --key-file "$T/key"
fails 1 "cipher --key-fd closed" "--key-fd 9: Bad file descriptor" "${ctr[@]}" --key-fd 9
fails 2 "cipher --key-fd not a number" "--key-fd" "${ctr[@]}" --key-fd x3
fails 2 "cipher --key-fd negative" "--key-fd" "${ctr[@]}" --key-fd -1
fails 2 "cipher --key-file ''" "--key-file needs a file name" "${ctr[@]}" --key-file ''
fails 2 "cipher -k and --key-file" "give only one of -k, --key-file and --key-fd" \
  "${ctr[@]}" -k "$K" --key-file "$T/key"
fails 2 "cipher --key-file and --key-fd" "give only one of" "${ctr[@]}" --key-file "$T/key" --key-fd 0
fails 2 "cipher no key" "missing key \(-k KEYHEX, --key-file FILE or --key-fd N\)" "${ctr[@]}"
fails 2 "cipher -o the key file" "same file as the key file" "${ctr[@]}" --key-file "$T/key" -o "$T/key"
check "key file untouched" [ "$(od -An -v -tx1 "$T/key" | tr -d ' \n')" = "$K" ]
fails 1 "mac --key-file missing" "$T/missing: No such file" "$G" mac kuznyechik-omac -i "$T/plain" --key-file "$T/missing"
fails 2 "mac --key-file 45 bytes (OMAC)" "exactly 32 raw bytes" "$G" mac kuznyechik-omac -i "$T/plain" --key-file "$T/hkey"
fails 2 "hmac --key-file empty" "empty key" "$G" mac hmac-streebog256 -i "$T/plain" --key-file /dev/null
fails 2 "mac -k and --key-fd" "give only one of" "$G" mac kuznyechik-omac -i "$T/plain" -k "$K" --key-fd 0
fails 2 "kdf256 -k and --key-file" "give only one of" "$G" kdf kdf256 --label 01 --seed 02 -k "$K" --key-file "$T/key"
fails 1 "kdf256 --key-file missing" "$T/missing" "$G" kdf kdf256 --label 01 --seed 02 --key-file "$T/missing"
fails 2 "pbkdf2 --pass and --pass-file" "give only one of --pass, --pass-hex, --pass-file and --pass-fd" \
  "${pb[@]}" --pass x --pass-file "$T/pw"
fails 2 "pbkdf2 --pass-file and --pass-fd" "give only one of" "${pb[@]}" --pass-fd 0 --pass-file "$T/pw"
fails 1 "pbkdf2 --pass-file missing" "$T/missing: No such file" "${pb[@]}" --pass-file "$T/missing"
fails 1 "pbkdf2 --pass-fd closed" "--pass-fd 8: Bad file descriptor" "${pb[@]}" --pass-fd 8
fails 2 "pbkdf2 --pass-file empty" "empty passphrase" "${pb[@]}" --pass-file /dev/null
fails 2 "pbkdf2 --pass-file too long" "longer than 1024" "${pb[@]}" --pass-file <(head -c 2000 /dev/zero | tr '\0' a)
fails 2 "kdf256 --pass-file" "--pass-file does not apply" "$G" kdf kdf256 --label 01 --seed 02 --pass-file "$T/pw"
fails 2 "pbkdf2 --key-file" "--key-file does not apply" "${pb[@]}" --pass x --key-file "$T/key"

# --help: the new options, and why to prefer them.
for c in cipher mac kdf; do
  "$G" $c --help >"$T/help"
  check "$c --help: --key-file and --key-fd" eval 'grep -q -- "--key-file FILE" "$T/help" && grep -q -- "--key-fd N" "$T/help"'
  check "$c --help: command line visible to other users" grep -q "visible to other users" "$T/help"
done
check "kdf --help: --pass-file and --pass-fd" eval 'grep -q -- "--pass-file FILE" "$T/help" && grep -q -- "--pass-fd N" "$T/help"'
finish
