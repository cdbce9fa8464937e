#!/bin/bash
# Makes tests/vectors/pkcs12/: PFX files that gostx did not write, for
# test_pkcs12's known answers. gost-engine 3.0 (openssl pkcs12 -engine gost,
# OpenSSL 3.0) and GnuTLS certtool 3.7 write them from keys and
# certificates made here; each .pfx comes with the key and certificates it
# holds (PEM), and its password is in the table below. Run once; the output
# is committed (the salts are random, so a rerun gives other bytes).
set -eu
out=$(cd "$(dirname "$0")/../../pkcs12" && pwd)
export OPENSSL_CONF=$(cd "$(dirname "$0")/../../../support" && pwd)/gost_engine.cnf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
o() { openssl "$@" -engine gost 2>/dev/null; }
# 256-bit key (paramset A), self-signed
o genpkey -algorithm gost2012_256 -pkeyopt paramset:A -out key256.pem
o req -new -x509 -key key256.pem -subj /CN=pkcs12-256 -days 3650 -out cert256.pem
# 512-bit leaf under an intermediate under a root: three certificates, so
# the encrypted part is over 1024 bytes and GOST 28147-89's key meshing runs
o genpkey -algorithm gost2012_512 -pkeyopt paramset:A -out root.pem
o req -new -x509 -key root.pem -subj /CN=pkcs12-root -days 3650 -out root.crt \
  -addext basicConstraints=critical,CA:TRUE
o genpkey -algorithm gost2012_512 -pkeyopt paramset:B -out mid.pem
o req -new -key mid.pem -subj /CN=pkcs12-intermediate -out mid.csr
printf 'basicConstraints=critical,CA:TRUE\n' > ca.ext
o x509 -req -in mid.csr -CA root.crt -CAkey root.pem -CAcreateserial -days 3650 -extfile ca.ext -out mid.crt
o genpkey -algorithm gost2012_512 -pkeyopt paramset:C -out key512.pem
o req -new -key key512.pem -subj /CN=pkcs12-leaf-512 -out leaf.csr
o x509 -req -in leaf.csr -CA mid.crt -CAkey mid.pem -CAcreateserial -days 3650 -out leaf.crt
cat leaf.crt mid.crt root.crt > chain512.pem
# nine certificates (the intermediate and root four times): over 4096 bytes,
# Kuznyechik-CTR-ACPKM's section in gost-engine (Magma's is 1024)
{ cat leaf.crt; for i in 1 2 3 4; do cat mid.crt root.crt; done; } > chain512x9.pem
o pkey -in key256.pem -out "$out/key256.pem"
o pkey -in key512.pem -out "$out/key512.pem"
cp cert256.pem "$out/cert256.pem"
cp chain512.pem chain512x9.pem "$out/"
# file                       password  what
# engine-gost89-256.pfx      secret    -keypbe gost89 -certpbe gost89 -macalg md_gost12_512, -name "my key"
# engine-gost89-512.pfx      пароль    the same with the chain and a Cyrillic name
# engine-kuznyechik-512.pfx  secret    -keypbe/-certpbe kuznyechik-ctr-acpkm (PRF HMAC-SHA256: gost-engine's
#                                      default), chain512x9.pem
# engine-magma-512.pfx       secret    magma-ctr-acpkm, chain512.pem
# certtool-gost89-256.pfx    secret    certtool --to-p12 --pkcs-cipher gost28147-tc26z --hash streebog-512
g89="-keypbe gost89 -certpbe gost89 -macalg md_gost12_512"
o pkcs12 -export -inkey key256.pem -in cert256.pem -name "my key" $g89 -passout pass:secret \
  -out "$out/engine-gost89-256.pfx"
o pkcs12 -export -inkey key512.pem -in leaf.crt -certfile <(cat mid.crt root.crt) -name "ключ" $g89 \
  -passout pass:пароль -out "$out/engine-gost89-512.pfx"
o pkcs12 -export -inkey key512.pem -in leaf.crt -certfile <(tail -n +2 chain512x9.pem | sed -n '/^-----BEGIN/,$p') \
  -keypbe kuznyechik-ctr-acpkm -certpbe kuznyechik-ctr-acpkm -macalg md_gost12_512 \
  -passout pass:secret -out "$out/engine-kuznyechik-512.pfx"
o pkcs12 -export -inkey key512.pem -in leaf.crt -certfile <(cat mid.crt root.crt) \
  -keypbe magma-ctr-acpkm -certpbe magma-ctr-acpkm -macalg md_gost12_512 \
  -passout pass:secret -out "$out/engine-magma-512.pfx"
certtool --to-p12 --load-privkey key256.pem --load-certificate cert256.pem --p12-name "my key" \
  --password secret --pkcs-cipher gost28147-tc26z --hash streebog-512 --outder \
  --outfile "$out/certtool-gost89-256.pfx" >/dev/null 2>&1
# certtool-gost28147-cpa-256.pfx secret certtool --pkcs-cipher gost28147-cpa --hash streebog-512
#                                      (PBES2 PRF HMAC-GOST R 34.11-94, GOST 28147-89 CFB CryptoPro-A)
# certtool-3des-256.pfx      secret    certtool --pkcs-cipher 3des (PBES2 HMAC-SHA256, des-ede3-cbc)
# engine-gost89-256-mac256.pfx secret  -macalg md_gost12_256
# engine-des3-256.pfx        secret    -keypbe/-certpbe DES-EDE3-CBC (PBES2 HMAC-SHA256)
# pkcs8-gost94prf-256.pem    secret    openssl pkcs8 -topk8 -v2 gost89 -v2prf id-HMACGostR3411-94
for c in gost28147-cpa 3des; do
  certtool --to-p12 --load-privkey key256.pem --load-certificate cert256.pem --p12-name "my key" \
    --password secret --pkcs-cipher $c --hash streebog-512 --outder \
    --outfile "$out/certtool-$c-256.pfx" >/dev/null 2>&1
done
o pkcs12 -export -inkey key256.pem -in cert256.pem -name "my key" -keypbe gost89 -certpbe gost89 \
  -macalg md_gost12_256 -passout pass:secret -out "$out/engine-gost89-256-mac256.pfx"
o pkcs12 -export -inkey key256.pem -in cert256.pem -name "my key" -keypbe DES-EDE3-CBC \
  -certpbe DES-EDE3-CBC -macalg md_gost12_512 -passout pass:secret -out "$out/engine-des3-256.pfx"
o pkcs8 -topk8 -in key256.pem -v2 gost89 -v2prf id-HMACGostR3411-94 -passout pass:secret \
  -out "$out/pkcs8-gost94prf-256.pem"
chmod 644 "$out"/*
ls -l "$out"
