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
# With --paths (about 2 s more; test_x509, test_x509_cli and the fuzz seeds),
# RFC 5280 path processing, the NIST PKITS sections they follow (each a
# 256A leaf with the good leaves' extensions but its own SAN or policies;
# chain-X.pem = X.pem + the CAs above it, the root excluded):
#   4.13 name constraints: nc-int.pem (non-critical) and nc-int-crit.pem
#     (critical): permitted DNS:good.test, IP:10.0.0.0/8, IP:fd00::/16,
#     email:good.test; excluded DNS:bad.good.test, IP:10.9.0.0/16. Under
#     nc-int: nc-ok (DNS:www.good.test, IP:10.1.2.3, IP:fd00::1,
#     email:a@good.test), nc-dns (DNS:www.evil.test), nc-excl
#     (DNS:x.bad.good.test), nc-ip (IP:192.168.1.1), nc-ipexcl (IP:10.9.1.1),
#     nc-ip6 (IP:fe80::1), nc-email (email:a@evil.test), nc-subjemail (no
#     SAN; emailAddress=a@evil.test in the subject); under nc-int-crit:
#     nc-crit-ok, nc-crit-dns. nc-dir-int.pem (subject CN=nc dir
#     int/O=gostx test): permitted dirName O=gostx test/OU=good, excluded
#     dirName O=gostx test/OU=good/CN=banned; under it nc-dir-ok
#     (O=gostx test/OU=good/CN=ok), nc-dir-prep (O=GOSTX  Test/OU=Good/CN=ok
#     as UTF8String: the same name after RFC 4518), nc-dir-bad (OU=evil),
#     nc-dir-banned, nc-dir-si.pem (self-issued nc-dir-int rollover, its own
#     name outside the subtree: exempt, 6.1.3(b)) and under it nc-dir-si-ok;
#     nc-dir-last (a self-issued leaf: the last certificate is checked).
#     nc-uri-int (permitted URI:.good.test) over nc-uri (URI:http://www.good.test/).
#   4.8, 4.10-4.12 policies (1.2.3.100 etc.; every extension critical):
#     pol-int (certificatePolicies 1.2.3.100, requireExplicitPolicy 0) over
#     pol-ok (1.2.3.100), pol-other (1.2.3.200), pol-none (no policies);
#     pol-any-int (anyPolicy) over pol-any-ok (1.2.3.100); pol-inh-int
#     (anyPolicy, inhibitAnyPolicy 0, requireExplicitPolicy 0) over
#     pol-inh-any (anyPolicy only) and pol-inh-ok (1.2.3.100); pol-map-int
#     (1.2.3.100 mapped to 1.2.3.300, requireExplicitPolicy 0) over
#     pol-map-ok (1.2.3.300) and pol-map-old (1.2.3.100); pol-mapinh-int
#     (anyPolicy, inhibitPolicyMapping 0, requireExplicitPolicy 0) over
#     pol-map2-int (a mapping 1.2.3.100 to 1.2.3.300) over pol-mapinh
#     (1.2.3.300); pol-mapany-int (maps anyPolicy) over pol-mapany;
#     pol-big-int (17 policies, each mapped to all 17) over pol-big (all 17:
#     289 nodes, beyond gostx's bound of 256).
#   4.6 basicConstraints: roll-int.pem (pathlen 0) and roll-int2.pem (its
#     self-issued rollover) over roll-leaf.pem; long-leaf.pem under 11 CAs
#     (chain-long.pem: a path of 13), toolong-leaf.pem under 32
#     (chain-toolong.pem: 34, beyond gostx's 32).
#   7.1 names: enc-leaf.pem, issued by enc-ca.pem ("gostx enc CA",
#     UTF8String), and chain-enc-leaf.pem = enc-leaf + enc-ca-p.pem (the same
#     key as "GOSTX  ENC  CA", PrintableString).
#   Semantic errors in DER, in OUTDIR/sem/: sem-ip5.pem (a 5-byte iPAddress).
# Keys are unencrypted PKCS#8 PEM (what gostx_gost3410_key_read reads,
# but for the 2001 ones, old-*.key).
# Exit 77 when openssl has no gost engine.
set -eu
out=${1:?usage: gost_pki.sh OUTDIR [--paths]}
paths=${2:-}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
sum="$(cksum <"$self") $paths"
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
organizationalUnitName = optional
emailAddress = optional
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
[v3_long]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
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
# (subject /CN=CN/O=gostx test, or $subj when set; with $csr set, that
# request of NAME's key, its subject replaced: one openssl run the less)
issue() {
  local dn=${subj:-/CN=$2/O=gostx test} sign=(-cert "$3.pem" -keyfile "$3.key") as=()
  if [ -n "${csr:-}" ]; then
    cp "$csr" "$1.csr" && as=(-subj "$dn")
  else
    openssl req -new -key "$1.key" -subj "$dn" -utf8 -out "$1.csr"
  fi
  [ "$3" = "$1" ] && sign=(-selfsign -keyfile "$1.key")
  openssl ca -batch -notext -preserveDN -in "$1.csr" -out "$1.pem" "${sign[@]}" "${as[@]}" -extensions "$4" \
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

# ---- RFC 5280 path processing (see the header), with --paths ----
paths() {
# section NAME LINE...: a section of extensions appended to openssl.cnf
section() {
  printf '[%s]\n' "$1" >>openssl.cnf
  shift
  printf '%s\n' "$@" >>openssl.cnf
}
ca_ext=("basicConstraints = critical, CA:true" "keyUsage = critical, keyCertSign, cRLSign")
leaf_ext=("basicConstraints = CA:false" "keyUsage = critical, digitalSignature"
  "extendedKeyUsage = serverAuth, clientAuth")
# leaf NAME ISSUER CHAIN_REST SAN [LINE...]: a leaf with its own SAN (none
# when SAN is ""), chain-NAME.pem = NAME + the files of CHAIN_REST
leaf() {
  local name=$1 issuer=$2 rest=$3 san=$4
  shift 4
  section "x_$name" "${leaf_ext[@]}" ${san:+"subjectAltName = $san"} "$@"
  cp leafkey.key "$name.key" && csr=leafkey.csr issue "$name" localhost "$issuer" "x_$name"
  cat "$name.pem" $rest >"chain-$name.pem"
}
# ca NAME CN ISSUER [LINE...]: a CA under ISSUER with extra extensions
ca() {
  local name=$1 cn=$2 issuer=$3
  shift 3
  section "x_$name" "${ca_ext[@]}" "$@"
  key "$name" gost2012_256 TCA && issue "$name" "$cn" "$issuer" "x_$name"
}
# the leaves below share a key and a request (their subjects set by issue)
key leafkey gost2012_256 TCA
openssl req -new -key leafkey.key -subj "/CN=x" -out leafkey.csr
nc="permitted;DNS:good.test, permitted;IP:10.0.0.0/255.0.0.0, permitted;IP:fd00::/ffff::,\
 permitted;email:good.test, excluded;DNS:bad.good.test, excluded;IP:10.9.0.0/255.255.0.0"
ca nc-int "gostx nc CA" ca "nameConstraints = $nc"
ca nc-int-crit "gostx nc critical CA" ca "nameConstraints = critical, $nc"
leaf nc-ok nc-int nc-int.pem "DNS:www.good.test, IP:10.1.2.3, IP:fd00::1, email:a@good.test"
leaf nc-dns nc-int nc-int.pem "DNS:www.evil.test"
leaf nc-excl nc-int nc-int.pem "DNS:x.bad.good.test"
leaf nc-ip nc-int nc-int.pem "IP:192.168.1.1"
leaf nc-ipexcl nc-int nc-int.pem "IP:10.9.1.1"
leaf nc-ip6 nc-int nc-int.pem "IP:fe80::1"
leaf nc-email nc-int nc-int.pem "email:a@evil.test"
subj="/CN=x/O=gostx test/emailAddress=a@evil.test" leaf nc-subjemail nc-int nc-int.pem ""
leaf nc-crit-ok nc-int-crit nc-int-crit.pem "DNS:www.good.test"
leaf nc-crit-dns nc-int-crit nc-int-crit.pem "DNS:www.evil.test"
section nc_dir_ok O="gostx test" OU=good
section nc_dir_banned O="gostx test" OU=good CN=banned
ca nc-dir-int "nc dir int" ca "nameConstraints = critical, permitted;dirName:nc_dir_ok, excluded;dirName:nc_dir_banned"
subj="/O=gostx test/OU=good/CN=ok" leaf nc-dir-ok nc-dir-int nc-dir-int.pem ""
subj="/O=GOSTX  Test/OU=Good/CN=ok" leaf nc-dir-prep nc-dir-int nc-dir-int.pem ""
subj="/O=gostx test/OU=evil/CN=ok" leaf nc-dir-bad nc-dir-int nc-dir-int.pem ""
subj="/O=gostx test/OU=good/CN=banned" leaf nc-dir-banned nc-dir-int nc-dir-int.pem ""
ca nc-dir-si "nc dir int" nc-dir-int
subj="/O=gostx test/OU=good/CN=ok" leaf nc-dir-si-ok nc-dir-si "nc-dir-si.pem nc-dir-int.pem" ""
subj="/CN=nc dir int/O=gostx test" leaf nc-dir-last nc-dir-int nc-dir-int.pem ""
ca nc-uri-int "gostx nc uri CA" ca "nameConstraints = critical, permitted;URI:.good.test"
leaf nc-uri nc-uri-int nc-uri-int.pem "URI:http://www.good.test/"

p100="certificatePolicies = critical, 1.2.3.100"
anyp="certificatePolicies = critical, 2.5.29.32.0"
req0="policyConstraints = critical, requireExplicitPolicy:0"
ca pol-int "gostx policy CA" ca "$p100" "$req0"
leaf pol-ok pol-int pol-int.pem "DNS:localhost" "$p100"
leaf pol-other pol-int pol-int.pem "DNS:localhost" "certificatePolicies = critical, 1.2.3.200"
leaf pol-none pol-int pol-int.pem "DNS:localhost"
ca pol-any-int "gostx anyPolicy CA" ca "$anyp"
leaf pol-any-ok pol-any-int pol-any-int.pem "DNS:localhost" "$p100"
ca pol-inh-int "gostx inhibitAnyPolicy CA" ca "$anyp" "$req0" "inhibitAnyPolicy = critical, 0"
leaf pol-inh-any pol-inh-int pol-inh-int.pem "DNS:localhost" "$anyp"
leaf pol-inh-ok pol-inh-int pol-inh-int.pem "DNS:localhost" "$p100"
ca pol-map-int "gostx mapping CA" ca "$p100" "$req0" "policyMappings = critical, 1.2.3.100:1.2.3.300"
leaf pol-map-ok pol-map-int pol-map-int.pem "DNS:localhost" "certificatePolicies = critical, 1.2.3.300"
leaf pol-map-old pol-map-int pol-map-int.pem "DNS:localhost" "$p100"
ca pol-mapinh-int "gostx inhibitPolicyMapping CA" ca "$anyp" \
  "policyConstraints = critical, requireExplicitPolicy:0, inhibitPolicyMapping:0"
ca pol-map2-int "gostx mapping sub-CA" pol-mapinh-int "$p100" "policyMappings = critical, 1.2.3.100:1.2.3.300"
leaf pol-mapinh pol-map2-int "pol-map2-int.pem pol-mapinh-int.pem" "DNS:localhost" \
  "certificatePolicies = critical, 1.2.3.300"
ca pol-mapany-int "gostx anyPolicy mapping CA" ca "$anyp" "$req0" \
  "policyMappings = critical, 2.5.29.32.0:1.2.3.300"
leaf pol-mapany pol-mapany-int pol-mapany-int.pem "DNS:localhost" "$anyp"

# the tree's bound: 17 policies each mapped to all 17, then a leaf with all
# 17: 289 nodes at its level
p17=$(seq -s, -f "1.2.3.%g" 1 17)
m289=$(for i in $(seq 17); do seq -f "1.2.3.$i:1.2.3.%g" 1 17; done | paste -sd,)
ca pol-big-int "gostx policy growth CA" ca "certificatePolicies = $p17" "policyMappings = $m289"
leaf pol-big pol-big-int pol-big-int.pem "DNS:localhost" "certificatePolicies = $p17"

ca roll-int "gostx rollover CA" ca "basicConstraints = critical, CA:true, pathlen:0"
ca roll-int2 "gostx rollover CA" roll-int
leaf roll-leaf roll-int2 "roll-int2.pem roll-int.pem" "DNS:localhost"

# RFC 5280 7.1: enc-ca-p.pem is enc-ca.pem's key under the name
# "CN=GOSTX  ENC  CA" in PrintableString (enc-ca's own is UTF8String
# "gostx enc CA"): enc-leaf (issued by enc-ca) chains to it
ca enc-ca "gostx enc CA" ca
sed 's/^prompt = no$/&\nstring_mask = nombstr/' openssl.cnf >enc.cnf
OPENSSL_CONF=enc.cnf openssl req -new -config enc.cnf -key enc-ca.key -subj "/CN=GOSTX  ENC  CA/O=gostx test" \
  -out enc-ca-p.csr
openssl x509 -req -in enc-ca-p.csr -CA ca.pem -CAkey ca.key -set_serial 7777 -days 3650 \
  -extfile openssl.cnf -extensions x_enc-ca -out enc-ca-p.pem 2>/dev/null
leaf enc-leaf enc-ca enc-ca-p.pem "DNS:localhost"

# long paths: CAs long-1 (under ca) to long-32, one key for all (their
# names differ); long-leaf under long-11, toolong-leaf under long-32.
# keyid:always: openssl leaves the AKI out when the issuer's key is the
# subject's, but these are not self-signed (RFC 5280 4.2.1.1 wants it)
key long gost2012_256 TCA
openssl req -new -key long.key -subj "/CN=x" -out long.csr
up=ca rest=""
for i in $(seq 1 32); do
  cp long.key "long-$i.key" && csr=long.csr issue "long-$i" "gostx long CA $i" "$up" v3_long
  rest="long-$i.pem $rest" up=long-$i
  [ "$i" = 11 ] && leaf long-leaf "$up" "$rest" "DNS:localhost" && mv chain-long-leaf.pem chain-long.pem
done
leaf toolong-leaf "$up" "$rest" "DNS:localhost" && mv chain-toolong-leaf.pem chain-toolong.pem
leaf sem-ip5 int int.pem "" "2.5.29.17 = DER:30078705010203040500"
}
if [ "$paths" = --paths ]; then paths; fi

rm -f "$out"/*.pem "$out"/*.key
cp ./*.pem ./*.key "$out"/
# the semantic errors apart: a store made from OUTDIR must not meet them
if [ "$paths" = --paths ]; then mkdir -p "$out/sem" && mv "$out"/*sem-* "$out/sem/"; fi
echo "$sum" >"$out/.stamp"
