#!/usr/bin/env bash
# BouncyCastle (Debian's bcpkix 1.72) and gostx on OCSP responses and
# RFC 3161 time stamps with GOST keys, both ways, in one JVM run of
# tests/support/BcOcspTsp.java: BouncyCastle verifies gostx's OCSP
# response (BasicOCSPResp.isSignatureValid with the responder's
# certificate, CertificateID equal to its own, statuses, nonce) and
# gostx's time stamp (TimeStampResponse.validate against the query,
# TimeStampToken.validate: signature, ESSCertIDv2, timeStamping), and
# refuses copies with a changed signature byte; it signs an OCSP response
# and a time stamp with the same GOST keys (read from gostx's PKCS#8
# files), which gostx's client and `gostx ts -verify` check, and refuse
# with a changed signature byte. Skipped (77) without java (a JDK: java
# runs the source file) or Debian's libbcprov-java and libbcpkix-java.
. "$(dirname "$0")/cli_common.sh" ocsp_tsp_bc
. "$here/support/bc_jars.sh"
bc_jars bcprov bcutil bcpkix
cd "$T" || exit 1

# the PKI, made by gostx: a CA, an OCSP responder, a TSA, two leaves; keys
# on the CryptoPro-A curve (256B), whose parameters carry digestParamSet:
# BouncyCastle 1.72 cannot read a key whose parameters are the curve alone
# (tc26 paramSetA, 256A: "Index 1 out of bounds", "bad version in
# X9ECParameters")
. "$here/support/ocsp_pki.sh"
ocsp_pki 256B 256B rsp:0x2001:rsp tsa:0x2002:tsa leaf1:0x1001:leaf leaf2:0x1002:leaf

# gostx's OCSP response and time stamp, and copies with a changed signature byte
"$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -reqout req.der
"$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -nmin 5 -reqin req.der -respout resp.der
head -c 3000 /dev/urandom > doc.txt
"$G" ts -query -data doc.txt -cert -out q.tsq
"$G" ts -reply -queryfile q.tsq -signer tsa.pem -inkey tsa.key -serial tsa.serial -out r.tsr
# sig_flip IN OUT: one byte of the file's own signature changed: an OCSP
# response's is the BIT STRING after the first signatureAlgorithm (GOST
# 34.10-2012 256, tc26 OID; the certificates come after it), a time
# stamp's the last 64 bytes (the SignerInfo's, no unsigned attributes)
sig_flip() {
  python3 - "$1" "$2" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
if sys.argv[1].endswith(".der"):
    at = d.find(b"\x03\x41\x00", d.index(bytes.fromhex("06082a85030701010302")))
    d[at + 13] ^= 1
else:
    d[-20] ^= 1
open(sys.argv[2], "wb").write(d)
PY
}
sig_flip resp.der resp-bad.der
sig_flip r.tsr r-bad.tsr

# one JVM: BouncyCastle checks gostx's files and writes its own
java -cp "$bc_cp" "$here/support/BcOcspTsp.java" . >bc.txt 2>&1
rc=$?
check "BouncyCastle: no check failed (exit $rc): $(grep -v '^ok' bc.txt)" test $rc = 0
check "BouncyCastle verified gostx's OCSP response" grep -q "^ok   gostx OCSP: isSignatureValid" bc.txt
check "BouncyCastle: gostx's CertificateIDs, equal and matchesIssuer" test "$(grep -c '^ok   gostx OCSP: CertificateID' bc.txt)" = 4
check "BouncyCastle refused the changed OCSP response" grep -q "^ok   gostx OCSP: a changed signature is refused" bc.txt
check "BouncyCastle validated gostx's token" grep -q "^ok   gostx TSP: TimeStampToken.validate" bc.txt
check "BouncyCastle: ESSCertIDv2" grep -q "^ok   gostx TSP: ESSCertIDv2" bc.txt
check "BouncyCastle refused the changed token" grep -q "^ok   gostx TSP: a changed signature is refused" bc.txt

# gostx checks BouncyCastle's
"$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -reqin req.der -respin bc-resp.der >bc-ocsp.out 2>bc-ocsp.err
rc=$?
check "gostx verifies BouncyCastle's OCSP response (exit $rc): $(cat bc-ocsp.err)" \
  grep -q "^Response verify OK" bc-ocsp.err
check "BouncyCastle's statuses: good, revoked" test "$(grep -oE '^leaf[12]\.pem: [a-z]+' bc-ocsp.out | tr '\n' ' ')" = \
  "leaf1.pem: good leaf2.pem: revoked "
check "BouncyCastle's reason" grep -q "Reason: keyCompromise" bc-ocsp.out
"$G" ts -verify -data doc.txt -in bc.tsr -CAfile ca.pem >bc-ts.out 2>&1
check "gostx verifies BouncyCastle's time stamp: $(cat bc-ts.out)" grep -q "Verification: OK" bc-ts.out
"$G" ts -verify -queryfile q.tsq -in bc.tsr -CAfile ca.pem >bc-tsq.out 2>&1
check "BouncyCastle's time stamp against the query (nonce): $(cat bc-tsq.out)" grep -q "Verification: OK" bc-tsq.out
# and refuses them with a changed signature byte
sig_flip bc-resp.der bad-bc-resp.der
sig_flip bc.tsr bad-bc.tsr
"$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -reqin req.der -respin bad-bc-resp.der >/dev/null 2>bad-ocsp.err
check "a changed BouncyCastle OCSP response: refused" test $? = 1
"$G" ts -verify -data doc.txt -in bad-bc.tsr -CAfile ca.pem >bad-ts.out 2>&1
check "a changed BouncyCastle time stamp: refused" test $? = 1
finish
