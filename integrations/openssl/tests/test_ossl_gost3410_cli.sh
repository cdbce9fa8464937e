#!/bin/bash
# The openssl command with GOST R 34.10-2012 keys from the gostx provider
# (with the default provider for PEM and X.509), each result checked by
# gost-engine (`-engine gost`, the same Debian package as gostprov) and
# self-signed certificates by GnuTLS's certtool: genpkey, pkey -text/-pubout,
# dgst -sign/-verify, req -x509, x509 -text, verify, pkeyutl -derive (VKO and
# KEG), cms.
# $1: the folder with gostx.so. Skips (77) as ossl_common.sh does; certtool
# missing is a failure (gnutls-bin, installed by .ci/run).
source "$(dirname "$0")/ossl_common.sh"
command -v certtool >/dev/null || { echo "FAIL: certtool missing (Debian: gnutls-bin)"; exit 1; }
P=("${ours[@]}" -provider default)
E=(-engine gost)
ok() { if "$@" >"$tmp/o" 2>"$tmp/e"; then echo 1; else cat "$tmp/e" >&2; echo 0; fi; }
same() { [ -n "$2" ] && [ "$2" = "$3" ] && echo 1 || { echo "  $1: '$2' != '$3'" >&2; echo 0; }; }
# asn1parse without the key bytes: the OIDs and lengths gost-engine writes
shape() { openssl asn1parse -in "$1" | sed 's/\[HEX DUMP\]:.*//'; }
# certtool's verdict on a self-signed certificate
verdict() { certtool --verify --load-ca-certificate "$1" --infile "$1" 2>&1 | grep -m1 'Chain verification output' || echo none; }
# in, out: a PEM certificate with the last bit of its signature flipped
corrupt() {
  openssl x509 -in "$1" -outform DER -out "$tmp/c.der"
  local n last
  n=$(stat -c %s "$tmp/c.der") last=$(tail -c 1 "$tmp/c.der" | xxd -p)
  { head -c $((n - 1)) "$tmp/c.der"; printf '%02x' $((0x$last ^ 1)) | xxd -r -p; } |
    openssl x509 -inform DER -out "$2"
}
head -c 1000 /dev/urandom > "$tmp/msg"

for spec in 256:A 256:XA 256:XB 256:TCA 256:TCB 512:A 512:B 512:C; do
  bits=${spec%%:*} ps=${spec#*:} alg=gost2012_${spec%%:*} md=md_gost12_${spec%%:*}
  k=$tmp/k$bits$ps e=$tmp/e$bits$ps
  check "genpkey $alg paramset:$ps" "$(ok openssl genpkey -algorithm "$alg" -pkeyopt "paramset:$ps" -out "$k.pem" "${P[@]}")"
  openssl genpkey -algorithm "$alg" -pkeyopt "paramset:$ps" -out "$e.pem" "${E[@]}" 2>/dev/null
  check "$alg/$ps PKCS#8 has gost-engine's shape" "$(same shape "$(shape "$k.pem")" "$(shape "$e.pem")")"
  check "$alg/$ps pkey -text" "$(openssl pkey -in "$k.pem" -text -noout "${P[@]}" | grep -q '^Parameter set: ' && echo 1 || echo 0)"
  # each side reads the other's private key and gives the same public key
  openssl pkey -in "$k.pem" -pubout -out "$k.pub" "${P[@]}"
  openssl pkey -in "$e.pem" -pubout -out "$e.pub" "${E[@]}" 2>/dev/null
  check "$alg/$ps gost-engine reads our key" "$(same pub "$(openssl pkey -in "$k.pem" -pubout "${E[@]}" 2>/dev/null)" "$(cat "$k.pub")")"
  check "$alg/$ps we read gost-engine's key" "$(same pub "$(openssl pkey -in "$e.pem" -pubout "${P[@]}")" "$(cat "$e.pub")")"
  check "$alg/$ps SPKI has gost-engine's shape" "$(same shape "$(shape "$k.pub")" "$(shape "$e.pub")")"
  # dgst: ours signs, gost-engine verifies, and the other way round
  openssl dgst "-$md" -sign "$k.pem" -out "$k.sig" "${P[@]}" "$tmp/msg"
  check "$alg/$ps dgst -sign (ours) -verify (gost-engine)" "$(ok openssl dgst "-$md" -verify "$k.pub" -signature "$k.sig" "${E[@]}" "$tmp/msg")"
  check "$alg/$ps dgst -verify (ours)" "$(ok openssl dgst "-$md" -verify "$k.pub" -signature "$k.sig" "${P[@]}" "$tmp/msg")"
  openssl dgst "-$md" -sign "$e.pem" -out "$e.sig" "${E[@]}" "$tmp/msg" 2>/dev/null
  check "$alg/$ps dgst -sign (gost-engine) -verify (ours)" "$(ok openssl dgst "-$md" -verify "$e.pub" -signature "$e.sig" "${P[@]}" "$tmp/msg")"
  head -c "$((bits / 4 - 1))" "$k.sig" > "$k.short"
  check "$alg/$ps dgst -verify of a truncated signature fails" "$(openssl dgst "-$md" -verify "$k.pub" -signature "$k.short" "${P[@]}" "$tmp/msg" 2>&1 | grep -q 'must be' && echo 1 || echo 0)"
  # a self-signed certificate: ours makes it; ours, gost-engine and certtool check it
  check "$alg/$ps req -x509" "$(ok openssl req -x509 -new -key "$k.pem" -subj "/CN=gostx $alg $ps" -days 2 -out "$k.crt" "${P[@]}")"
  check "$alg/$ps x509 -text" "$(openssl x509 -in "$k.crt" -text -noout "${P[@]}" | grep -q "Signature Algorithm: GOST R 34.10-2012 with GOST R 34.11-2012 ($bits bit)" && echo 1 || echo 0)"
  # -check_ss_sig: without it openssl does not check a trust anchor's own signature
  check "$alg/$ps verify -check_ss_sig (gost-engine)" "$(ok openssl verify -check_ss_sig -CAfile "$k.crt" "${E[@]}" "$k.crt")"
  corrupt "$k.crt" "$k.bad.crt"
  check "$alg/$ps verify -check_ss_sig (gost-engine) of a changed signature fails" "$(openssl verify -check_ss_sig -CAfile "$k.bad.crt" "${E[@]}" "$k.bad.crt" 2>&1 | grep -q 'signature mismatch' && echo 1 || echo 0)"
  # OpenSSL 3.0's X.509 verify looks the digest up by legacy NID (README): where that
  # holds the refusal must be that one; elsewhere ours must verify
  if openssl verify -check_ss_sig -CAfile "$k.crt" "${P[@]}" "$k.crt" >/dev/null 2>"$tmp/e"; then
    check "$alg/$ps verify -check_ss_sig (ours)" 1
  else
    check "$alg/$ps verify -check_ss_sig (ours): libcrypto's legacy-NID limit" "$(grep -q 'unknown message digest algorithm' "$tmp/e" && echo 1 || echo 0)"
  fi
  openssl req -x509 -new -key "$e.pem" -subj "/CN=engine" -days 2 -out "$e.crt" "${E[@]}" 2>/dev/null
  # GnuTLS 3.7 knows the curves of CryptoPro-A/XchA (= TC26 256 B) and TC26 512 A only:
  # there it must trust ours; elsewhere it must judge ours as it judges gost-engine's
  v=$(verdict "$k.crt")
  case $spec in
    256:A | 256:XA | 256:TCB | 512:A) want="Chain verification output: Verified. The certificate is trusted. " ;;
    *) want=$(verdict "$e.crt") ;;
  esac
  check "$alg/$ps certtool --verify: $v" "$(same certtool "$v" "$want")"
  if [ "$v" = "Chain verification output: Verified. The certificate is trusted. " ]; then
    check "$alg/$ps certtool refuses a changed signature" "$(verdict "$k.bad.crt" | grep -q 'signature in the certificate is invalid' && echo 1 || echo 0)"
  fi
  # VKO: ours both ways and gost-engine agree (8-byte UKM, 32 bytes)
  openssl genpkey -algorithm "$alg" -pkeyopt "paramset:$ps" -out "$k.2.pem" "${P[@]}"
  openssl pkey -in "$k.2.pem" -pubout -out "$k.2.pub" "${P[@]}"
  ukm=$(rnd 8)
  a=$(openssl pkeyutl -derive -inkey "$k.pem" -peerkey "$k.2.pub" -pkeyopt "ukm:$ukm" "${P[@]}" | hex)
  b=$(openssl pkeyutl -derive -inkey "$k.2.pem" -peerkey "$k.pub" -pkeyopt "ukmhex:$ukm" "${P[@]}" | hex)
  c=$(openssl pkeyutl -derive -inkey "$k.pem" -peerkey "$k.2.pub" -pkeyopt "ukmhex:$ukm" "${E[@]}" 2>/dev/null | hex)
  check "$alg/$ps pkeyutl -derive both ways" "$(same derive "$a" "$b")"
  check "$alg/$ps pkeyutl -derive = gost-engine" "$(same derive "$a" "$c")"
  # KEG (RFC 9189): a 32-byte UKM is the hash H, 64 bytes out, as gost-engine
  # derives it (H[1..16] != 0: there gost-engine's UKM differs from the RFC's)
  h=01$(rnd 31)
  a=$(openssl pkeyutl -derive -inkey "$k.pem" -peerkey "$k.2.pub" -pkeyopt "ukmhex:$h" "${P[@]}" | hex)
  b=$(openssl pkeyutl -derive -inkey "$k.2.pem" -peerkey "$k.pub" -pkeyopt "ukm:$h" "${P[@]}" | hex)
  c=$(openssl pkeyutl -derive -inkey "$k.pem" -peerkey "$k.2.pub" -pkeyopt "ukmhex:$h" "${E[@]}" 2>/dev/null | hex)
  check "$alg/$ps pkeyutl -derive KEG (32-byte UKM) both ways, 64 bytes" "$(same keg "${#a}:$a" "128:$b")"
  check "$alg/$ps pkeyutl -derive KEG = gost-engine" "$(same keg "$a" "$c")"
done

# CMS: OpenSSL 3.0's libcrypto writes and matches a CMS digest by its legacy NID, which a
# provider-only GOST digest lacks (README). Where that holds, the refusal must be that one;
# an OpenSSL without the limit must verify ours both ways.
k=$tmp/k256A
if openssl cms -sign -nodetach -md md_gost12_256 -in "$tmp/msg" -signer "$k.crt" -inkey "$k.pem" \
    -out "$tmp/m.cms" "${P[@]}" 2>"$tmp/e"; then
  check "cms -sign (ours), -verify (gost-engine)" "$(ok openssl cms -verify -in "$tmp/m.cms" -CAfile "$k.crt" -out /dev/null "${E[@]}")"
  check "cms -verify (ours)" "$(ok openssl cms -verify -in "$tmp/m.cms" -CAfile "$k.crt" -out /dev/null "${P[@]}")"
else
  check "cms -sign refused for libcrypto's legacy-NID limit" "$(grep -q 'unknown digest algorithm' "$tmp/e" && echo 1 || echo 0)"
  echo "NOTE: $(openssl version | cut -d' ' -f1-2) cannot cms -sign with provider-only GOST keys (README)"
fi

# gost-engine's older private key form (GOST_PK_FORMAT=LEGACY_PK_WRAP: a nested OCTET STRING)
GOST_PK_FORMAT=LEGACY_PK_WRAP openssl genpkey -algorithm gost2012_256 -pkeyopt paramset:XB \
  -out "$tmp/wrap.pem" "${E[@]}" 2>/dev/null
check "gost-engine's LEGACY_PK_WRAP key read" "$(same pub "$(openssl pkey -in "$tmp/wrap.pem" -pubout "${P[@]}")" "$(openssl pkey -in "$tmp/wrap.pem" -pubout "${E[@]}" 2>/dev/null)")"

# an encrypted key: never written in the clear; gost-engine reads it too
openssl genpkey -algorithm gost2012_512 -pkeyopt paramset:A -aes256 -pass pass:pw -out "$tmp/enc.pem" "${P[@]}"
check "genpkey -aes256 writes an ENCRYPTED PRIVATE KEY" "$(grep -q 'BEGIN ENCRYPTED PRIVATE KEY' "$tmp/enc.pem" && echo 1 || echo 0)"
check "encrypted key read by ours and gost-engine alike" "$(same pub "$(openssl pkey -in "$tmp/enc.pem" -passin pass:pw -pubout "${P[@]}")" "$(openssl pkey -in "$tmp/enc.pem" -passin pass:pw -pubout "${E[@]}" 2>/dev/null)")"

refused "genpkey paramset:Z" "unknown gost2012_256 parameter set 'Z'" \
  openssl genpkey -algorithm gost2012_256 -pkeyopt paramset:Z "${P[@]}"
refused "genpkey without a paramset" "no parameter set" openssl genpkey -algorithm gost2012_512 "${P[@]}"
refused "pkeyutl -derive without a UKM" "no UKM" \
  openssl pkeyutl -derive -inkey "$tmp/k256A.pem" -peerkey "$tmp/k256A.2.pub" "${P[@]}"
refused "pkeyutl -derive with a 16-byte UKM (gost-engine's derive fails too)" "1..8 (VKO) or 32 (KEG)" \
  openssl pkeyutl -derive -inkey "$tmp/k256A.pem" -peerkey "$tmp/k256A.2.pub" -pkeyopt "ukmhex:$(rnd 16)" "${P[@]}"
refused "pkeyutl -derive with a peer on another curve" "peer key is on" \
  openssl pkeyutl -derive -inkey "$tmp/k256A.pem" -peerkey "$tmp/k256TCA.pub" -pkeyopt ukm:01 "${P[@]}"
refused "dgst -md_gost12_512 with a 256-bit key" "does not go with a 256-bit GOST key" \
  openssl dgst -md_gost12_512 -sign "$tmp/k256A.pem" "${P[@]}" "$tmp/msg"
# a public key off the curve: y's last byte changed (the last byte of the DER)
openssl pkey -pubin -in "$tmp/k256A.pub" -outform DER -out "$tmp/p.der" "${P[@]}"
n=$(stat -c %s "$tmp/p.der")
last=$(tail -c 1 "$tmp/p.der" | xxd -p)
{ head -c $((n - 1)) "$tmp/p.der"; printf '%02x' $((0x$last ^ 1)) | xxd -r -p; } > "$tmp/bad.der"
# (the decoder chain keeps only its own error: the reason is checked in ossl_gost3410)
refused "pkey with a public key off the curve" "could not read key" \
  openssl pkey -pubin -inform DER -in "$tmp/bad.der" -text -noout "${P[@]}"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
