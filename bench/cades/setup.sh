#!/usr/bin/env bash
# setup.sh GOSTX DIR: the files of bench/cades_speed.sh, made once with gostx
# alone (no network: the OCSP responder and the TSA in file mode), in DIR:
#   root.pem/.key   "XL1 bench root" (GOST R 34.10-2012 256, paramSet A), the trust anchor
#   int.pem/.key    intermediate CA (CA:TRUE pathlen:0), issued by root
#   signer.pem/.key the signer (nonRepudiation, digitalSignature), issued by int
#   tsa.pem/.key    the TSA (critical timeStamping), issued by root
#   ocsp-signer.der int's OCSP response on signer (int signs it itself)
#   ocsp-int.der    root's OCSP response on int (root signs it)
#   doc.bin         4096 bytes to sign
#   doc.xl1         the detached CAdES-BES signature of doc.bin enhanced to
#                   CAdES-X Long Type 1 (DER): signature-time-stamp,
#                   complete refs, certificate- and revocation-values, a
#                   CAdES-C-time-stamp
# A second run with the same gostx and script within a day is a no-op
# (DIR/.stamp; the OCSP responses' nextUpdate is 7 days on).
set -euo pipefail
G=$(realpath "${1:?usage: setup.sh GOSTX DIR}")
out=${2:?usage: setup.sh GOSTX DIR}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
sum="$(cksum <"$self") $(cksum <"$G")"
if [ -n "$(find "$out/.stamp" -mmin -1440 2>/dev/null)" ] && [ "$(cat "$out/.stamp")" = "$sum" ]; then exit 0; fi
rm -rf "$out" && mkdir -p "$out" && cd "$out"
q() { "$G" "$@" 2>/dev/null || { echo "setup.sh: gostx $* failed:" >&2; "$G" "$@" >&2; exit 1; }; }

printf 'basicConstraints = critical,CA:TRUE,pathlen:0\nkeyUsage = critical,keyCertSign,cRLSign\n' >int.ext
printf 'keyUsage = critical,digitalSignature,nonRepudiation\n' >signer.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = critical,timeStamping\n' >tsa.ext
q genpkey -c 256A -o root.key
q req -x509 -ca -key root.key -subj "/CN=XL1 bench root/O=gostx bench" -days 3650 -out root.pem
issue() { # issue NAME CA EXT: NAME.pem/.key, issued by CA with `gostx ca` (CA's index)
  q genpkey -c 256A -o "$1.key"
  q req -new -key "$1.key" -subj "/CN=XL1 bench $1/O=gostx bench" -out "$1.csr"
  q ca -in "$1.csr" -cert "$2.pem" -keyfile "$2.key" -index "$2.index" -days 365 -extfile "$3" -out "$1.pem"
}
issue int root int.ext
issue tsa root tsa.ext
issue signer int signer.ext
head -c 4096 /dev/urandom >doc.bin

# OCSP, file mode: the CA answers for its own certificates
respond() { # respond CA CERT OUT
  q ocsp -issuer "$1.pem" -cert "$2.pem" -no_nonce -reqout "$3.req"
  q ocsp -index "$1.index" -CA "$1.pem" -rsigner "$1.pem" -rkey "$1.key" -ndays 7 -reqin "$3.req" -respout "$3"
}
respond int signer ocsp-signer.der
respond root int ocsp-int.der

# BES (detached) -> T -> X Long -> X Long Type 1, the TSA in file mode
q cms -sign -cades -binary -in doc.bin -signer signer.pem -inkey signer.key -certfile int.pem \
  -outform DER -out doc.bes
q cms -tsa-query t1.tsq -in doc.bes -inform DER
q ts -reply -queryfile t1.tsq -signer tsa.pem -inkey tsa.key -serial tsa.serial -out t1.tsr
enhance() { q cms -enhance -in "$1" -inform DER -to XL1 -CAfile root.pem -untrusted int.pem -outform DER "${@:2}"; }
enhance doc.bes -tsa-reply t1.tsr -tsa-query t2.tsq -ocsp-resp ocsp-signer.der -ocsp-resp ocsp-int.der -out doc.xl
q ts -reply -queryfile t2.tsq -signer tsa.pem -inkey tsa.key -serial tsa.serial -out t2.tsr
enhance doc.xl -tsa-reply t2.tsr -out doc.xl1
"$G" cms -verify -in doc.xl1 -inform DER -content doc.bin -binary -CAfile root.pem -out /dev/null 2>verify.txt ||
  { cat verify.txt >&2; exit 1; }
grep -q '^level: CAdES-X Long Type 1$' verify.txt || { cat verify.txt >&2; exit 1; }
echo "$sum" >.stamp
