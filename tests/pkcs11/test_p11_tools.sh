#!/usr/bin/env bash
# gostx's PKCS#11 token (libgostx-pkcs11.so) used by consumers we did not
# write: OpenSC's pkcs11-tool (--init-token, --init-pin, -M, --keypairgen
# on every GOST parameter set it names, --sign/--verify, --test), GnuTLS's
# p11tool, and the token's signatures checked by openssl with gost-engine
# and by `gostx verify`; a wrong PIN refused and counted.
# usage: test_p11_tools.sh MODULE. Skips (77) without pkcs11-tool; the
# p11tool and openssl parts skip alone where those are missing.
. "$(dirname "$0")/../cli_common.sh" p11tools
M=$1
command -v pkcs11-tool >/dev/null || { echo "SKIP: pkcs11-tool missing (Debian: opensc)"; exit 77; }
export GOSTX_PKCS11_DIR=$T/tokens
# tokens with a short PIN KDF: the tests log in often (docs/PKCS11.md)
export GOSTX_PKCS11_KDF_ITER=2000
SO=12345678 PIN=4321
p11() { pkcs11-tool --module "$M" --slot-index 0 "$@" 2>>"$T/err"; }
have_engine=0
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 && have_engine=1

check "init-token" p11 --init-token --label t1 --so-pin $SO
check "init-pin" p11 --init-pin --so-pin $SO --pin $PIN
p11 -L >"$T/L"
check "token flags after init" grep -q "token initialized.*PIN initialized\|PIN initialized.*token initialized" "$T/L"
p11 -M >"$T/M"
for m in GOSTR3410-KEY-PAIR-GEN GOSTR3410-512-KEY-PAIR-GEN GOSTR3410-WITH-GOSTR3411-12-256 \
  GOSTR3410-WITH-GOSTR3411-12-512 GOSTR3411-12-256 GOSTR3411-12-512 GOSTR3410-12-DERIVE; do
  check "mechanism $m listed" grep -q "^  $m," "$T/M"
done
# OpenSC names none of TC 26's cipher modes: they show as their numbers
# (docs/PKCS11.md), or by name should a later OpenSC know them
for m in 0xD432101E:KUZNYECHIK-CBC 0xD4321023:MAGMA-CBC; do
  check "cipher mechanism ${m#*:} listed for encrypt, decrypt" \
    grep -qiE "^  (mechtype-${m%%:*}|${m#*:}),.*encrypt, decrypt" "$T/M"
done

head -c 1000 /dev/urandom >"$T/data"
# The public key as a PEM for openssl and gostx, from pkcs11-tool's listing.
pub_pem() { # pub_pem ID OUT
  local vp
  # -O lists every public key: the block whose ID is $1
  vp=$(p11 -O --type pubkey | awk -v id="$1" '/^Public Key Object/ { p = v = ""; c = 0 }
    /PARAMS OID:/ { p = $3 } /VALUE:/ { v = $2; c = 1; next } c && /^ +[0-9a-f]+$/ { v = v $1; next }
    { c = 0 } /^  ID:/ && $2 == id { print v, p; exit }')
  python3 "$here/p11_spki.py" $vp "$2"
}
id=0
for kt in GOSTR3410-2012-256:A GOSTR3410-2012-256:B GOSTR3410-2012-256:C GOSTR3410-2012-256:D \
  GOSTR3410-2012-512:A GOSTR3410-2012-512:B GOSTR3410-2012-512:C; do
  id=$((id + 1))
  hid=$(printf %02x $id)
  bits=${kt#GOSTR3410-2012-}
  bits=${bits%:*}
  mech=GOSTR3410-WITH-GOSTR3411-12-$bits
  check "$kt keypairgen" p11 --pin $PIN --keypairgen --key-type "$kt" --id "$hid" --label "k$hid" --usage-sign
  check "$kt sign" p11 --pin $PIN --sign -m "$mech" --id "$hid" -i "$T/data" -o "$T/sig$hid"
  check "$kt signature length" test "$(stat -c %s "$T/sig$hid")" = $((bits / 4))
  # pkcs11-tool --verify exits 0 either way: its words tell
  p11 --verify -m "$mech" --id "$hid" -i "$T/data" --signature-file "$T/sig$hid" >"$T/v"
  check "$kt pkcs11-tool verifies" grep -q "^Signature is valid" "$T/v"
  cp "$T/data" "$T/changed" && flip_byte "$T/changed" 7
  p11 --verify -m "$mech" --id "$hid" -i "$T/changed" --signature-file "$T/sig$hid" >"$T/v"
  check "$kt pkcs11-tool refuses changed data" grep -q "^Invalid signature" "$T/v"
  pub_pem "$hid" "$T/pub$hid.pem"
  check "$kt gostx verifies the token's signature" "$G" verify -p "$T/pub$hid.pem" -s "$T/sig$hid" "$T/data"
  if [ $have_engine = 1 ]; then
    check "$kt openssl + gost-engine verifies" openssl dgst -engine gost -md_gost12_$bits \
      -verify "$T/pub$hid.pem" -signature "$T/sig$hid" "$T/data"
    # The raw mechanism signs the digest as Streebog writes it: openssl
    # pkeyutl takes the same bytes.
    openssl dgst -engine gost -md_gost12_$bits -binary "$T/data" >"$T/dgst" 2>/dev/null
    raw=GOSTR3410
    [ "$bits" = 512 ] && raw=GOSTR3410_512
    check "$kt raw sign" p11 --pin $PIN --sign -m $raw --id "$hid" -i "$T/dgst" -o "$T/raw$hid"
    check "$kt raw signature verifies in openssl pkeyutl" openssl pkeyutl -engine gost -verify \
      -pubin -inkey "$T/pub$hid.pem" -in "$T/dgst" -sigfile "$T/raw$hid"
  fi
done
[ $have_engine = 1 ] || echo "note: openssl gost engine missing: the openssl checks were skipped"

p11 --test >"$T/test" 2>&1
check "pkcs11-tool --test" grep -q "^No errors" "$T/test"

# A wrong PIN is refused, counted (COUNT_LOW), and the count kept.
if p11 --login --pin 9999 -O >/dev/null; then bad "a wrong PIN was accepted"; else ok; fi
check "wrong PIN named" grep -q CKR_PIN_INCORRECT "$T/err"
p11 -L >"$T/L"
check "count low after a wrong PIN" grep -q "user PIN count low" "$T/L"
p11 --login --pin $PIN -O >/dev/null
p11 -L >"$T/L"
if grep -q "count low" "$T/L"; then bad "the right PIN did not reset the count"; else ok; fi

# A certificate object beside the key; GnuTLS lists the token, the
# certificate, and (after login) the private keys. GnuTLS 3.7 reads no
# GOST public keys from PKCS#11, so it is not asked to.
openssl x509 -in "$here/../vectors/tc26_cms/sender256_cert.pem" -outform DER -out "$T/cert.der" 2>/dev/null ||
  "$G" x509 -in "$here/../vectors/tc26_cms/sender256_cert.pem" -outform DER -out "$T/cert.der"
check "write a certificate" p11 --pin $PIN --write-object "$T/cert.der" --type cert --id 02 --label cert2
if command -v p11tool >/dev/null; then
  p11tool --provider "$M" --list-tokens >"$T/tokenlist" 2>&1
  check "p11tool lists the token" grep -q "Label: t1" "$T/tokenlist"
  p11tool --provider "$M" --list-all-certs "pkcs11:token=t1" >"$T/certs" 2>&1
  check "p11tool lists the certificate" grep -q "type=cert" "$T/certs"
  GNUTLS_PIN=$PIN p11tool --provider "$M" --login --list-privkeys "pkcs11:token=t1" >"$T/keys" 2>&1
  check "p11tool lists 7 private keys" test "$(grep -c 'type=private' "$T/keys")" = 7
else
  echo "note: p11tool missing (Debian: gnutls-bin): its checks were skipped"
fi
[ $fail = 0 ] || cat "$T/err"
finish
