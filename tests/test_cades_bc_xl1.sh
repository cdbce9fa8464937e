#!/usr/bin/env bash
# gostx verifies a CAdES-X Long Type 1 signature written by BouncyCastle
# (Debian's bcpkix 1.72): tests/support/BcCadesXl1.java, one JVM, makes its
# own GOST 2012-256 PKI (root, sub CA, signer, TSA), a detached CAdES-BES
# over doc.bin, its signature-time-stamp, the references and values (an
# OCSP response by the sub CA on the signer, the root's CRL) and the
# CAdES-C-time-stamp over RFC 5126 6.3.5's bytes, computed there from the
# RFC alone. `gostx cms -verify -content -CAfile root.pem` must reach
# "level: CAdES-X Long Type 1", for the DER file and for the BER one
# BouncyCastle's getEncoded() gives (indefinite lengths); copies with a byte of the OCSP response
# value, of the CRL value, or of the OcspIdentifier's producedAt in the
# revocation references (the hash still meets the value, whose producedAt
# the reference no longer names: RFC 5126 6.2.2) are refused by name.
# Skipped (77) without java (a JDK: java runs the source file) or Debian's
# libbcprov-java and libbcpkix-java.
. "$(dirname "$0")/cli_common.sh" cades_bc_xl1
. "$here/support/bc_jars.sh"
bc_jars bcprov bcutil bcpkix
cd "$T" || exit 1
head -c 4000 /dev/urandom >doc.bin
java -cp "$bc_cp" "$here/support/BcCadesXl1.java" . doc.bin >bc.txt 2>&1
check "BouncyCastle wrote its X Long Type 1: $(cat bc.txt)" test -s xl1.der -a -s root.pem

verify() { # verify NAME FILE: gostx's exit status in $rc, stderr in NAME.err
  "$G" cms -verify -in "$2" -inform DER -content doc.bin -CAfile root.pem >"$1.out" 2>"$1.err"
  rc=$?
}
said() { [ "$rc" = "$1" ] && grep -q -- "$2" "$3" || { echo "  rc=$rc"; sed 's/^/  /' "$3"; false; }; }
verify good xl1.der
check "gostx verifies BouncyCastle's file" said 0 "^level: CAdES-X Long Type 1$" good.err
check "the chain judged with BouncyCastle's OCSP response and CRL" \
  said 0 "^Chain and revocation values: OK at the signature timestamp's time" good.err
# the same as CMSSignedData.getEncoded() writes it: BER outside the SignerInfos
verify ber xl1-ber.der
check "gostx verifies BouncyCastle's BER form too" said 0 "^level: CAdES-X Long Type 1$" ber.err
check "the BER form is BER" test "$(head -c 2 xl1-ber.der | od -An -tx1 | tr -d ' ')" = 3080

# the changed copies: python finds the values (written apart by the Java) in the file
python3 - <<'PY'
import re
x = open("xl1.der", "rb").read()
def flip(name, at):
    y = bytearray(x)
    y[at] ^= 1
    open(name, "wb").write(y)
ocsp, crl = open("ocsp.der", "rb").read(), open("crl.der", "rb").read()
o, c = x.find(ocsp), x.find(crl)
assert o > 0 and c > 0 and x.find(ocsp, o + 1) < 0
flip("ocsp-value.der", o + len(ocsp) - 1)  # the response's signature, last byte
flip("crl-value.der", c + len(crl) - 1)
# producedAt (the response's first GeneralizedTime) once more: in the OcspIdentifier
produced = re.search(rb"\x18\x0f\d{14}Z", ocsp).group()
ref = [m.start() for m in re.finditer(re.escape(produced), x) if not o <= m.start() < o + len(ocsp)]
assert len(ref) == 1
flip("ocsp-ref.der", ref[0] + 15)  # a digit of its seconds, still a time
PY
verify v1 ocsp-value.der
check "a changed OCSP response value: refused" \
  said 4 "complete-revocation-references: the CRL's or OCSP response's hash does not match" v1.err
verify v2 crl-value.der
check "a changed CRL value: refused" \
  said 4 "complete-revocation-references: the CRL's or OCSP response's hash does not match" v2.err
verify v3 ocsp-ref.der
check "a changed OcspIdentifier: the reference no longer names its value" \
  said 4 "complete-revocation-references: the CRL or OCSP response of that hash is not the one the reference names" v3.err
finish
