#!/usr/bin/env bash
# gostx x509 verify's path building over chains gostx makes itself (no
# openssl): two intermediates of one subject and key where one leads to no
# anchor, given in both orders (each verifies); -verify_depth as openssl's
# (the intermediates between CERT and the anchor); and the refusals named:
# a certificate over 64 KiB, a signature algorithm that differs inside and
# out. lib/x509's own cases are tests/test_x509_path.c.
. "$(dirname "$0")/cli_common.sh" x509_path_cli
cd "$T" || exit 1

key() { "$G" genpkey -c 256A -o "$1.key" >/dev/null 2>&1 || bad "key $1"; }
# root NAME: a self-signed CA
root() {
  key "$1"
  "$G" req -x509 -ca -key "$1.key" -subj "/CN=$1" -days 30 -out "$1.pem" 2>/dev/null || bad "root $1"
}
printf 'basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign\n' >ca.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\n' >leaf.ext
# issue OUT KEY SUBJECT CA EXT: a certificate for KEY's request, from CA (CA.pem, CA.key)
issue() {
  "$G" req -new -key "$2.key" -subj "/CN=$3" -out "$1.csr" 2>/dev/null &&
    "$G" x509 -req -in "$1.csr" -CA "$4.pem" -CAkey "$4.key" -days 10 -extfile "$5" \
      -out "$1.pem" 2>/dev/null || bad "issue $1"
}
root Root
root Other
key ica
key i1
key leaf
issue ica-good ica ICA Root ca.ext
issue ica-dead ica ICA Other ca.ext # the same subject and key, under an untrusted root
issue i1 i1 I1 Root ca.ext
cp ica.key ICA.key && cp ica-good.pem ICA.pem
issue leaf leaf leaf ICA leaf.ext
cp i1.key I1.key && cp i1.pem I1.pem
issue i2 ica I2 I1 ca.ext
cp ica.key I2.key && cp i2.pem I2.pem
issue deep leaf deep I2 leaf.ext

verify() { # verify WANT_RC GREP ARGS...: gostx x509 verify exits WANT_RC, says GREP
  local want=$1 grep=$2
  shift 2
  "$G" x509 verify "$@" >out 2>err
  local rc=$?
  if [ $rc != "$want" ]; then
    bad "verify $*: exit $rc, want $want: $(cat out err)"
  elif [ -n "$grep" ] && ! grep -qF -- "$grep" out err; then
    bad "verify $*: '$grep' not said: $(cat out err)"
  else
    ok
  fi
}

# RFC 4158: the candidate that leads nowhere is left for the other
cat ica-dead.pem ica-good.pem >dead-first.pem
cat ica-good.pem ica-dead.pem >good-first.pem
verify 0 "leaf.pem: OK" -CAfile Root.pem -untrusted dead-first.pem leaf.pem
verify 0 "leaf.pem: OK" -CAfile Root.pem -untrusted good-first.pem leaf.pem
verify 2 "error at depth 1: issuer: no trusted issuer found" -CAfile Root.pem -untrusted ica-dead.pem leaf.pem

# another CA of the trusted root's name: a 512-bit key, then a 256-bit one
# (another parameter set, the leaf's AKI naming it): no issuer found, as
# openssl says, not an unknown algorithm nor a bad signature
mkdir twin512 twin256
"$G" genpkey -c 512A -o twin512/Root.key >/dev/null 2>&1 || bad "key twin512"
"$G" genpkey -c 256B -o twin256/Root.key >/dev/null 2>&1 || bad "key twin256"
for t in twin512 twin256; do
  "$G" req -x509 -ca -key $t/Root.key -subj "/CN=Root" -days 30 -out $t/Root.pem 2>/dev/null || bad "root $t"
  issue $t-leaf leaf leaf $t/Root leaf.ext
  verify 2 "error at depth 0: issuer: no trusted issuer found (unknown CA): the certificate of the issuer's name holds another key" \
    -CAfile Root.pem $t-leaf.pem
done

# -verify_depth N: N intermediates between CERT and the anchor at most
cat i2.pem i1.pem >two.pem
verify 0 "deep.pem: OK" -CAfile Root.pem -untrusted two.pem deep.pem
verify 0 "deep.pem: OK" -CAfile Root.pem -untrusted two.pem -verify_depth 2 deep.pem
verify 2 "error at depth 1: path length limit: no path within 1 intermediate certificates (the verify depth)" \
  -CAfile Root.pem -untrusted two.pem -verify_depth 1 deep.pem
verify 2 "error at depth 0: path length limit: no path within 0 intermediate" \
  -CAfile Root.pem -untrusted two.pem -verify_depth 0 deep.pem
verify 0 "leaf.pem: OK" -CAfile Root.pem -untrusted ica-good.pem -verify_depth 1 leaf.pem
verify 0 "ICA.pem: OK" -CAfile Root.pem -verify_depth 0 ICA.pem
verify 2 "-verify_depth" -CAfile Root.pem -verify_depth -1 leaf.pem
verify 2 "-verify_depth" -CAfile Root.pem -verify_depth x leaf.pem

# a 78 KB certificate: the limit named, not "malformed"
head -c 78000 /dev/zero >big.der
{ echo "-----BEGIN CERTIFICATE-----"; base64 -w 64 big.der; echo "-----END CERTIFICATE-----"; } >big.pem
verify 1 "big.pem: certificate 1: larger than 65536 bytes (DER), gostx's limit for one certificate" \
  -CAfile Root.pem big.pem
verify 1 "big.pem: certificate 1: larger than 65536 bytes" -CAfile big.pem leaf.pem

# the outer signatureAlgorithm made Streebog-512's while the signed one says 256's:
# its OID's last byte is the 68th from the end (the BIT STRING of the
# signature is 67 bytes)
sed '/-----/d' leaf.pem | base64 -d >leaf.der
n=$(stat -c %s leaf.der)
check "outer algorithm where expected" [ "$(od -An -tx1 -j$((n - 68)) -N1 leaf.der | tr -d ' ')" = 02 ]
printf '\003' | dd of=leaf.der bs=1 seek=$((n - 68)) conv=notrunc status=none
verify 1 "leaf.der: certificate 1: signatureAlgorithm: the signed algorithm (tbsCertificate.signature) and the outer signatureAlgorithm differ" \
  -CAfile Root.pem leaf.der
finish
