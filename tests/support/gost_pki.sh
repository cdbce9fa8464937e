#!/usr/bin/env bash
# gost_pki.sh OUTDIR: a GOST test PKI made with openssl and gost-engine, for
# the X.509 and TLS tests, in OUTDIR (relative to the current folder, or
# absolute; no network; a second run with the same script is a no-op:
# OUTDIR/.stamp holds the script's checksum).
#   ca.pem/.key      root, GOST R 34.10-2012 512 paramSetA, CA:true
#   int.pem/.key     intermediate, 256 paramSetA, CA:true pathlen:0
#   leaf-CURVE.pem/.key for CURVE in 256A 256B 256C 256D 512A 512B 512C:
#                    SAN DNS:localhost, IP:127.0.0.1; EKU serverAuth,clientAuth;
#                    keyUsage digitalSignature (critical); issued by int
#   chain-CURVE.pem  leaf + int
# The bad ones (each a 256A leaf, its key bad-NAME.key, and chain-bad-NAME.pem
# = leaf + the certificate that issued it):
#   bad-expired      valid 2020-2021
#   bad-notyet       valid 2060-2070 (GeneralizedTime)
#   bad-name         SAN DNS:wrong.example, IP:10.9.9.9 only
#   bad-keyusage     keyUsage nonRepudiation only, no digitalSignature
#   bad-eku          EKU clientAuth only
#   bad-notca        issued by int-notca.pem (CA:false, signed by ca)
#   bad-unknownca    issued by rogue-ca.pem (a root nobody trusts)
#   bad-signature    leaf-256A with one bit of its signature flipped
#   bad-critical     an unknown extension (1.2.3.4) marked critical
#   bad-pathlen      issued by int2.pem (CA:true, issued by int, whose
#                    pathlen is 0); chain-bad-pathlen.pem = leaf + int2 + int
# And: leaf-wild.pem (256A, issued by int, SAN DNS:*.wild.test, DNS:localhost,
# IP:::1); old-ca.pem (a GOST R 34.10-2001 root, CryptoPro-A, GOST R 34.11-94
# signatures), old-leaf.pem (2001, CryptoPro-B, issued by old-ca; SAN, EKU
# and keyUsage as the leaves), chain-old.pem = old-leaf + old-ca.
# For GnuTLS 3.7 (no TC26-256-A curve, so it cannot read int.pem):
# int-gt.pem (256B, issued by ca), leaf-gt-256B.pem/.key and
# leaf-gt-512A.pem/.key (issued by int-gt; extensions as the leaves),
# chain-gt-256B.pem and chain-gt-512A.pem = leaf + int-gt.
# kex-256A.pem/.key (issued by int, SAN and EKU as the leaves): keyUsage
# keyEncipherment, keyAgreement (critical), no digitalSignature: a TLS 1.2
# server's (RFC 9189: its key exchanges keys, never signs);
# chain-kex-256A.pem = kex-256A + int.
# ecdsa-root.pem: a P-256 root, not GOST (a system bundle's kind).
# Keys are unencrypted PKCS#8 PEM (what gostx_gost3410_key_from_pem reads,
# but for the 2001 ones, old-*.key).
# Exit 77 when openssl has no gost engine.
set -eu
out=${1:?usage: gost_pki.sh OUTDIR}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
sum=$(cksum <"$self")
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$sum" ]; then exit 0; fi
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "gost_pki.sh: openssl with the gost engine not found" >&2; exit 77; }
mkdir -p "$out"
out=$(cd "$out" && pwd) # absolute: the work below is done in another folder
work=$(mktemp -d "${TMPDIR:-/tmp}/gost-pki.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cat >openssl.cnf <<'EOF'
openssl_conf = conf
[conf]
engines = engines
[engines]
gost = gost
[gost]
default_algorithms = ALL
[ca]
default_ca = ca
[ca]
database = index.txt
serial = serial
new_certs_dir = issued
default_md = default
policy = any
unique_subject = no
copy_extensions = none
[any]
commonName = supplied
organizationName = optional
[req]
distinguished_name = dn
prompt = no
[dn]
CN = x
[v3_ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_int]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[v3_notca]
basicConstraints = critical, CA:false
keyUsage = critical, keyCertSign, digitalSignature
[v3_leaf]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
authorityKeyIdentifier = keyid
[v3_wild]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:*.wild.test, DNS:localhost, IP:::1
[v3_critical]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
1.2.3.4 = critical, DER:0500
[v3_badname]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:wrong.example, IP:10.9.9.9
[v3_badku]
basicConstraints = CA:false
keyUsage = critical, nonRepudiation
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
[v3_kex]
basicConstraints = CA:false
keyUsage = critical, keyEncipherment, keyAgreement
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
[v3_badeku]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
EOF
export OPENSSL_CONF=$work/openssl.cnf
: >index.txt
mkdir issued
echo 1000 >serial

key() { # key NAME ALG PARAMSET
  openssl genpkey -algorithm "$2" -pkeyopt "paramset:$3" -out "$1.key" 2>/dev/null
}
# issue NAME CN ISSUER EXT [START END]: NAME.pem from NAME.key, signed by ISSUER
# (self-signed when ISSUER is NAME)
issue() {
  openssl req -new -key "$1.key" -subj "/CN=$2/O=gostx test" -out "$1.csr"
  local sign=(-cert "$3.pem" -keyfile "$3.key")
  [ "$3" = "$1" ] && sign=(-selfsign -keyfile "$1.key")
  openssl ca -batch -notext -in "$1.csr" -out "$1.pem" "${sign[@]}" -extensions "$4" \
    -startdate "${5:-$start}" -enddate "${6:-$end}" 2>/dev/null
}
# One validity for every good certificate (taken once: a second that ticks
# between two certificates must not make a leaf outlive its issuer)
start=$(date -u -d '-1 day' +%Y%m%d%H%M%SZ)
end=$(date -u -d '+10 years' +%Y%m%d%H%M%SZ)
key ca gost2012_512 A && issue ca "gostx test root" ca v3_ca
key int gost2012_256 TCA && issue int "gostx test intermediate" ca v3_int
for c in 256A:gost2012_256:TCA 256B:gost2012_256:TCB 256C:gost2012_256:TCC 256D:gost2012_256:TCD \
  512A:gost2012_512:A 512B:gost2012_512:B 512C:gost2012_512:C; do
  IFS=: read -r name alg ps <<<"$c"
  key "leaf-$name" "$alg" "$ps" && issue "leaf-$name" localhost int v3_leaf
  cat "leaf-$name.pem" int.pem >"chain-$name.pem"
done

key int-gt gost2012_256 TCB && issue int-gt "gostx test gnutls intermediate" ca v3_int
for c in 256B:gost2012_256:TCB 512A:gost2012_512:A; do
  IFS=: read -r name alg ps <<<"$c"
  key "leaf-gt-$name" "$alg" "$ps" && issue "leaf-gt-$name" localhost int-gt v3_leaf
  cat "leaf-gt-$name.pem" int-gt.pem >"chain-gt-$name.pem"
done

key leaf-wild gost2012_256 TCA && issue leaf-wild localhost int v3_wild
key kex-256A gost2012_256 TCA && issue kex-256A localhost int v3_kex
cat kex-256A.pem int.pem >chain-kex-256A.pem
key old-ca gost2001 A && issue old-ca "gostx test 2001 root" old-ca v3_ca
key old-leaf gost2001 B && issue old-leaf localhost old-ca v3_leaf
cat old-leaf.pem old-ca.pem >chain-old.pem

bad() { # bad NAME ISSUER EXT [START END]
  key "bad-$1" gost2012_256 TCA && issue "bad-$1" localhost "$2" "$3" "${@:4}"
  cat "bad-$1.pem" "$2.pem" >"chain-bad-$1.pem"
}
bad expired int v3_leaf 20200101000000Z 20210101000000Z
bad notyet int v3_leaf 20600101000000Z 20700101000000Z
bad name int v3_badname
bad keyusage int v3_badku
bad eku int v3_badeku
key int-notca gost2012_256 TCA && issue int-notca "gostx test not-a-CA" ca v3_notca
bad notca int-notca v3_leaf
bad critical int v3_critical
key int2 gost2012_256 TCA && issue int2 "gostx test sub-intermediate" int v3_ca
bad pathlen int2 v3_leaf
cat int.pem >>chain-bad-pathlen.pem
key rogue-ca gost2012_256 TCA && issue rogue-ca "gostx rogue root" rogue-ca v3_ca
bad unknownca rogue-ca v3_leaf
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ecdsa-root.key \
  -subj "/CN=ecdsa root" -days 3650 -out ecdsa-root.pem 2>/dev/null
# The signature BIT STRING ends the certificate: flip a bit of its last byte.
openssl x509 -in leaf-256A.pem -outform DER -out sig.der
n=$(($(wc -c <sig.der) - 1))
b=$(od -An -tu1 -j$n -N1 sig.der)
printf "\\$(printf %03o $((b ^ 1)))" | dd of=sig.der bs=1 seek=$n conv=notrunc status=none
openssl x509 -inform DER -in sig.der -out bad-signature.pem
cp leaf-256A.key bad-signature.key
cat bad-signature.pem int.pem >chain-bad-signature.pem

rm -f "$out"/*.pem "$out"/*.key
cp ./*.pem ./*.key "$out"/
echo "$sum" >"$out/.stamp"
