#!/usr/bin/env bash
# gostx cms over tests/support/gost_pki.sh's PKI: SignedData made by
# `openssl cms -engine gost` (detached, attached, -cades, -keyid, two
# signers, -noattr) verified by gostx; gostx's (each curve, detached and
# attached, -cades, PEM and DER, an encrypted key) verified by openssl cms;
# GnuTLS certtool --p7-sign / --p7-detached-sign / --p7-verify both ways
# where it has the curve (256B, 512A); then every refusal, by name, with
# nothing written: changed content, signed attributes, signature, digest
# attribute, signingCertificateV2, unknown algorithms by OID, a chain that
# fails (lib/x509's status), keyUsage, truncated and trailing data,
# indefinite lengths cut short (whole, they verify), a key that is not
# the certificate's.
# -verify -purpose (smimesign, smimeencrypt, sslserver, sslclient,
# timestampsign, codesign, crlsign, any): gostx's verdict is openssl cms's.
# First, with no peer needed: R 1323565.1.025-2019's two SignedData
# examples (A.1.1: 512-bit, signed attributes; A.1.2: 256-bit, none), as
# gost-engine's tests ship them (tests/vectors/tc26_cms/README.md).
# Skipped (77) without openssl and gost-engine; certtool's part without it.
. "$(dirname "$0")/cli_common.sh" cms_cli
tc26=$here/vectors/tc26_cms
# the examples' content: "Контрольный пример для структуры SignedData." in CP1251
tc26_text=caeeedf2f0eeebfcedfbe920eff0e8ece5f020e4ebff20f1f2f0f3eaf2f3f0fb205369676e6564446174612e
for ex in signed_a111 signed_a121; do
  if "$G" cms -verify -in "$tc26/$ex.pem" -noverify -out "$T/$ex.out" 2>"$T/err" &&
    [ "$(od -An -tx1 -v "$T/$ex.out" | tr -d ' \n')" = "$tc26_text" ]; then
    ok
  else
    bad "TC26 $ex: $(cat "$T/err")"
  fi
  # the example's root has no basicConstraints: lib/x509 (as openssl) refuses it as a CA
  "$G" cms -verify -in "$tc26/$ex.pem" -CAfile "$tc26/root256_cert.pem" 2>"$T/err"
  check "TC26 $ex: its root is no CA" grep -q "depth 1: basicConstraints" "$T/err"
done
# a byte of the content changed: A.1.1's messageDigest, A.1.2's signature
"$G" cms -cmsout -in "$tc26/signed_a111.pem" -outform DER -out "$T/a111.der"
"$G" cms -cmsout -in "$tc26/signed_a121.pem" -outform DER -out "$T/a121.der"
flip_byte "$T/a111.der" 70
flip_byte "$T/a121.der" 70
"$G" cms -verify -in "$T/a111.der" -noverify 2>"$T/err"
check "TC26 A.1.1 changed: messageDigest" grep -q "^gostx: cms: .*messageDigest" "$T/err"
"$G" cms -verify -in "$T/a121.der" -noverify 2>"$T/err"
check "TC26 A.1.2 changed: signature" grep -q "^gostx: cms: .*signature: does not verify" "$T/err"
# A.1.2's digestAlgorithms entry made unknown (Streebog-256's last arc 2 -> 9),
# the signer's left: refused by name, streamed and with -content (it verified)
"$G" cms -cmsout -in "$tc26/signed_a121.pem" -outform DER -out "$T/dalg.der"
python3 -c 'import sys; p = sys.argv[1]; d = open(p, "rb").read(); o = bytes.fromhex("06082a85030701010202")
i = d.index(o) + len(o) - 1; open(p, "wb").write(d[:i] + b"\x09" + d[i + 1:])' "$T/dalg.der"
"$G" cms -verify -in "$T/dalg.der" -noverify -out "$T/dalg.out" 2>"$T/err"
check "TC26 A.1.2, digestAlgorithms unknown: exit 4" [ $? = 4 -a ! -e "$T/dalg.out" ]
check "TC26 A.1.2, digestAlgorithms unknown: named" grep -q "digestAlgorithms: .*(OID 1.2.643.7.1.1.2.9)" "$T/err"

command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "openssl with gost-engine not found: skipping"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
bash "$here/support/gost_pki.sh" "$T/pki" || exit 1
cd "$T/pki" || exit 1
export OPENSSL_CONF=/dev/null
head -c 5000 /dev/urandom >doc.bin
printf 'hello\n' >doc.txt

osign() { openssl cms -engine gost -sign -binary "$@" 2>"$T/oerr" || { cat "$T/oerr"; return 1; }; }
overify() { openssl cms -engine gost -verify -binary -purpose any "$@" >/dev/null 2>"$T/oerr"; }
# gverify WHAT ARGS...: gostx cms -verify must pass
gverify() {
  local what=$1
  shift
  if "$G" cms -verify "$@" >"$T/out" 2>"$T/err" && grep -q "^CMS Verification successful$" "$T/err"; then
    ok
  else
    bad "$what: $(cat "$T/err")"
  fi
}
# refuse WHAT GREP ARGS...: gostx cms -verify ARGS must exit 4 saying GREP,
# and write no -out file
refuse() {
  local what=$1 grep=$2
  shift 2
  rm -f "$T/never"
  "$G" cms -verify "$@" -out "$T/never" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc != 4 ]; then bad "$what: exit $rc, want 4: $(cat "$T/err")"; return; fi
  if ! grep -q -- "$grep" "$T/err"; then bad "$what: '$grep' not said: $(cat "$T/err")"; return; fi
  if [ -e "$T/never" ]; then bad "$what: -out written"; return; fi
  ok
}
# patch IN OUT OLD_HEX NEW_HEX [last|first]: OUT = IN with each (or the last, first)
# occurrence of the bytes OLD replaced by NEW
patch() {
  python3 - "$@" <<'EOF'
import sys
src, dst, old, new = sys.argv[1:5]
d = open(src, 'rb').read(); old = bytes.fromhex(old); new = bytes.fromhex(new)
assert old in d, 'pattern not found'
if len(sys.argv) > 5:
    i = d.index(old) if sys.argv[5] == 'first' else d.rindex(old)
    d = d[:i] + new + d[i + len(old):]
else:
    d = d.replace(old, new)
open(dst, 'wb').write(d)
EOF
}
der_of() { openssl x509 -in "$1" -outform DER | od -An -tx1 -v | tr -d ' \n'; }

# ---- openssl + gost-engine signs, gostx verifies ----
osign -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -outform DER -out o-det.der &&
  gverify "openssl 256A detached" -in o-det.der -content doc.bin -CAfile ca.pem -untrusted int.pem
osign -in doc.bin -signer leaf-512A.pem -inkey leaf-512A.key -certfile int.pem -nodetach -out o-att.pem -outform PEM &&
  gverify "openssl 512A attached, PEM" -in o-att.pem -CAfile ca.pem -out att.out &&
  check "attached content written" cmp -s att.out doc.bin
osign -cades -in doc.bin -signer leaf-512C.pem -inkey leaf-512C.key -certfile int.pem -outform DER -out o-cades.der &&
  gverify "openssl 512C -cades" -in o-cades.der -content doc.bin -CAfile ca.pem
osign -cades -in doc.bin -signer leaf-256B.pem -inkey leaf-256B.key -certfile int.pem -outform DER -out o-cades256.der &&
  gverify "openssl 256B -cades" -in o-cades256.der -content doc.bin -CAfile ca.pem
osign -keyid -nodetach -in doc.txt -signer leaf-256C.pem -inkey leaf-256C.key -signer leaf-512B.pem \
  -inkey leaf-512B.key -outform DER -out o-two.der &&
  gverify "openssl two signers by keyid" -in o-two.der -CAfile ca.pem -untrusted int.pem
osign -noattr -in doc.bin -signer leaf-256D.pem -inkey leaf-256D.key -outform DER -out o-noattr.der &&
  gverify "openssl -noattr" -in o-noattr.der -content doc.bin -CAfile ca.pem -untrusted int.pem
gverify "-cmsout -print" -in o-cades.der -content doc.bin -noverify
"$G" cms -cmsout -print -in o-cades.der >print.txt 2>"$T/err"
check "-print shows signingCertificateV2" grep -q "signingCertificateV2: Streebog-512 " print.txt
check "-print shows the signer" grep -q "sid: issuer CN=gostx test intermediate" print.txt

# ---- gostx signs, openssl + gost-engine verifies ----
for c in 256A 256B 256C 256D 512A 512B 512C; do
  "$G" cms -sign -in doc.bin -signer "leaf-$c.pem" -inkey "leaf-$c.key" -certfile int.pem \
    -outform DER -out "g-$c.der" 2>"$T/err" || bad "gostx sign $c: $(cat "$T/err")"
  if overify -inform DER -in "g-$c.der" -content doc.bin -CAfile ca.pem; then ok; else
    bad "openssl verifies gostx $c detached: $(cat "$T/oerr")"; fi
  gverify "gostx verifies its own $c" -in "g-$c.der" -content doc.bin -CAfile ca.pem
done
# a -CAfile that cannot be read is said as every verifying command says it
# (cli/common/verify_opts.c): the file once and why, exit 1
"$G" cms -verify -in g-256A.der -content doc.bin -CAfile no-such-ca.pem -out /dev/null 2>"$T/err"
check "-CAfile missing: exit 1" test $? = 1
check "-CAfile missing: named once, cannot open: $(cat "$T/err")" \
  test "$(grep -o 'no-such-ca.pem' "$T/err" | wc -l)" = 1 -a "$(grep -c 'cannot open' "$T/err")" = 1
"$G" cms -sign -cades -nodetach -in doc.bin -signer leaf-512A.pem -inkey leaf-512A.key -certfile int.pem \
  -out g-cades.pem 2>"$T/err" || bad "gostx sign -cades: $(cat "$T/err")"
if overify -in g-cades.pem -inform PEM -CAfile ca.pem -out g-cades.out && cmp -s g-cades.out doc.bin; then
  ok; else bad "openssl verifies gostx -cades -nodetach PEM: $(cat "$T/oerr")"; fi
openssl cms -engine gost -cmsout -print -in g-cades.pem -inform PEM 2>/dev/null >"$T/oprint"
check "openssl sees signingCertificateV2" grep -q "signingCertificateV2" "$T/oprint"
"$G" cms -sign -cades -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -signer leaf-512B.pem \
  -inkey leaf-512B.key -certfile int.pem -outform DER -out g-two.der 2>"$T/err" || bad "two signers: $(cat "$T/err")"
if overify -inform DER -in g-two.der -content doc.bin -CAfile ca.pem; then ok; else
  bad "openssl verifies gostx's two signers: $(cat "$T/oerr")"; fi
"$G" cms -sign -noattr -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -certfile int.pem \
  -outform DER -out g-noattr.der 2>"$T/err" || bad "gostx -noattr: $(cat "$T/err")"
if overify -inform DER -in g-noattr.der -content doc.bin -CAfile ca.pem; then ok; else
  bad "openssl verifies gostx -noattr: $(cat "$T/oerr")"; fi
"$G" pkey -in leaf-512A.key -passout pass:secret -out enc.key 2>"$T/err" || bad "pkey: $(cat "$T/err")"
"$G" cms -sign -in doc.txt -signer leaf-512A.pem -inkey enc.key -passin pass:secret -outform DER \
  -out g-enc.der 2>"$T/err" || bad "sign with an encrypted key: $(cat "$T/err")"
gverify "encrypted key, -passin" -in g-enc.der -content doc.txt -CAfile ca.pem -untrusted int.pem
"$G" cms -sign -in doc.txt -signer leaf-512A.pem -inkey enc.key -passin pass:wrong -out g-wrong.der 2>"$T/err"
check "wrong password: exit 1" [ $? = 1 ]
check "wrong password: nothing written" [ ! -e g-wrong.der ]

# ---- GnuTLS certtool (3.7 has 256B and the 512 curves, not 256A) ----
if command -v certtool >/dev/null; then
  ct() { certtool "$@" >"$T/cout" 2>&1 || { echo "certtool $*: $(cat "$T/cout")"; return 1; }; }
  for c in 256B 512A; do
    ct --p7-detached-sign --load-certificate "leaf-gt-$c.pem" --load-privkey "leaf-gt-$c.key" \
      --infile doc.bin --outfile "t-det-$c.der" --outder &&
      gverify "certtool detached $c" -in "t-det-$c.der" -content doc.bin -CAfile ca.pem -untrusted int-gt.pem
    ct --p7-sign --p7-time --load-certificate "leaf-gt-$c.pem" --load-privkey "leaf-gt-$c.key" \
      --infile doc.bin --outfile "t-att-$c.pem" &&
      gverify "certtool attached --p7-time $c, PKCS7 PEM" -in "t-att-$c.pem" -CAfile ca.pem -untrusted int-gt.pem
    "$G" cms -sign -in doc.bin -signer "leaf-gt-$c.pem" -inkey "leaf-gt-$c.key" -certfile int-gt.pem \
      -outform DER -out "gt-det-$c.der" 2>"$T/err" || bad "gostx sign gt $c: $(cat "$T/err")"
    if ct --p7-verify --load-ca-certificate ca.pem --load-data doc.bin --infile "gt-det-$c.der" --inder; then
      ok; else bad "certtool verifies gostx detached $c"; fi
    "$G" cms -sign -cades -nodetach -in doc.bin -signer "leaf-gt-$c.pem" -inkey "leaf-gt-$c.key" \
      -certfile int-gt.pem -outform DER -out "gt-att-$c.der" 2>"$T/err" || bad "gostx sign gt $c"
    if ct --p7-verify --load-ca-certificate ca.pem --infile "gt-att-$c.der" --inder; then
      ok; else bad "certtool verifies gostx -cades attached $c"; fi
  done
  # certtool must refuse what is wrong too (the test's own check)
  printf 'x' >>doc-changed.bin; cat doc.bin >>doc-changed.bin
  if certtool --p7-verify --load-ca-certificate ca.pem --load-data doc-changed.bin --infile gt-det-512A.der \
    --inder >/dev/null 2>&1; then bad "certtool took changed content"; else ok; fi
else
  echo "certtool not found: its part skipped"
fi

# ---- refusals, each named, nothing written ----
"$G" cms -sign -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -cades -certfile int.pem \
  -outform DER -out r.der 2>"$T/err" || bad "sign r.der: $(cat "$T/err")"
v=(-CAfile ca.pem)
gverify "the base of the refusals" -in r.der -content doc.bin "${v[@]}"
cp doc.bin changed.bin && flip_byte changed.bin 4000
refuse "changed content" "messageDigest: the content does not match" -in r.der -content changed.bin "${v[@]}"
refuse "changed content, no attributes" "signature: does not verify" -in g-noattr.der -content changed.bin "${v[@]}"
# signingTime's year 26 -> 36: still a valid UTCTime, the signature breaks
patch r.der r-time.der "2a864886f70d010905310f170d3236" "2a864886f70d010905310f170d3336"
refuse "changed signed attribute" "signature: does not verify" -in r-time.der -content doc.bin "${v[@]}"
cp r.der r-sig.der && flip_byte r-sig.der $(($(stat -c %s r.der) - 1))
refuse "changed signature" "signature: does not verify" -in r-sig.der -content doc.bin "${v[@]}"
md=$("$G" hash -a streebog256 doc.bin | cut -d' ' -f1)
# its first hex digit changed (f -> 0, any other -> f: a digest that began
# with f was left as it was, 1 run in 16, and verified)
patch r.der r-md.der "0420$md" "0420$(printf '%s' "$md" | sed 's/^f/0/;t;s/^./f/')"
refuse "messageDigest attribute changed" "messageDigest" -in r-md.der -content doc.bin "${v[@]}"
# every Streebog-256 OID but digestAlgorithms' (the signer's then names it)
patch r.der r-alg0.der "06082a85030701010202" "06082a85030701010209"
patch r-alg0.der r-alg.der "06082a85030701010209" "06082a85030701010202" first
refuse "unknown digest algorithm" "algorithm: unknown.*OID 1.2.643.7.1.1.2.9" -in r-alg.der -content doc.bin "${v[@]}"
# the same in digestAlgorithms (the signer's own left): openssl refuses it too
patch r.der r-dalg.der "06082a85030701010202" "06082a85030701010209" first
refuse "unknown digestAlgorithms entry" "digestAlgorithms: .*(OID 1.2.643.7.1.1.2.9)" -in r-dalg.der -content doc.bin "${v[@]}"
"$G" cms -sign -nocerts -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -outform DER -out r-nocerts.der
gverify "-nocerts, the signer from -untrusted" -in r-nocerts.der -content doc.bin "${v[@]}" -untrusted chain-256A.pem
refuse "signer not in the message" "signer: no certificate" -in r-nocerts.der -content doc.bin "${v[@]}"
patch r-nocerts.der r-salg.der "06082a85030701010101" "06082a85030701010177" last
refuse "unknown signature algorithm" "OID 1.2.643.7.1.1.1.119" -in r-salg.der -content doc.bin "${v[@]}" \
  -untrusted chain-256A.pem
# bad-signature.pem is leaf-256A (same key, issuer, serial) with one bit changed:
# the message then names a certificate signingCertificateV2 does not
patch r.der r-ess.der "$(der_of leaf-256A.pem)" "$(der_of bad-signature.pem)"
refuse "signingCertificateV2 of another certificate" "signingCertificateV2 (or v1): names another" \
  -in r-ess.der -content doc.bin "${v[@]}"
"$G" cms -sign -in doc.bin -signer bad-expired.pem -inkey bad-expired.key -certfile int.pem -outform DER -out r-exp.der
refuse "expired signer" "chain: .*depth 0: validity: certificate has expired" -in r-exp.der -content doc.bin "${v[@]}"
gverify "expired signer, -noverify" -in r-exp.der -content doc.bin -noverify
refuse "unknown CA" "chain: .*issuer: no trusted issuer" -in r.der -content doc.bin -CAfile old-ca.pem
"$G" cms -sign -in doc.bin -signer kex-256A.pem -inkey kex-256A.key -certfile int.pem -outform DER -out r-kex.der
refuse "keyUsage without digitalSignature" "keyUsage: the signer" -in r-kex.der -content doc.bin "${v[@]}"
head -c $(($(stat -c %s r.der) - 20)) r.der >r-trunc.der
refuse "truncated" "parse: truncated" -in r-trunc.der -content doc.bin "${v[@]}"
{ cat r.der; printf '\0\0'; } >r-trail.der
refuse "trailing data" "parse: trailing data" -in r-trail.der -content doc.bin "${v[@]}"
{ printf '\x30\x80'; tail -c +5 r.der; printf '\0\0'; } >r-indef.der
# BER (RFC 5652 allows it outside the signed attributes): read as the
# streaming reader reads an attached message; without its end-of-contents cut
gverify "indefinite length (BER)" -in r-indef.der -content doc.bin "${v[@]}"
head -c -2 r-indef.der >r-indef-cut.der
refuse "indefinite length without its end" "parse: " -in r-indef-cut.der -content doc.bin "${v[@]}"
openssl cms -data_create -binary -in doc.txt -outform DER -out data.der 2>/dev/null
refuse "a Data, not a SignedData" "contentType: not a SignedData" -in data.der -content doc.bin "${v[@]}"
openssl x509 -in int.pem -outform DER -out int.der
refuse "a certificate, not CMS" "parse: not a DER CMS" -in int.der -content doc.bin "${v[@]}"

# ---- -purpose: openssl's X509 purposes, gostx and openssl cms agreeing ----
# purpose_leaf NAME EXT...: a signer under int with leaf-256A's key and
# these extensions; then NAME.der, a detached signature of doc.bin by it
purpose_leaf() {
  local name=$1
  shift
  printf '%s\n' "$@" >"$name.ext"
  openssl req -engine gost -new -key leaf-256A.key -subj "/CN=$name" -out "$name.csr" 2>/dev/null &&
    openssl x509 -engine gost -req -in "$name.csr" -CA int.pem -CAkey int.key \
      -set_serial "0x$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" -days 30 -extfile "$name.ext" -out "$name.pem" 2>/dev/null &&
    "$G" cms -sign -in doc.bin -signer "$name.pem" -inkey leaf-256A.key -certfile int.pem \
      -outform DER -out "$name.der" ||
    bad "purpose_leaf $name"
}
# both PURPOSE NAME: gostx and openssl verify NAME.der for PURPOSE
both() {
  gverify "$2 -purpose $1" -in "$2.der" -content doc.bin -CAfile ca.pem -purpose "$1"
  if openssl cms -engine gost -verify -binary -purpose "$1" -inform DER -in "$2.der" -content doc.bin \
    -CAfile ca.pem >/dev/null 2>"$T/oerr"; then ok; else bad "openssl: $2 -purpose $1: $(cat "$T/oerr")"; fi
}
# neither PURPOSE NAME GREP: both refuse, gostx by the name GREP
neither() {
  refuse "$2 -purpose $1" "$3" -in "$2.der" -content doc.bin -CAfile ca.pem -purpose "$1"
  if openssl cms -engine gost -verify -binary -purpose "$1" -inform DER -in "$2.der" -content doc.bin \
    -CAfile ca.pem >/dev/null 2>&1; then bad "openssl passed $2 -purpose $1"; else ok; fi
}
ku="keyUsage = critical, digitalSignature"
purpose_leaf p-mail "$ku" "extendedKeyUsage = emailProtection"
purpose_leaf p-server "$ku" "extendedKeyUsage = serverAuth"
purpose_leaf p-nr "keyUsage = critical, nonRepudiation" "extendedKeyUsage = emailProtection"
purpose_leaf p-noeku "$ku"
purpose_leaf p-ts "$ku" "extendedKeyUsage = critical, timeStamping"
purpose_leaf p-tsnc "$ku" "extendedKeyUsage = timeStamping"
purpose_leaf p-code "$ku" "extendedKeyUsage = codeSigning"
both smimesign p-mail
both smimesign p-nr
both smimesign p-noeku
neither smimesign p-server "depth 0: extendedKeyUsage"
neither smimeencrypt p-mail "depth 0: keyUsage"
both sslserver p-server
neither sslserver p-mail "depth 0: extendedKeyUsage"
neither sslclient p-server "depth 0: extendedKeyUsage"
both any p-server
both timestampsign p-ts
neither timestampsign p-tsnc "depth 0: extendedKeyUsage"
neither timestampsign p-mail "depth 0: extendedKeyUsage"
neither timestampsign p-noeku "depth 0: extendedKeyUsage"
neither crlsign p-mail "depth 0: keyUsage"
# codesign is openssl 3.2's: gostx alone where openssl lacks it
if openssl verify -purpose codesign -CAfile ca.pem -untrusted int.pem p-code.pem >/dev/null 2>&1; then
  both codesign p-code
  neither codesign p-mail "depth 0: extendedKeyUsage"
else
  gverify "p-code -purpose codesign" -in p-code.der -content doc.bin -CAfile ca.pem -purpose codesign
  refuse "p-mail -purpose codesign" "depth 0: extendedKeyUsage" -in p-mail.der -content doc.bin \
    -CAfile ca.pem -purpose codesign
fi
# the default stays gostx's own (keyUsage only); openssl's is smimesign
gverify "p-server, no -purpose" -in p-server.der -content doc.bin -CAfile ca.pem
"$G" cms -verify -in p-mail.der -content doc.bin -CAfile ca.pem -purpose smime 2>"$T/err"
check "-purpose smime: exit 2" [ $? = 2 ]

# ---- usage errors: exit 2, nothing written ----
"$G" cms -sign -in doc.bin -signer leaf-256A.pem -inkey leaf-256B.key -out u1.der 2>"$T/err"
check "key of another certificate: exit 2" [ $? = 2 ]
check "key of another certificate: said" grep -q "is not the private key of" "$T/err"
check "key of another certificate: nothing written" [ ! -e u1.der ]
"$G" cms -verify -in r.der "${v[@]}" 2>"$T/err"
check "detached without -content: exit 2" [ $? = 2 ]
"$G" cms -sign -in doc.bin -signer leaf-256A.pem -inkey leaf-256A.key -outform SMIME -out u2 2>"$T/err"
check "-outform SMIME refused" [ $? = 2 ]
"$G" cms -verify -in r.der -content doc.bin 2>"$T/err"
check "-verify without -CAfile: exit 2" [ $? = 2 ]
finish
