#!/usr/bin/env bash
# gostx cms's CAdES-T against a real RFC 3161 TSA: `openssl ts -engine gost
# -reply` in file mode, with a GOST TSA key and certificate made here
# (extendedKeyUsage critical timeStamping, as RFC 3161 section 2.3 asks).
# gostx writes the TimeStampReq (-sign -cades -tsa-query, and -tsa-query
# for an existing signature, through a pipe), the TSA answers, gostx checks
# and embeds the reply (-tsa-reply) and -verify checks the token again;
# openssl cms still verifies the CAdES-T signature. Then the refusals, each
# named, nothing written: a reply for another request (imprint mismatch),
# a tampered token, TSA certificates without (critical) timeStamping, a TSA
# of an unknown CA, a TSA's rejection; a tampered embedded token in -verify.
# Skipped (77) without openssl and gost-engine.
. "$(dirname "$0")/cli_common.sh" cms_tsa
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "openssl with gost-engine not found: skipping"; exit 77; }
cd "$T" || exit 1
export OPENSSL_CONF=/dev/null
O=(-engine gost)

key() { openssl genpkey "${O[@]}" -algorithm "$2" -pkeyopt "paramset:$3" -out "$1.key" 2>/dev/null; }
# cert NAME CN ISSUER EXTENSIONS...: NAME.pem for NAME.key, issued by ISSUER
cert() {
  local name=$1 cn=$2 issuer=$3
  shift 3
  printf '%s\n' "$@" >"$name.ext"
  openssl req "${O[@]}" -new -key "$name.key" -subj "/CN=$cn/O=gostx test" -out "$name.csr" 2>/dev/null &&
    openssl x509 "${O[@]}" -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -set_serial "0x$RANDOM$RANDOM" \
      -days 30 -extfile "$name.ext" -out "$name.pem" 2>/dev/null
}
root() {
  key "$1" gost2012_256 A
  openssl req "${O[@]}" -x509 -new -key "$1.key" -subj "/CN=$1/O=gostx test" -days 30 -out "$1.pem" \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
}
root ca
root rogue
tsa_ext=("basicConstraints=CA:false" "keyUsage=critical,digitalSignature,nonRepudiation")
key tsa gost2012_512 A && cert tsa "gostx test TSA" ca "${tsa_ext[@]}" "extendedKeyUsage=critical,timeStamping"
key tsa-noeku gost2012_256 A && cert tsa-noeku "no EKU" ca "${tsa_ext[@]}" "extendedKeyUsage=critical,clientAuth"
key tsa-noncrit gost2012_256 A && cert tsa-noncrit "EKU not critical" ca "${tsa_ext[@]}" "extendedKeyUsage=timeStamping"
key tsa-rogue gost2012_256 A && cert tsa-rogue "rogue TSA" rogue "${tsa_ext[@]}" "extendedKeyUsage=critical,timeStamping"
leaf_ext=("basicConstraints=CA:false" "keyUsage=critical,digitalSignature")
key s256 gost2012_256 B && cert s256 "signer 256" ca "${leaf_ext[@]}"
key s512 gost2012_512 C && cert s512 "signer 512" ca "${leaf_ext[@]}"
# one openssl ts configuration section per TSA certificate
for t in tsa tsa-noeku tsa-noncrit tsa-rogue; do
  echo 01 >"$t.serial"
  cat >>ts.cnf <<EOF
[$t]
serial = ./$t.serial
signer_cert = ./$t.pem
signer_key = ./$t.key
signer_digest = md_gost12_256
default_policy = 1.2.643.100.1
digests = md_gost12_256, md_gost12_512
accuracy = secs:1
ess_cert_id_alg = md_gost12_256
EOF
done
sed -n '/^\[tsa\]/,/^ess/p' ts.cnf | sed 's/^\[tsa\]/[only256]/; s/^digests = .*/digests = md_gost12_256/' >>ts.cnf
# tsa SECTION QUERY REPLY: the TSA's answer (openssl ts, file mode)
tsa() { openssl ts "${O[@]}" -reply -config ts.cnf -section "$1" -queryfile "$2" -out "$3" 2>/dev/null; }
head -c 100000 /dev/urandom >doc.bin

# ---- made, answered, embedded, verified ----
"$G" cms -sign -in doc.bin -signer s256.pem -inkey s256.key -cades -out s256.sig -tsa-query s256.tsq 2>err
check "sign -tsa-query" test -s s256.tsq
openssl ts "${O[@]}" -query -in s256.tsq -text >q.txt 2>&1
check "openssl reads the query (Streebog-256, certReq)" grep -q "GOST R 34.11-2012 with 256 bit hash" q.txt
check "openssl reads the query: certReq" grep -q "Certificate required: yes" q.txt
tsa tsa s256.tsq s256.tsr
"$G" cms -tsa-reply s256.tsr -in s256.sig -CAfile ca.pem -out s256-t.sig 2>err
check "embedded: $(cat err)" grep -q "^Signature timestamp embedded: 20.* UTC (TSA serial 0" err
"$G" cms -verify -in s256-t.sig -content doc.bin -CAfile ca.pem 2>err
check "verify CAdES-T: $(cat err)" grep -q "^Signature timestamp: 20.* UTC" err
check "verify CAdES-T: successful" grep -q "^CMS Verification successful" err
"$G" cms -cmsout -print -in s256-t.sig >print.txt
check "-print: the token's fields" grep -q "signatureTimeStampToken: genTime 20.* UTC, policy 1.2.643.100.1, serial 0" print.txt
openssl cms "${O[@]}" -verify -binary -purpose any -in s256-t.sig -inform PEM -content doc.bin -CAfile ca.pem \
  >/dev/null 2>err
check "openssl cms verifies gostx's CAdES-T: $(cat err)" grep -q "Verification successful" err

# A 512-bit signer (a Streebog-512 imprint), the TSA in a pipe: query to
# stdout, the reply from stdin
"$G" cms -sign -in doc.bin -signer s512.pem -inkey s512.key -cades -outform DER -out s512.sig
"$G" cms -tsa-query - -in s512.sig | openssl ts "${O[@]}" -reply -config ts.cnf -section tsa -queryfile /dev/stdin 2>/dev/null |
  "$G" cms -tsa-reply - -in s512.sig -CAfile ca.pem -out s512-t.sig 2>err
check "pipe: $(cat err)" grep -q "^Signature timestamp embedded" err
"$G" cms -verify -in s512-t.sig -content doc.bin -CAfile ca.pem 2>err
check "verify 512 CAdES-T: $(cat err)" grep -q "^Signature timestamp: 20" err
"$G" cms -tsa-query s512.tsq -in s512.sig
openssl ts "${O[@]}" -query -in s512.tsq -text 2>&1 | grep -q "GOST R 34.11-2012 with 512 bit hash"
check "query of a 512 signature: Streebog-512" test $? = 0
# a bare token (openssl ts -reply -token_out) is taken as well
openssl ts "${O[@]}" -reply -config ts.cnf -section tsa -queryfile s512.tsq -token_out -out s512.tok 2>/dev/null
"$G" cms -tsa-reply s512.tok -in s512.sig -CAfile ca.pem -outform DER -out s512-tok.sig 2>err
check "bare token: $(cat err)" grep -q "^Signature timestamp embedded" err

# ---- refusals: named, exit 4, nothing written ----
# refuse NAME PATTERN ARGS...: gostx cms ARGS fails with 4, PATTERN on
# stderr, and no out.sig
refuse() {
  local name=$1 pattern=$2 rc
  shift 2
  rm -f out.sig
  "$G" cms "$@" 2>err
  rc=$?
  if [ $rc = 4 ] && grep -q -- "$pattern" err && [ ! -e out.sig ]; then ok; else bad "$name (rc $rc): $(cat err)"; fi
}
# the reply to s512's request, offered for s256's signature
refuse "another request's reply" "imprint mismatch" -tsa-reply s512.tok -in s256.sig -CAfile ca.pem -out out.sig
# a byte of the TSTInfo (its serial number's, before genTime) changed,
# then one of the token's signature
cp s256.tsr tampered.tsr
off=$(grep -obUaP "\x18\x0f20" tampered.tsr | head -1 | cut -d: -f1)
flip_byte tampered.tsr $((off - 1))
refuse "tampered TSTInfo" "token's signature does not verify: messageDigest" \
  -tsa-reply tampered.tsr -in s256.sig -CAfile ca.pem -out out.sig
cp s256.tsr tampered2.tsr
flip_byte tampered2.tsr $(($(wc -c <s256.tsr) - 5))
refuse "tampered token signature" "token's signature does not verify: signature" \
  -tsa-reply tampered2.tsr -in s256.sig -CAfile ca.pem -out out.sig
# openssl ts will not sign with these certificates (it checks the EKU
# too): their tokens are s256's TSTInfo signed by openssl cms
openssl ts "${O[@]}" -reply -in s256.tsr -token_out -out s256.tok 2>/dev/null
openssl cms "${O[@]}" -verify -noverify -binary -in s256.tok -inform DER -out tstinfo.der 2>/dev/null
for t in tsa-noeku tsa-noncrit; do
  openssl cms "${O[@]}" -sign -binary -nodetach -cades -econtent_type id-smime-ct-TSTInfo -in tstinfo.der \
    -signer "$t.pem" -inkey "$t.key" -outform DER -out "$t.tsr" 2>/dev/null
  refuse "$t" "TSA certificate has no critical extendedKeyUsage timeStamping" \
    -tsa-reply "$t.tsr" -in s256.sig -CAfile ca.pem -out out.sig
done
tsa tsa-rogue s256.tsq rogue.tsr
refuse "TSA of an unknown CA" "chain: .*unknown CA" -tsa-reply rogue.tsr -in s256.sig -CAfile ca.pem -out out.sig
tsa only256 s512.tsq rejected.tsr
refuse "the TSA's rejection" "TSA refused the request (PKIStatus): status 2" \
  -tsa-reply rejected.tsr -in s512.sig -CAfile ca.pem -out out.sig
refuse "not a reply" "not a DER TimeStampResp" -tsa-reply doc.bin -in s256.sig -CAfile ca.pem -out out.sig
# the token inside a CAdES-T signature changed: -verify refuses, -out not written
"$G" cms -cmsout -in s256-t.sig -outform DER -out s256-t.der
off=$(grep -obUaP "\x18\x0f20" s256-t.der | tail -1 | cut -d: -f1)
flip_byte s256-t.der $((off - 1))
refuse "verify: tampered embedded token" "signer 1: timestamp: the token's signature" \
  -verify -in s256-t.der -content doc.bin -CAfile ca.pem -out out.sig
grep -q "^CMS Verification failure" err
check "verify: tampered token: openssl's failure line" test $? = 0
# a second timestamp is checked too; more than 8 are refused, not passed over
cp s256-t.sig many.sig
for i in 2 3 4 5 6 7 8 9; do
  "$G" cms -tsa-reply s256.tsr -in many.sig -CAfile ca.pem -out more.sig 2>/dev/null && mv more.sig many.sig
  [ $i = 2 ] && { "$G" cms -verify -in many.sig -content doc.bin -CAfile ca.pem 2>err
    check "two timestamps, both said" test "$(grep -c "^Signature timestamp: " err)" = 2; }
done
refuse "nine timestamps" "signer 1: 9 signature timestamps, more than the 8 checked" \
  -verify -in many.sig -content doc.bin -CAfile ca.pem -out out.sig
# usage: -tsa-reply needs the TSA's trust anchors; a query for two signers' message
"$G" cms -tsa-reply s256.tsr -in s256.sig -out out.sig 2>err
check "-tsa-reply without -CAfile: usage" test $? = 2 -a ! -e out.sig
finish
