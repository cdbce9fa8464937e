#!/usr/bin/env bash
# Makes this folder's files (run once; they are committed): a GOST TSA
# (openssl ts -engine gost, OpenSSL 3.0 + gost-engine 3.0.1) and its
# replies for test_cms_ts.c. Needs gostx built (GOSTX, else build/gostx).
#   ca.pem        root, 256 paramSetA, CA:true (ca.key is not kept)
#   signer.pem    256 paramSetB leaf of ca (its key not kept); signed.der: its detached
#                 CAdES-BES SignedData of content.txt, made by gostx
#   reply.tsr     the TSA's TimeStampResp to gostx's request for
#                 signed.der's signature (Streebog-256), genTime with
#                 milliseconds (clock_precision_digits = 3); TSA key 512
#                 paramSetA, extendedKeyUsage critical timeStamping
#   other.tsr     the TSA's reply to another request (a random imprint),
#                 genTime in whole seconds
#   noeku.tsr     reply.tsr's TSTInfo signed by openssl cms -sign
#                 -econtent_type id-smime-ct-TSTInfo with a certificate
#                 whose extendedKeyUsage is clientAuth (a bare token)
set -euo pipefail
G=${GOSTX:-$(cd "$(dirname "$0")/../../.." && pwd)/build/gostx}
cd "$(dirname "$0")"
export OPENSSL_CONF=/dev/null
O=(-engine gost)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
key() { openssl genpkey "${O[@]}" -algorithm "$2" -pkeyopt "paramset:$3" -out "$1" 2>/dev/null; }
cert() { # cert NAME.pem KEY CN EXT...
  local out=$1 k=$2 cn=$3
  shift 3
  printf '%s\n' "$@" >"$w/ext"
  openssl req "${O[@]}" -new -key "$k" -subj "/CN=$cn/O=gostx test" -out "$w/csr" 2>/dev/null
  openssl x509 "${O[@]}" -req -in "$w/csr" -CA ca.pem -CAkey "$w/ca.key" -set_serial "0x$RANDOM$RANDOM" \
    -days 7300 -extfile "$w/ext" -out "$out" 2>/dev/null
}
key "$w/ca.key" gost2012_256 A
openssl req "${O[@]}" -x509 -new -key "$w/ca.key" -subj "/CN=gostx test TSA root/O=gostx test" -days 7300 \
  -out ca.pem -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
key "$w/tsa.key" gost2012_512 A
cert "$w/tsa.pem" "$w/tsa.key" "gostx test TSA" "basicConstraints=CA:false" \
  "keyUsage=critical,digitalSignature,nonRepudiation" "extendedKeyUsage=critical,timeStamping"
key "$w/noeku.key" gost2012_256 A
cert "$w/noeku.pem" "$w/noeku.key" "gostx test no EKU" "basicConstraints=CA:false" \
  "keyUsage=critical,digitalSignature" "extendedKeyUsage=critical,clientAuth"
key "$w/signer.key" gost2012_256 B
cert signer.pem "$w/signer.key" "gostx test signer" "basicConstraints=CA:false" "keyUsage=critical,digitalSignature"
printf 'A document to be signed and timestamped.\n' >content.txt
"$G" cms -sign -in content.txt -signer signer.pem -inkey "$w/signer.key" -cades -outform DER -out signed.der \
  -tsa-query "$w/q.tsq"
cat >"$w/ts.cnf" <<CNF
[tsa]
serial = $w/serial
signer_cert = $w/tsa.pem
signer_key = $w/tsa.key
signer_digest = md_gost12_256
default_policy = 1.2.643.100.1
digests = md_gost12_256, md_gost12_512
accuracy = secs:1
clock_precision_digits = 3
ess_cert_id_alg = md_gost12_256
CNF
echo 01 >"$w/serial"
openssl ts "${O[@]}" -reply -config "$w/ts.cnf" -section tsa -queryfile "$w/q.tsq" -out reply.tsr 2>/dev/null
head -c 100 /dev/urandom >"$w/other.bin"
"$G" cms -sign -in "$w/other.bin" -signer signer.pem -inkey "$w/signer.key" -outform DER -out "$w/other.sig" \
  -tsa-query "$w/q2.tsq"
sed -i 's/^clock_precision_digits = 3$/clock_precision_digits = 0/' "$w/ts.cnf"
openssl ts "${O[@]}" -reply -config "$w/ts.cnf" -section tsa -queryfile "$w/q2.tsq" -out other.tsr 2>/dev/null
openssl ts "${O[@]}" -reply -in reply.tsr -token_out -out "$w/tok" 2>/dev/null
openssl cms "${O[@]}" -verify -noverify -binary -in "$w/tok" -inform DER -out "$w/tstinfo" 2>/dev/null
openssl cms "${O[@]}" -sign -binary -nodetach -cades -econtent_type id-smime-ct-TSTInfo -in "$w/tstinfo" \
  -signer "$w/noeku.pem" -inkey "$w/noeku.key" -outform DER -out noeku.tsr 2>/dev/null
openssl ts "${O[@]}" -reply -in reply.tsr -text 2>/dev/null | grep -E "Time stamp|Serial"
openssl ts "${O[@]}" -reply -in other.tsr -text 2>/dev/null | grep -E "Time stamp|Serial"
