#!/usr/bin/env bash
# Writes tests/vectors/cpro-keywrap-engine.json: RFC 4357's CryptoPro key
# wrap as gost-engine makes it. For each GOST R 34.10-2012 parameter set, a
# key pair and a 32-byte CEK; `openssl pkeyutl -encrypt` (gost-engine as an
# ENGINE) transports the CEK to the public key: a GostR3410-KeyTransport
# (RFC 4490 4.2.1: the CEK wrapped under VKO(ephemeral key, recipient key,
# UKM) diversified by the UKM, the S-box set, the ephemeral key, the UKM),
# which is what RFC 9189's CNT_IMIT ClientKeyExchange carries. The test
# unwraps each with gostx and the recipient's private key.
#   usage: tests/vectors/gen/cpro-keywrap-engine/gen.sh > tests/vectors/cpro-keywrap-engine.json
set -euo pipefail
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ver=$(openssl version | cut -d' ' -f2)
engine=$(dpkg-query -W -f '${Version}' libengine-gost-openssl 2>/dev/null || echo unknown)
echo '{'
echo ' "name": "RFC 4357 CryptoPro key wrap (GostR3410-KeyTransport) as gost-engine makes it",'
echo " \"source\": \"gost-engine $engine (libengine-gost-openssl) with OpenSSL $ver: openssl genpkey -engine gost -algorithm ALG -pkeyopt paramset:P; openssl pkeyutl -engine gost -encrypt -pubin -inkey PUB -in CEK; by tests/vectors/gen/cpro-keywrap-engine/gen.sh\","
echo ' "convention": "key_pem: the recipient private key as gost-engine writes it; cek and key_transport (DER) the bytes as made.",'
echo ' "cases": ['
first=1
for spec in gost2012_256:A gost2012_256:B gost2012_256:C gost2012_256:TCA gost2012_256:TCD \
            gost2012_512:A gost2012_512:B gost2012_512:C; do
  alg=${spec%%:*} p=${spec#*:}
  openssl genpkey -engine gost -algorithm "$alg" -pkeyopt "paramset:$p" -out "$t/k.pem" 2>/dev/null
  openssl pkey -engine gost -in "$t/k.pem" -pubout -out "$t/p.pem" 2>/dev/null
  head -c 32 /dev/urandom >"$t/cek"
  openssl pkeyutl -engine gost -encrypt -pubin -inkey "$t/p.pem" -in "$t/cek" -out "$t/kt" 2>/dev/null
  [ $first = 1 ] || echo '  ,'
  first=0
  printf '  {"alg": "%s", "paramset": "%s",\n' "$alg" "$p"
  printf '   "key_pem": "%s",\n' "$(awk '{printf "%s\\n", $0}' "$t/k.pem")"
  printf '   "cek": "%s",\n' "$(xxd -p -c 256 "$t/cek")"
  printf '   "key_transport": "%s"}\n' "$(xxd -p -c 1024 "$t/kt")"
done
echo ' ]'
echo '}'
