#!/bin/bash
# The openssl command with the gostx provider: list -providers, enc, dgst,
# mac and kdf with our names, each compared with gost-engine's provider
# (gostprov) or, where gostprov has no such algorithm, with a composition of
# its HMAC; bad lengths refused with an error. $1: the folder with gostx.so.
# Skips (77) without the openssl binary or gostprov.
source "$(dirname "$0")/ossl_common.sh"
same() { [ -n "$2" ] && [ "$2" = "$3" ] && echo 1 || echo 0; }

out=$(openssl list -providers "${ours[@]}")
check "list -providers shows gostx active" "$(grep -q 'status: active' <<<"$out" && grep -q gostx <<<"$out" && echo 1 || echo 0)"
out=$(openssl list -cipher-algorithms "${ours[@]}" | grep -c '@ gostx')
check "list -cipher-algorithms: 19 ciphers @ gostx (got $out)" "$([ "$out" = 19 ] && echo 1 || echo 0)"

# enc both ways: ours encrypts, gostprov decrypts, and the other way round
for spec in kuznyechik-ecb:0 kuznyechik-cbc:16 kuznyechik-cfb:16 kuznyechik-ofb:16 \
            kuznyechik-ctr:8 kuznyechik-ctr-acpkm:8 magma-cbc:8 magma-ctr:4 magma-ctr-acpkm:4 \
            gost89:8 gost89-cnt:8 gost89-cnt-12:8 gost89-cbc:8; do
  name=${spec%%:*} ivl=${spec#*:}
  for len in 0 1 4097 $((RANDOM % 5000)); do
    head -c "$len" /dev/urandom > "$tmp/p"
    key=$(rnd 32) iv=()
    [ "$ivl" -gt 0 ] && iv=(-iv "$(rnd "$ivl")")
    openssl enc "-$name" -K "$key" "${iv[@]}" -in "$tmp/p" -out "$tmp/c1" "${ours[@]}" 2>"$tmp/err"
    openssl enc "-$name" -K "$key" "${iv[@]}" -in "$tmp/p" -out "$tmp/c2" "${theirs[@]}" 2>>"$tmp/err"
    check "enc -$name len $len = gostprov" "$(cmp -s "$tmp/c1" "$tmp/c2" && [ -s "$tmp/c1" -o "$len" = 0 ] && echo 1 || echo 0)"
    openssl enc -d "-$name" -K "$key" "${iv[@]}" -in "$tmp/c1" -out "$tmp/d1" "${theirs[@]}" 2>>"$tmp/err"
    openssl enc -d "-$name" -K "$key" "${iv[@]}" -in "$tmp/c2" -out "$tmp/d2" "${ours[@]}" 2>>"$tmp/err"
    check "enc -d -$name len $len both ways" "$(cmp -s "$tmp/d1" "$tmp/p" && cmp -s "$tmp/d2" "$tmp/p" && echo 1 || echo 0)"
  done
done

# dgst, and HMAC over our digest (the default provider's HMAC)
for len in 0 63 64 65 $((RANDOM % 5000)); do
  head -c "$len" /dev/urandom > "$tmp/p"
  for md in md_gost12_256 md_gost12_512; do
    a=$(openssl dgst "-$md" -r "${ours[@]}" < "$tmp/p" | cut -d' ' -f1)
    b=$(openssl dgst "-$md" -r "${theirs[@]}" < "$tmp/p" | cut -d' ' -f1)
    check "dgst -$md len $len" "$(same x "$a" "$b")"
    key=$(rnd 40)
    a=$(openssl mac -digest "$md" -macopt "hexkey:$key" -in "$tmp/p" "${ours[@]}" -provider default HMAC)
    b=$(openssl mac -digest "$md" -macopt "hexkey:$key" -in "$tmp/p" "${theirs[@]}" HMAC)
    check "mac HMAC -digest $md len $len" "$(same x "$a" "$b")"
  done
  # mac with gostprov's MAC names
  for m in gost-mac gost-mac-12 magma-mac kuznyechik-mac kuznyechik-ctr-acpkm-omac; do
    key=$(rnd 32)
    a=$(openssl mac -macopt "hexkey:$key" -in "$tmp/p" "${ours[@]}" "$m")
    b=$(openssl mac -macopt "hexkey:$key" -in "$tmp/p" "${theirs[@]}" "$m")
    check "mac $m len $len" "$(same x "$a" "$b")"
  done
done

# kdf: KDF_GOSTR3411_2012_256(K, label, seed) = HMAC_256(K, 01 | label | 00 | seed | 01 00)
for r in 1 2 3; do
  key=$(rnd 32) label=$(rnd $((r * 3))) seed=$(rnd 8)
  a=$(openssl kdf -keylen 32 -kdfopt "hexkey:$key" -kdfopt "hexlabel:$label" \
      -kdfopt "hexseed:$seed" "${ours[@]}" KDF_GOSTR3411_2012_256 | tr -d ':' | tr A-F a-f)
  printf '%s' "01${label}00${seed}0100" | xxd -r -p > "$tmp/m"
  b=$(openssl mac -digest md_gost12_256 -macopt "hexkey:$key" -in "$tmp/m" "${theirs[@]}" HMAC | tr A-F a-f)
  check "kdf KDF_GOSTR3411_2012_256 = HMAC over gostprov" "$(same x "$a" "$b")"
  # KDF_TREE, R = 1, 64 bytes: K1 | K2 with [i] | label | 00 | seed | 02 00
  a=$(openssl kdf -keylen 64 -kdfopt "hexkey:$key" -kdfopt "hexlabel:$label" \
      -kdfopt "hexseed:$seed" "${ours[@]}" KDF_TREE_GOSTR3411_2012_256 | tr -d ':' | tr A-F a-f)
  b=""
  for i in 01 02; do
    printf '%s' "${i}${label}00${seed}0200" | xxd -r -p > "$tmp/m"
    b=$b$(openssl mac -digest md_gost12_256 -macopt "hexkey:$key" -in "$tmp/m" "${theirs[@]}" HMAC | tr A-F a-f)
  done
  check "kdf KDF_TREE_GOSTR3411_2012_256 64 bytes = HMAC over gostprov" "$(same x "$a" "$b")"
done

# both providers loaded: -propquery provider=gostx picks ours
a=$(echo abc | openssl dgst -md_gost12_256 -r "${theirs[@]}" "${ours[@]}" -propquery provider=gostx | cut -d' ' -f1)
b=$(echo abc | openssl dgst -md_gost12_256 -r "${theirs[@]}" | cut -d' ' -f1)
check "dgst with both loaded, -propquery provider=gostx" "$(same x "$a" "$b")"

# refusals: a clear error, non-zero exit
refused "mac magma-mac 16-byte key" "key is 16 bytes, must be 32" \
  openssl mac -macopt hexkey:00112233445566778899aabbccddeeff "${ours[@]}" magma-mac
refused "mac gost-mac size 9" "size 9: must be 1..8" \
  openssl mac -macopt hexkey:"$(rnd 32)" -macopt size:9 "${ours[@]}" gost-mac
refused "kdf KDF_TREE r=5" "must be 1..4, not 5" \
  openssl kdf -keylen 32 -kdfopt hexkey:00 -kdfopt r:5 "${ours[@]}" KDF_TREE_GOSTR3411_2012_256
refused "kdf KDF_GOSTR3411_2012_256 keylen 16" "gives 32 bytes, not 16" \
  openssl kdf -keylen 16 -kdfopt hexkey:00 "${ours[@]}" KDF_GOSTR3411_2012_256
head -c 20 /dev/urandom > "$tmp/p"
refused "enc -kuznyechik-cbc -nopad on 20 bytes" "not a whole block" \
  openssl enc -kuznyechik-cbc -nopad -K "$(rnd 32)" -iv "$(rnd 16)" -in "$tmp/p" "${ours[@]}"
refused "enc -d -kuznyechik-cbc bad padding" "bad decrypt" \
  openssl enc -d -kuznyechik-cbc -K "$(rnd 32)" -iv "$(rnd 16)" -in <(head -c 32 /dev/zero) "${ours[@]}"
# issue 32 item 8: the CMS ciphers' tag and seed have no place in enc's
# output, so enc refuses them (they are AEAD, as gostprov's) instead of
# writing what can never be decrypted
for c in kuznyechik-ctr-acpkm-omac magma-ctr-acpkm-omac; do
  ivl=8; [ "$c" = magma-ctr-acpkm-omac ] && ivl=4
  refused "enc -$c" "AEAD ciphers not supported" \
    openssl enc "-$c" -K "$(rnd 32)" -iv "$(rnd "$ivl")" -in "$tmp/p" "${ours[@]}"
done
# issue 32 item 9: errors print the reason's text, not reason(N)
refused "mac magma-mac 16-byte key: reason text" "bad key length" \
  openssl mac -macopt hexkey:00112233445566778899aabbccddeeff "${ours[@]}" magma-mac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
