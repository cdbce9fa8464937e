#!/usr/bin/env bash
# Every read path of gostx cms on damaged input (issue 67): a PEM block cut
# short, one with a bad body, DER given as -inform PEM, an empty file, a
# message cut by 5 bytes, through -cmsout [-print], -verify (streamed and
# with -content), -digest_verify, -decrypt, -EncryptedData_decrypt,
# -tsa-query and -tsa-reply (the message and the reply). Each must be
# refused by name with exit 4 (or 1), never a crash (a PEM refusal used to
# free the buffer twice: "free(): double free", SIGSEGV); under ASan (the
# ASan suite runs every ctest) any bad free or read fails it. Then the
# other commands' readers (x509, pkey, pkcs12, req, tls serve -c) on the
# same inputs and on their own PEM cut short. Needs no peer.
. "$(dirname "$0")/cli_common.sh" cms_read_cli
tc26=$here/vectors/tc26_cms
cd "$T" || exit 1
printf -- '-----BEGIN CMS-----\nMIIB\n' >bad.pem
printf -- '-----BEGIN CMS-----\n!!!!\n-----END CMS-----\n' >body.pem
head -c -5 "$tc26/signed_a121.pem" >cut_signed.pem
head -c -5 "$tc26/hashed_a311.pem" >cut_digested.pem
head -c -5 "$tc26/encrypted_keytrans_a231.pem" >cut_env.pem
head -c -5 "$tc26/encrypted_kuznyechik_a421.pem" >cut_encdata.pem
"$G" cms -cmsout -in "$tc26/signed_a121.pem" -outform DER -out signed.der
head -c -5 signed.der >cut_signed.der
: >empty
# -tsa-reply: a good message, a damaged reply
cp "$tc26/signed_a121.pem" good.pem

# expect WHAT ARGS...: exit 1 or 4 (a refusal), something said, no -out
expect() {
  local what=$1
  shift
  rm -f out
  "$G" "$@" 2>err >/dev/null
  local rc=$?
  if [ $rc != 1 ] && [ $rc != 4 ]; then
    bad "$what: exit $rc: $(head -c 300 err)"
  elif [ ! -s err ] || [ -e out ]; then
    bad "$what: refused silently or wrote -out"
  else
    ok
  fi
}
inputs="bad.pem body.pem cut_signed.pem cut_digested.pem cut_env.pem cut_encdata.pem cut_signed.der empty"
key=$(cat "$tc26/encryption_key.hex")
for f in $inputs; do
  expect "-cmsout $f" cms -cmsout -in $f -out out
  expect "-cmsout -print $f" cms -cmsout -print -in $f -out out
  expect "-cmsout -inform PEM $f" cms -cmsout -inform PEM -in $f -out out
  expect "-verify (streamed) $f" cms -verify -noverify -in $f -out out
  expect "-verify -content $f" cms -verify -noverify -content good.pem -in $f -out out
  expect "-verify -inform PEM -content $f" cms -verify -noverify -inform PEM -content good.pem -in $f
  expect "-digest_verify $f" cms -digest_verify -in $f -out out
  expect "-digest_verify -inform PEM $f" cms -digest_verify -inform PEM -in $f -out out
  expect "-decrypt $f" cms -decrypt -inkey "$tc26/recipient256_key.pem" -in $f -out out
  expect "-EncryptedData_decrypt $f" cms -EncryptedData_decrypt -secretkey "$key" -in $f -out out
  expect "-tsa-query $f" cms -tsa-query out -in $f
  expect "-tsa-query -inform PEM $f" cms -tsa-query out -inform PEM -in $f
  expect "-tsa-reply (message) $f" cms -tsa-reply good.pem -noverify -in $f -out out
  expect "-tsa-reply (reply) $f" cms -tsa-reply $f -noverify -in good.pem -out out
done
# DER where PEM is said: refused, not read as DER
expect "-cmsout -inform PEM of DER" cms -cmsout -inform PEM -in signed.der -out out
expect "-digest_verify -inform PEM of DER" cms -digest_verify -inform PEM -in signed.der

# An element too large for the streaming work buffer is named: A.1.1's
# SignedData with 20,000 more signed attributes (240 KB of signedAttrs)
python3 - "$tc26/signed_a111.pem" big_attrs.der <<'EOF'
import base64, sys
def tlv(t, v):
    n, k = len(v), (len(v).bit_length() + 7) // 8
    return bytes([t]) + (bytes([n]) if n < 128 else bytes([0x80 | k]) + n.to_bytes(k, "big")) + v
def read(d, i):
    t, n, i = d[i], d[i + 1], i + 2
    if n & 0x80:
        k = n & 0x7f
        n, i = int.from_bytes(d[i:i + k], "big"), i + k
    return t, d[i:i + n], i + n
def kids(v):
    out, i = [], 0
    while i < len(v):
        t, c, i = read(v, i)
        out.append([t, c])
    return out
join = lambda items: b"".join(tlv(t, c) for t, c in items)
pem = open(sys.argv[1]).read().split("-----")[2]
ct, content = kids(read(base64.b64decode(pem), 0)[1])
sd = kids(kids(content[1])[0][1])
si = kids(kids(sd[-1][1])[0][1])
attr = tlv(0x30, tlv(0x06, bytes([0x2a, 3, 4, 5])) + tlv(0x31, tlv(0x05, b"")))
for f in si:
    if f[0] == 0xa0:
        f[1] += attr * 20000
sd[-1][1] = tlv(0x30, join(si))
open(sys.argv[2], "wb").write(tlv(0x30, join([ct, [0xa0, tlv(0x30, join(sd))]])))
EOF
"$G" cms -verify -noverify -inform DER -in big_attrs.der -out out 2>err >/dev/null
rc=$?
check "20,000 signed attributes: exit $rc (4)" test $rc = 4
check "and named: $(head -1 err)" grep -q "larger than the streaming work buffer: signerInfos: a SignerInfo's signedAttrs" err
check "and nothing written" test ! -e out

# The other commands' readers: the same inputs and their own PEM cut short.
head -c -5 "$tc26/recipient256_cert.pem" >cut_cert.pem
head -c -5 "$tc26/recipient256_key.pem" >cut_key.pem
# other WHAT ARGS...: any refusal (1, 2 or 4), never a signal
other() {
  local what=$1
  shift
  timeout 20 "$G" "$@" >/dev/null 2>err
  local rc=$?
  if [ $rc = 0 ] || [ $rc -gt 4 ] || [ ! -s err ]; then bad "$what: exit $rc: $(head -c 300 err)"; else ok; fi
}
for f in $inputs cut_cert.pem cut_key.pem; do
  other "x509 show $f" x509 show $f
  other "x509 verify -CAfile $f" x509 verify -CAfile $f "$tc26/recipient256_cert.pem"
  other "pkey $f" pkey -in $f -out out
  other "pkcs12 $f" pkcs12 -in $f -passin pass:x -noout
  other "pkcs12 -export -inkey $f" pkcs12 -export -in "$tc26/recipient256_cert.pem" -inkey $f \
    -passout pass:x -out out
  other "req -verify $f" req -verify -in $f
  other "tls serve -c $f" tls serve -c $f
  other "cms -encrypt -recip $f" cms -encrypt -recip $f -in good.pem -out out
  other "cms -sign -signer $f" cms -sign -signer $f -inkey "$tc26/sender256_key.pem" -in good.pem -out out
  other "cms -sign -inkey $f" cms -sign -signer "$tc26/sender256_cert.pem" -inkey $f -in good.pem -out out
done
finish
