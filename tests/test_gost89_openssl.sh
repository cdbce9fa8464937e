#!/bin/bash
# Differential test: the gostx CLI's GOST 28147-89 modes against openssl with
# gost-engine (an independent implementation) on random keys, IVs and inputs,
# lengths chosen to cross the 1024-byte key-meshing points.
# Skips (exit 77) without $GOSTX or without openssl's gost engine.
set -u
GOSTX=${GOSTX:-}
[ -n "$GOSTX" ] && [ -x "$GOSTX" ] || { echo "SKIP: \$GOSTX not set or not executable"; exit 77; }
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "SKIP: openssl gost engine unavailable"; exit 77; }
command -v xxd >/dev/null || { echo "SKIP: xxd missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name got want
  # an empty answer counts only for empty input (a failed command also prints nothing)
  if [ "$2" = "$3" ] && { [ -n "$3" ] || [ "$len" -eq 0 ]; }; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $1: got '${2:0:40}' want '${3:0:40}'"; fi
}
hex() { xxd -p | tr -d '\n'; }
rnd() { head -c "$1" /dev/urandom | hex; }
ossl_enc() { # CRYPT_PARAMS cipher key iv file [-d]
  CRYPT_PARAMS=$1 openssl enc -engine gost "-$2" -K "$3" -iv "$4" -in "$5" ${6:-} 2>/dev/null | hex
}
ossl_mac() { # mac key file size
  openssl dgst -engine gost -mac "$1" -macopt "hexkey:$2" -macopt "size:$4" "$3" 2>/dev/null |
    awk '{print $NF}'
}

declare -A pset=([tc26-z]=id-tc26-gost-28147-param-Z [cryptopro-a]=id-Gost28147-89-CryptoPro-A-ParamSet
  [cryptopro-b]=id-Gost28147-89-CryptoPro-B-ParamSet [cryptopro-c]=id-Gost28147-89-CryptoPro-C-ParamSet
  [cryptopro-d]=id-Gost28147-89-CryptoPro-D-ParamSet [test-28147]=1.2.643.2.2.31.0)

for len in 0 1 7 8 9 1023 1024 1025 2048 2051 $((RANDOM % 4000)) $((RANDOM % 5000)); do
  key=$(rnd 32) iv=$(rnd 8)
  head -c "$len" /dev/urandom > "$tmp/p"
  for s in "${!pset[@]}"; do
    want=$(ossl_enc "${pset[$s]}" gost89 "$key" "$iv" "$tmp/p")
    got=$("$GOSTX" cipher gost89-cfb -k "$key" --iv "$iv" --sbox "$s" --mesh -i "$tmp/p" | hex)
    check "cfb $s len $len" "$got" "$want"
    printf '%s' "$want" | xxd -r -p > "$tmp/c"
    got=$("$GOSTX" cipher gost89-cfb -d -k "$key" --iv "$iv" --sbox "$s" --mesh -i "$tmp/c" | hex)
    check "cfb -d $s len $len" "$got" "$(hex < "$tmp/p")"
  done
  want=$(ossl_enc "" gost89-cnt "$key" "$iv" "$tmp/p")
  got=$("$GOSTX" cipher gost89-cnt -k "$key" --iv "$iv" --sbox cryptopro-a --mesh -i "$tmp/p" | hex)
  check "cnt cryptopro-a len $len" "$got" "$want"
  want=$(ossl_enc "" gost89-cnt-12 "$key" "$iv" "$tmp/p")
  got=$("$GOSTX" cipher gost89-cnt -k "$key" --iv "$iv" --sbox tc26-z --mesh -i "$tmp/p" | hex)
  check "cnt tc26-z len $len" "$got" "$want"
  for sz in 4 8; do
    want=$(ossl_mac gost-mac "$key" "$tmp/p" $sz)
    got=$("$GOSTX" mac gost89-imit -k "$key" --sbox cryptopro-a --mesh --len $sz -i "$tmp/p")
    check "imit cryptopro-a len $len size $sz" "$got" "$want"
    want=$(ossl_mac gost-mac-12 "$key" "$tmp/p" $sz)
    got=$("$GOSTX" mac gost89-imit -k "$key" --sbox tc26-z --mesh --len $sz -i "$tmp/p")
    check "imit tc26-z len $len size $sz" "$got" "$want"
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
