#!/bin/bash
# The parameter sets of the gostx provider's GOST 28147-89 ciphers and
# md_gost94, as gost-engine's provider (gostprov) takes them:
# - gost89 (CFB) and gost89-cbc take the S-box set from the environment
#   variable CRYPT_PARAMS (a dotted OID or an ASN.1 name; TC26-Z when unset),
#   gost89-cnt / gost89-cnt-12 ignore it. Known answers: gost-engine's own
#   encryption test (test/03-encrypt.t: key 0123456789ABCDEF x4, IV 0, the
#   "quick brown fox" line, CryptoPro A-D); then byte for byte against
#   gostprov for every set it has, both directions, and a bad CRYPT_PARAMS
#   refused with an error.
# - md_gost94 (GOST R 34.11-94, CryptoPro parameter set) against gostprov's
#   on random inputs of many lengths, under its names and OID, and HMAC
#   over it.
# $1: the folder with gostx.so. Skips (77) without openssl or gostprov.
source "$(dirname "$0")/ossl_common.sh"
enc() { # CRYPT_PARAMS cipher key iv infile outfile [-d] providers...
  local cp=$1 c=$2 k=$3 iv=$4 in=$5 out=$6
  shift 6
  if [ -n "$cp" ]; then
    CRYPT_PARAMS=$cp openssl enc "-$c" -K "$k" -iv "$iv" -in "$in" -out "$out" "$@" 2>>"$tmp/err"
  else
    env -u CRYPT_PARAMS openssl enc "-$c" -K "$k" -iv "$iv" -in "$in" -out "$out" "$@" 2>>"$tmp/err"
  fi
}

# gost-engine's known answers (03-encrypt.t), with our provider alone
key=$(printf '0123456789ABCDEF%.0s' 1 2 3 4) iv=0000000000000000
printf 'The quick brown fox jumps over the lazy dog\n' > "$tmp/fox"
while read -r cp alg want; do
  enc "$cp" "$alg" "$key" "$iv" "$tmp/fox" "$tmp/c" "${ours[@]}"
  check "enc -$alg CRYPT_PARAMS=$cp known answer" "$([ "$(hex < "$tmp/c")" = "$want" ] && echo 1 || echo 0)"
  enc "$cp" "$alg" "$key" "$iv" "$tmp/c" "$tmp/d" -d "${ours[@]}"
  check "enc -d -$alg CRYPT_PARAMS=$cp known answer" "$(cmp -s "$tmp/d" "$tmp/fox" && echo 1 || echo 0)"
done <<'EOF'
1.2.643.2.2.31.1 gost89 07f4102c6185c4a09e676e269bfa4bc9c5df6575916b879bd13a893a2285ee6690107cdeef7a315d2eb54bfa
1.2.643.2.2.31.2 gost89 11465c1c9708033e784fbb5536f2719c38353cb488b01f195c20d4c027022e8300d98bb66c138afbe878c88b
1.2.643.2.2.31.3 gost89 2f213b390c9b6ceb18de479686d23f4f03c76644a0aab8894b50b71a3bbb3c027ec4c2d569ba0e6a873bd46e
1.2.643.2.2.31.4 gost89 e835f59a7fdfd84764efe1e987660327f5d0de187afea72f9cd040983a5e5bbeb4fe1aa5ff85d623ebc4d435
1.2.643.2.2.31.1 gost89-cnt bcb821452e459f10f92019171e7c3b27b87f24b174306667f67704812c07b70b5e7420f74a9d54feb4897df8
1.2.643.2.2.31.2 gost89-cnt bcb821452e459f10f92019171e7c3b27b87f24b174306667f67704812c07b70b5e7420f74a9d54feb4897df8
1.2.643.2.2.31.1 gost89-cnt-12 cf3f5f713b3d10abd0c6f7bafb6aaffe13dfc12ef5c844f84873aeaaf6eb443a9747c9311b86f97ba3cdb5c4
1.2.643.2.2.31.2 gost89-cnt-12 cf3f5f713b3d10abd0c6f7bafb6aaffe13dfc12ef5c844f84873aeaaf6eb443a9747c9311b86f97ba3cdb5c4
1.2.643.2.2.31.1 gost89-cbc 3a3293e75089376572da44966cd1759c29d2f1e5e1c3fa9674909a63026da3dc51a4266bff37fb74a3a07155c9ca8fcf
1.2.643.2.2.31.2 gost89-cbc af2a2167b75852378af176ac9950e3c4bffc94d3d4355191707adbb16d6c8e3f3a07868c4702babef18393edfac60a6d
1.2.643.2.2.31.3 gost89-cbc 987c0fb3d84530467a1973791e0a25e33c5d14591976f8c1573bdb9d056eb7b353f66fef3ffe2e3524583b3997123c8a
1.2.643.2.2.31.4 gost89-cbc e076b09822d4786a2863125d16594d765d8acd0f360e52df42e9d52c8e6c0e6595b5f6bbecb04a22c8ae5f4f87c1523b
EOF

# Every set gostprov takes, by OID and by name, and unset: byte for byte, both ways
for cp in "" 1.2.643.7.1.2.5.1.1 id-Gost28147-89-CryptoPro-A-ParamSet 1.2.643.2.2.31.2 \
          id-Gost28147-89-CryptoPro-C-ParamSet 1.2.643.2.2.31.4 id-Gost28147-89-TestParamSet \
          1.2.643.2.2.31.0; do
  for alg in gost89 gost89-cbc; do
    for len in 0 1 8 1023 1025 $((RANDOM % 3000)); do
      head -c "$len" /dev/urandom > "$tmp/p"
      k=$(rnd 32) v=$(rnd 8)
      enc "$cp" "$alg" "$k" "$v" "$tmp/p" "$tmp/c1" "${ours[@]}"
      enc "$cp" "$alg" "$k" "$v" "$tmp/p" "$tmp/c2" "${theirs[@]}"
      check "enc -$alg CRYPT_PARAMS='$cp' len $len = gostprov" \
        "$([ -s "$tmp/c2" -o "$len" = 0 ] && cmp -s "$tmp/c1" "$tmp/c2" && echo 1 || echo 0)"
      enc "$cp" "$alg" "$k" "$v" "$tmp/c2" "$tmp/d" -d "${ours[@]}"
      check "enc -d -$alg CRYPT_PARAMS='$cp' len $len of gostprov's" "$(cmp -s "$tmp/d" "$tmp/p" && echo 1 || echo 0)"
    done
  done
done

# An unknown CRYPT_PARAMS: refused with an error that names it
for alg in gost89 gost89-cbc; do
  if CRYPT_PARAMS=1.2.643.2.2.99 openssl enc "-$alg" -K "$(rnd 32)" -iv "$(rnd 8)" -in "$tmp/fox" \
       "${ours[@]}" >"$tmp/o" 2>"$tmp/e"; then
    check "enc -$alg CRYPT_PARAMS=1.2.643.2.2.99 refused" 0
  else
    check "enc -$alg CRYPT_PARAMS=1.2.643.2.2.99 refused, naming it" \
      "$(grep -q "CRYPT_PARAMS" "$tmp/e" && grep -q "1.2.643.2.2.99" "$tmp/e" && echo 1 || echo 0)"
  fi
done

# md_gost94 (CryptoPro set, as gostprov): many lengths, the large ones past 2^16 bits
for len in $(seq 0 80) 95 96 97 127 128 129 255 256 257 300 $((RANDOM % 5000)) 65536 100003; do
  head -c "$len" /dev/urandom > "$tmp/p"
  a=$(openssl dgst -md_gost94 -r "${ours[@]}" < "$tmp/p" 2>>"$tmp/err" | cut -d' ' -f1)
  b=$(openssl dgst -md_gost94 -r "${theirs[@]}" < "$tmp/p" | cut -d' ' -f1)
  check "dgst -md_gost94 len $len = gostprov" "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 1 || echo 0)"
done
head -c 777 /dev/urandom > "$tmp/p"
b=$(openssl dgst -md_gost94 -r "${theirs[@]}" < "$tmp/p" | cut -d' ' -f1)
for name in md_gost94 id-GostR3411-94 1.2.643.2.2.9; do
  a=$(openssl dgst "-$name" -r "${ours[@]}" < "$tmp/p" 2>>"$tmp/err" | cut -d' ' -f1)
  check "dgst -$name = gostprov's md_gost94" "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 1 || echo 0)"
done
# HMAC of the default provider over our md_gost94 (runs dupctx)
for len in 0 33 1000; do
  head -c "$len" /dev/urandom > "$tmp/p"
  key=$(rnd 40)
  a=$(openssl mac -digest md_gost94 -macopt "hexkey:$key" -in "$tmp/p" "${ours[@]}" -provider default HMAC 2>>"$tmp/err")
  b=$(openssl mac -digest md_gost94 -macopt "hexkey:$key" -in "$tmp/p" "${theirs[@]}" HMAC)
  check "mac HMAC -digest md_gost94 len $len = gostprov" "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 1 || echo 0)"
done

[ "$fail" -eq 0 ] || { echo "stderr of the failed runs:"; tail -n 20 "$tmp/err"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
