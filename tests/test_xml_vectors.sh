#!/usr/bin/env bash
# Published cases replayed byte for byte through libgostx-xmldsig (the
# helper tests/xmldsig/xml_transform.c, built beside gostx with libxml2):
# the SMEV 3 recommendations' transform test cases and two SMEV requests
# whose transform digests are published (one carries a PersonalSignature,
# verified too); W3C Canonical XML 1.0's examples without a DTD or an XPath
# subset, inclusive and exclusive, with and without comments;
# vectors/xmldsig/*/README.md name every source.
. "$(dirname "$0")/cli_common.sh" xml_vectors
X=$(dirname "$G")/xml_transform
[ -x "$X" ] || { echo "no xml_transform (gostx built without libxml2): skipping"; exit 77; }
V=$here/vectors/xmldsig
cd "$T" || exit 1

# same NAME WANT CMD...: CMD's stdout is WANT's bytes, exactly
same() {
  local name=$1 want=$2
  shift 2
  if "$@" >got 2>err && cmp -s got "$want"; then ok; else bad "$name: $(cat err; cmp got "$want")"; fi
}

# the SMEV transform: the recommendations' three test cases
for c in 1 2 3; do
  same "SMEV test case $c" "$V/smev-transform/case$c.out" "$X" smev "$V/smev-transform/case$c.xml"
done
# its text and attribute escaping as Woodstox, the reference transform's
# writer, gives it (tests/vectors/gen/smev-woodstox/)
same "SMEV transform's escaping" "$V/smev-transform/escape.out" "$X" smev "$V/smev-transform/escape.xml"
# and on random blocks against Woodstox itself, where a JDK and Debian's
# libwoodstox-java (a dependency of libxml-security-java) are there
W=/usr/share/java
if command -v javac >/dev/null && [ -f $W/woodstox-core.jar ] && [ -f $W/stax2-api.jar ]; then
  gen=$here/vectors/gen/smev-woodstox
  if javac -nowarn -cp $W/woodstox-core.jar:$W/stax2-api.jar -d wx "$gen/WoodstoxEcho.java" 2>err &&
     python3 "$gen/random_blocks.py" 71 >r.xml 2>err &&
     java -cp $W/woodstox-core.jar:$W/stax2-api.jar:wx WoodstoxEcho r.xml r.want 2>err; then
    same "SMEV transform's escaping on random blocks, as Woodstox writes them" r.want "$X" smev r.xml
  else
    bad "Woodstox echo: $(cat err)"
  fi
else
  echo "no javac or Woodstox jar: the random comparison with Woodstox skipped"
fi
# digest94 NAME FILE WANT: the transform of FILE hashed (R 34.11-94) is WANT
digest94() {
  if "$X" smev "$2" >t.out 2>err && [ "$("$X" digest94 t.out)" = "$3" ]; then ok; else bad "$1: $(cat err)"; fi
}
digest94 "SMEV request digest" "$V/smev-transform/gibdd-request.xml" /jXl70XwnttJB5sSokwh8SaVHwo2gjgILSu0qBaLUAo=
S=$V/smev-transform/gibdd-request-signed.xml
digest94 "SMEV signed request digest" "$S" oQj0a7j/Bw3XHLBhZ6CN0Dd6cNjP4DzyYnF8FwPsOo4=
# its PersonalSignature verifies under its own (self-signed CA, no
# subjectKeyIdentifier: -x509_lax) certificate, at a time it was valid
{ echo "-----BEGIN CERTIFICATE-----"
  grep -o '<ds:X509Certificate>[^<]*' "$S" | sed 's/<ds:X509Certificate>//' | fold -w 64
  echo "-----END CERTIFICATE-----"; } >ov3.pem
if "$G" xml verify -in "$S" -CAfile ov3.pem -attime 1400000000 -x509_lax >out 2>err &&
  grep -q "Verified OK" err && grep -q '^<ns1:BreachRequest .*Id="PERSONAL_SIGNATURE"' out; then ok
else bad "PersonalSignature: $(cat err)"; fi
sed 's/Петрович/Петровна/' "$S" >t.xml
"$G" xml verify -in t.xml -CAfile ov3.pem -attime 1400000000 -x509_lax >/dev/null 2>err
[ $? = 1 ] && grep -q "digest mismatch" err && ok || bad "PersonalSignature changed: $(cat err)"
# W3C Canonical XML 1.0, 3.1 (PIs, comments, outside the document element;
# its DOCTYPE line taken out), 3.2 (whitespace in content), 3.6 (UTF-8 from
# ISO-8859-1): whole documents without namespaces, so exclusive c14n gives
# the same octets
for n in 1 2 6; do
  for m in incl exc; do
    same "W3C c14n 3.$n $m, comments" "$V/c14n/example-$n.with-comments" "$X" c14n $m-comments "$V/c14n/example-$n.xml"
    same "W3C c14n 3.$n $m" "$V/c14n/example-$n.without-comments" "$X" c14n $m "$V/c14n/example-$n.xml"
  done
done
# 3.1 as W3C wrote it (a DOCTYPE naming an external DTD) is refused
sed 's#^<doc>#<!DOCTYPE doc SYSTEM "doc.dtd">\n<doc>#' "$V/c14n/example-1.xml" >dtd.xml
grep -q DOCTYPE dtd.xml && ! "$X" c14n incl dtd.xml >/dev/null 2>err && grep -q "DTD refused" err && ok ||
  bad "W3C c14n 3.1 with its DOCTYPE: $(cat err)"
# a real SMEV 3 node's GOST R 34.10-2012-256 signature: a SendRequestResponse
# of SMEV's test environment (2020; its certificate "ТСМЭВ3", RT Labs, names
# CryptoPro CSP 4.0 as its signing tool). Its issuer, Rostelecom's test CA,
# is not published with it: the certificate itself is the anchor, so this
# checks the digest through exc-c14n + the SMEV transform and the
# SignatureValue (s || r, big-endian), not the chain.
R=$V/smev3-sendrequestresponse-smev-2012.xml
{ echo "-----BEGIN CERTIFICATE-----"
  grep -o '<ds:X509Certificate>[^<]*' "$R" | sed 's/<ds:X509Certificate>//' | fold -w 64
  echo "-----END CERTIFICATE-----"; } >tsmev.pem
# vrf NAME WANT_RC GREP FILE ARGS...: gostx xml verify of FILE at 2020-05-20
vrf() {
  local name=$1 want=$2 grep=$3 f=$4
  shift 4
  "$G" xml verify -in "$f" -attime 1589950000 "$@" >out 2>err
  [ $? = "$want" ] && grep -q "$grep" err && ok || bad "$name: $(cat err)"
}
vrf "SMEV node's signature (2012-256)" 0 "Verified OK" "$R" -CAfile tsmev.pem
grep -q '^<ns1:MessageMetadata xmlns:ns1="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.2" Id="SIGNED_BY_SMEV"><ns1:MessageId>39f52a38-' out &&
  ok || bad "SMEV node's signed octets"
sv=$(grep -o '<ds:SignatureValue>[^<]*' "$R" | sed 's/<ds:SignatureValue>//')
rs=$(printf %s "$sv" | base64 -d | { head -c 32 >s.bin; cat >r.bin; cat r.bin s.bin; } | base64 -w0)
sed "s#$sv#$rs#" "$R" >t.xml
vrf "SMEV node's signature as r || s" 1 "bad signature" t.xml -CAfile tsmev.pem
sed 's/requestIsQueued/requestIsDelivered/' "$R" >t.xml
vrf "SMEV node's message changed" 1 "digest mismatch" t.xml -CAfile tsmev.pem
vrf "SMEV node's signature, another anchor" 1 "certificate chain" "$R" -CAfile ov3.pem
finish
