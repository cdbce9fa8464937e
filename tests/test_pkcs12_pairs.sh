#!/bin/bash
# PKCS#12 files no writer should make, crafted (tests/support/pfx_craft.py,
# plain bags, a valid MAC) from tests/vectors/pkcs12's keys and
# certificates, and what each door does with them (issue 67, 9a and 9b):
# a key that is not its certificate's is named (warning where the key alone
# is used, refused where the pair is: tls --cert F.pfx, cms -sign); a
# localKeyID that ties the key to the wrong certificate is named; -info
# says which certificate is the key's own; certificate bags lib/x509
# refuses (a 5-byte SEQUENCE, 8 MiB of zeros) are skipped by name, never
# written out as CERTIFICATE PEM; -export refuses more certificates than
# a PFX holds beside the key. Needs python3 (the crafting).
. "$(dirname "$0")/cli_common.sh" pkcs12_pairs
command -v python3 >/dev/null || { echo "SKIP: python3 unavailable"; exit 77; }
V=$here/vectors/pkcs12
cd "$T"
craft() { python3 "$here/support/pfx_craft.py" "$G" "$@" && chmod 600 "$1"; }
p12() { "$G" pkcs12 -passin pass:pw "$@"; }
certs_in() { grep -c 'BEGIN CERTIFICATE' "$1"; }

# 9a: a 512-bit key, and a 256-bit certificate its localKeyID names
craft mm.pfx pw key="$V/key512.pem@01" cert="$V/cert256.pem@01"
p12 -in mm.pfx -noenc -info -out mm.pem 2>err; rc=$?
check "key not its certificate's: split, exit 0" [ $rc = 0 ]
check "... a warning naming the mismatch, the certificate by subject and size" \
  grep -q "warning: mm.pfx: the private key (512-bit) is not the key of any certificate in the file: bag 2 (subject CN=pkcs12-256, a 256-bit key), which its localKeyID names, holds another key" err
check "... -info: no certificate is the key's" grep -q "^Key's certificate: none in the file" err
"$G" sign -k mm.pfx -passin pass:pw -o msg.sig "$V/cert256.pem" 2>err; rc=$?
check "sign -k F.pfx (the key alone): signs, with the warning" \
  bash -c "[ $rc = 0 ] && [ -s msg.sig ] && grep -q 'is not the key of any certificate' err"
"$G" cms -sign -in "$V/cert256.pem" -signer "$V/cert256.pem" -inkey mm.pfx -passin pass:pw -out m.p7s 2>err; rc=$?
check "cms -sign -inkey F.pfx with the PFX's certificate: refused" \
  bash -c "[ $rc = 2 ] && grep -q 'mm.pfx is not the private key of' err && [ ! -e m.p7s ]"
timeout 10 "$G" tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:9 --cert mm.pfx -passin pass:pw \
  </dev/null >/dev/null 2>err; rc=$?
check "tls serve --cert F.pfx (the pair): refused, named" \
  bash -c "[ $rc = 2 ] && grep -q \"mm.pfx: the PKCS#12 file's key (512-bit) is not its certificate's: bag 2 (subject CN=pkcs12-256, a 256-bit key)\" err"

# a key whose localKeyID names another certificate than its own
craft lk.pfx pw key="$V/key256.pem@01" cert="$V/chain512.pem@01" cert="$V/cert256.pem@02"
p12 -in lk.pfx -noenc -info -out lk.pem 2>err; rc=$?
check "localKeyID on the wrong certificate: split, exit 0, said" bash -c "[ $rc = 0 ] &&
  grep -q 'localKeyID names certificate bag 2 (subject CN=pkcs12-leaf-512, a 512-bit key), whose key is not the private key.s; the key.s own certificate is bag 3 (subject CN=pkcs12-256' err"
check "... -info names the key's own certificate" grep -q "^Key's certificate: bag 3, subject CN=pkcs12-256" err
check "... which the PEM gives first" bash -c \
  "[ \"\$(sed -n '/BEGIN CERT/,/END CERT/p' lk.pem | sed '/END CERT/q')\" = \"\$(cat '$V/cert256.pem')\" ]"
# a file that matches: no warning, the pair served
craft good.pfx pw key="$V/key256.pem@01" cert="$V/cert256.pem@01"
p12 -in good.pfx -noenc -info -noout 2>err
check "a matching pair: no warning, -info names it" bash -c \
  "! grep -q warning err && grep -q \"^Key's certificate: bag 2, subject CN=pkcs12-256\" err"

# 9b: certificate bags that are no certificate, beside a good pair
printf '\x30\x03\x02\x01\x00' > tiny.der
head -c 8388608 /dev/zero > zeros.der
craft bad.pfx pw key="$V/key256.pem@01" cert=tiny.der cert="$V/cert256.pem@01" cert=zeros.der
p12 -in bad.pfx -noenc -info -out bad.pem 2>err; rc=$?
check "bad certificate bags: the file read, exit 0" [ $rc = 0 ]
check "... each named and skipped" bash -c \
  "grep -q 'warning: bad.pfx: certificate bag 2 skipped: parse: not a DER certificate' err &&
   grep -q 'warning: bad.pfx: certificate bag 4 skipped: parse: not a DER certificate' err &&
   grep -q 'bag 4, certBag (not read): parse' err"
check "... only the good certificate written (no 8 MiB PEM)" \
  test "$(certs_in bad.pem)" = 1 -a "$(stat -c %s bad.pem)" -lt 4096
p12 -in bad.pfx -nokeys -out c.pem 2>/dev/null
check "... -nokeys too" [ "$(certs_in c.pem)" = 1 ]
craft onlybad.pfx pw cert=tiny.der
p12 -in onlybad.pfx -nokeys -out none.pem 2>err; rc=$?
check "only a bad certificate: nothing to write, exit 1, nothing written" \
  bash -c "[ $rc = 1 ] && grep -q 'skipped' err && grep -q 'nothing to write' err && [ ! -e none.pem ]"
# nor does -export write one: a PEM block that is no certificate in -certfile
{ echo "-----BEGIN CERTIFICATE-----"; base64 < tiny.der; echo "-----END CERTIFICATE-----"; } > tiny.pem
"$G" pkcs12 -export -inkey "$V/key256.pem" -in "$V/cert256.pem" -certfile tiny.pem -passout pass:pw \
  -out none.pfx 2>err; rc=$?
check "-export with a chain block that is no certificate: exit 2, named, nothing written" \
  bash -c "[ $rc = 2 ] && grep -q 'tiny.pem: certificate 1: parse: not a DER certificate' err && [ ! -e none.pfx ]"
# more certificates than a PFX holds beside the key (63): refused by name,
# not cut to the first 63 (the chain's last ones were dropped silently)
for i in $(seq 63); do cat "$V/cert256.pem"; done > many.pem
"$G" pkcs12 -export -inkey "$V/key256.pem" -in "$V/cert256.pem" -certfile many.pem -passout pass:pw \
  -out none.pfx 2>err; rc=$?
check "-export with 64 certificates: exit 2, the limit named, nothing written" \
  bash -c "[ $rc = 2 ] && grep -q 'many.pem: more than 63 certificates' err && [ ! -e none.pfx ]"
finish
