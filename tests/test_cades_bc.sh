#!/usr/bin/env bash
# BouncyCastle reads gostx's CAdES-X Long Type 1 attributes: its
# org.bouncycastle.asn1.esf classes (CompleteRevocationRefs, CrlOcspRef,
# RevocationValues, OcspResponsesID...), .ess's OtherCertID and .tsp's
# TSTInfo parse what lib/cms wrote from tests/vectors/cades, and
# tests/support/CadesEsf.java checks on BouncyCastle's side every
# reference's Streebog-256 against its value and the CAdES-C-time-stamp's
# imprint against RFC 5126 6.3.5's bytes, concatenated there. A CRL value
# changed is refused there too. Skipped (77) without java (a JDK: java runs
# the source file) or Debian's libbcprov-java.
. "$(dirname "$0")/cli_common.sh" cades_bc
command -v java >/dev/null || { echo "java not found: skipping"; exit 77; }
bc=/usr/share/java
[ -f $bc/bcprov.jar ] && [ -f $bc/bcutil.jar ] || { echo "libbcprov-java not installed: skipping"; exit 77; }
test_cades=$(dirname "$G")/test_cades
[ -x "$test_cades" ] || { echo "test_cades not built: skipping"; exit 77; }
cd "$T" || exit 1
# test_cades writes fuzz_cades's seeds: seed-03 is kind byte 0 + the X Long Type 1
"$test_cades" --seeds . >/dev/null
tail -c +2 seed-03 >xl1.der
# int.crl's last byte (its signature's) changed inside the attributes
python3 - "$GOSTX_VECTORS/cades/int.crl" <<'PY'
import sys
crl = open(sys.argv[1], "rb").read()
x = bytearray(open("xl1.der", "rb").read())
at = x.find(crl)
x[at + len(crl) - 1] ^= 1
open("bad.der", "wb").write(x)
PY
# one JVM for both files; its status: how many failed (bad.der must)
java -cp "$bc/bcprov.jar:$bc/bcutil.jar" "$here/support/CadesEsf.java" xl1.der bad.der >bc.txt 2>&1
rc=$?
check "BouncyCastle: only the changed file fails: $(cat bc.txt)" test $rc = 1
sed -n '/^== xl1.der/,/^== bad.der/p' bc.txt >good.txt
sed -n '/^== bad.der/,$p' bc.txt >bad.txt
check "gostx's X Long Type 1: every check ran" grep -q "^ok   CAdES-C-time-stamp: imprint" good.txt
check "gostx's X Long Type 1: no check failed" test "$(grep -c '^FAIL' good.txt)" = 0
check "a changed CRL value: refused on the CRL reference" grep -q "^FAIL a CRL reference met" bad.txt
finish
