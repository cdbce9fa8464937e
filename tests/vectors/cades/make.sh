#!/usr/bin/env bash
# Makes this folder's files (run once; they are committed) for
# test_cades.c: a GOST PKI, revocation data and an RFC 3161 TSA made with
# OpenSSL 3.0 + gost-engine, and a CAdES-T signature made by gostx. Needs
# gostx and test_cades built (BUILD, else build/).
#   ca.pem        root, 256 paramSetA (ca.key is not kept)
#   int.pem       intermediate CA under ca, 256 paramSetA
#   signer.pem    256 paramSetB leaf of int (its key not kept)
#   tsa.pem       TSA under ca: 512 paramSetA, extendedKeyUsage critical timeStamping
#   content.txt   the document; bes.der: gostx's detached CAdES-BES of it
#   t.tsr         the TSA's reply to gostx's request for bes.der's signature
#   ca.crl        ca's CRL (int not revoked; crlNumber 1); int.crl: int's (crlNumber 7)
#   signer.ocsp   an OCSPResponse for signer.pem by int (openssl ocsp
#                 -index, the CA signing its own responses), producedAt now
#   esc.tsr       the TSA's reply to a request for the CAdES-C-time-stamp
#                 data of the X Long that test_cades builds from the above
#                 (test_cades --esc-query writes the request)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${BUILD:-$here/../../../build}
G=$B/gostx
cd "$here"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# gost-engine for every command (tests/support's), and openssl ca's CRL settings
cat >"$w/engine.cnf" <<CNF
.include $here/../../support/gost_engine.cnf
[ca]
default_ca = ca
[ca]
database = index.txt
crlnumber = crlnumber
default_md = md_gost12_256
default_crl_days = 7300
CNF
export OPENSSL_CONF=$w/engine.cnf
key() { openssl genpkey -algorithm "$2" -pkeyopt "paramset:$3" -out "$1" 2>/dev/null; }
cert() { # cert NAME.pem KEY CN ISSUER EXT...
  local out=$1 k=$2 cn=$3 is=$4
  shift 4
  printf '%s\n' "$@" >"$w/ext"
  openssl req -new -key "$k" -subj "/CN=$cn/O=gostx test" -out "$w/csr" 2>/dev/null
  openssl x509 -req -in "$w/csr" -CA "$is.pem" -CAkey "$w/$is.key" -set_serial "0x$RANDOM$RANDOM" \
    -days 7300 -extfile "$w/ext" -out "$out" 2>/dev/null
}
key "$w/ca.key" gost2012_256 A
openssl req -x509 -new -key "$w/ca.key" -subj "/CN=gostx test CAdES root/O=gostx test" -days 7300 \
  -out ca.pem -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
cp ca.pem "$w/ca.pem"
key "$w/int.key" gost2012_256 A
cert int.pem "$w/int.key" "gostx test CAdES intermediate" ca "basicConstraints=critical,CA:true,pathlen:0" \
  "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"
cp int.pem "$w/int.pem"
key "$w/signer.key" gost2012_256 B
cert signer.pem "$w/signer.key" "gostx test CAdES signer" int "basicConstraints=CA:false" \
  "keyUsage=critical,digitalSignature,nonRepudiation"
key "$w/tsa.key" gost2012_512 A
cert tsa.pem "$w/tsa.key" "gostx test CAdES TSA" ca "basicConstraints=CA:false" \
  "keyUsage=critical,digitalSignature,nonRepudiation" "extendedKeyUsage=critical,timeStamping"

printf 'A document signed, timestamped and enhanced to CAdES-X Long Type 1.\n' >content.txt
"$G" cms -sign -in content.txt -signer signer.pem -inkey "$w/signer.key" -certfile int.pem -cades \
  -outform DER -out bes.der -tsa-query "$w/t.tsq"
cat >"$w/ts.cnf" <<CNF
[tsa]
serial = $w/serial
signer_cert = $here/tsa.pem
signer_key = $w/tsa.key
signer_digest = md_gost12_256
default_policy = 1.2.643.100.1
digests = md_gost12_256, md_gost12_512
accuracy = secs:1
ess_cert_id_alg = md_gost12_256
CNF
echo 01 >"$w/serial"
openssl ts -reply -config "$w/ts.cnf" -section tsa -queryfile "$w/t.tsq" -out t.tsr 2>/dev/null

# CRLs: openssl ca -gencrl over an index (no revocations needed: the
# references are to the CRLs themselves)
crl() { # crl CA NUMBER OUT
  (cd "$w" && : >index.txt && echo "$2" >crlnumber &&
    openssl ca -gencrl -cert "$1.pem" -keyfile "$1.key" -out "$3" 2>/dev/null)
  openssl crl -in "$w/$3" -outform DER -out "$3"
}
crl ca 01 ca.crl
crl int 07 int.crl

# OCSP: int answers for signer from an index that lists it valid
serial=$(openssl x509 -in signer.pem -noout -serial | cut -d= -f2)
subject=$(openssl x509 -in signer.pem -noout -subject -nameopt compat | sed 's/^subject=//')
printf 'V\t400101000000Z\t\t%s\tunknown\t%s\n' "$serial" "$subject" >"$w/ocsp.idx"
openssl ocsp -issuer int.pem -cert signer.pem -no_nonce -reqout "$w/ocsp.req" 2>/dev/null
openssl ocsp -index "$w/ocsp.idx" -rsigner int.pem -rkey "$w/int.key" -CA int.pem -reqin "$w/ocsp.req" \
  -ndays 7300 -respout signer.ocsp 2>/dev/null
openssl ocsp -respin signer.ocsp -resp_text -noverify 2>/dev/null | grep -E "Produced At|Cert Status"

# the CAdES-C-time-stamp: test_cades builds the X Long and writes the
# request for its data; the TSA answers
GOSTX_VECTORS=$here/.. "$B/test_cades" --esc-query "$w/esc.tsq"
openssl ts -reply -config "$w/ts.cnf" -section tsa -queryfile "$w/esc.tsq" -out esc.tsr 2>/dev/null
openssl ts -reply -in t.tsr -text 2>/dev/null | grep -E "Time stamp"
openssl ts -reply -in esc.tsr -text 2>/dev/null | grep -E "Time stamp"
