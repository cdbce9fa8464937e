#!/usr/bin/env bash
# gostx xml against Apache Santuario + BouncyCastle (Debian's
# libxml-security-java, libbcprov-java): tests/support/XmlDsigGost.java
# registers BouncyCastle's GOST R 34.10-2012 / Streebog under the cpxmlsec
# URIs and its own SMEV 3 transform in Santuario. Both ways, one JVM: it
# verifies gostx's signatures (whole document with a PI outside the root,
# by Id with 512 bits, the SMEV transform, an SMEV one with its prefixes
# renamed and whitespace added) and the CryptoPro SMEV 3 sample, and refuses
# them changed (content, SignatureValue as r || s, prefixes renamed without
# the SMEV transform, another CA); gostx verifies Santuario's (enveloped
# whole document and by Id, exc-c14n, the SMEV transform enveloped and
# detached as SMEV 3 carries it) and refuses them changed. Each side's
# signed octets are the other's byte for byte. bench/xml/XmlDsigGostBench.java
# (bench/xml_speed.sh's Santuario row) runs once on a small SMEV 3 envelope:
# it verifies gostx's, signs into CallerInformationSystemSignature, and
# gostx verifies that. Issue 79: Santuario signs with exc-c14n#WithComments
# (by Id and the whole document, comments inside what is signed: "" and
# "#Id" keep none, XMLDSig 1.1 4.3.3.3) and gostx verifies those; an SMEV 3
# GetResponseResponse (support/smev_response.sh), the sender's Signature by
# gostx and SMEV's by Santuario, is verified whole by both.
# Skipped (77) without gostx xml, a JDK (javac) or the jars.
. "$(dirname "$0")/cli_common.sh" xml_santuario
"$G" xml --help >/dev/null 2>&1 || { echo "gostx built without libxml2 (no gostx xml): skipping"; exit 77; }
command -v javac >/dev/null || { echo "javac not found: skipping"; exit 77; }
J=/usr/share/java
jars=
for jar in xmlsec slf4j-api bcprov bcutil; do
  [ -f $J/$jar.jar ] || { echo "$J/$jar.jar missing (libxml-security-java, libbcprov-java): skipping"; exit 77; }
  jars=$jars$J/$jar.jar:
done
[ -f $J/slf4j-nop.jar ] && jars=$jars$J/slf4j-nop.jar # slf4j's warning about no binding silenced
cd "$T" || exit 1

. "$here/support/xml_pki.sh"
for p in a:256A b:512A other:256B; do pki "${p%:*}" "${p#*:}"; done

# what each rule of the SMEV transform acts on: a PI and a comment outside
# the root, unused and default namespaces, attributes out of order and
# qualified (sorted by namespace URI, their prefixes and local names in
# other orders), whitespace-only text, an empty element, escaped characters
cat >doc.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<?app keep?>
<!-- top -->
<S:Envelope xmlns:S="urn:env" xmlns:unused="urn:u">
  <S:Body>
    <m:Req xmlns:m="urn:m" xmlns="urn:d" xmlns:A="urn:z" Id="req" b="2" a="1" m:k="3" S:y="4" A:c="5">
      <Empty/>
      <m:Text>a &amp; b &lt; c &gt; d "q" &#xD;</m:Text>
    </m:Req>
  </S:Body>
</S:Envelope>
X
# edit FILE OUT WHAT: a changed copy. content: a letter of the signed text;
# swap: SignatureValue's halves (r || s); rename: prefix m renamed to q and
# whitespace added inside the signed element
edit() {
  python3 - "$@" <<'PY'
import base64, re, sys
src, dst, what = sys.argv[1:]
x = open(src, encoding="utf-8").read()
if what == "content":
    y = x.replace("a &amp; b", "A &amp; b", 1)
elif what == "swap":
    m = re.search(r"(<ds:SignatureValue>)(.*?)(</ds:SignatureValue>)", x, re.S)
    v = base64.b64decode(re.sub(r"&#xD;|\s", "", m.group(2)))
    h = len(v) // 2
    y = x[:m.start(2)] + base64.b64encode(v[h:] + v[:h]).decode() + x[m.end(2):]
elif what == "rename":
    y = x.replace('xmlns:m="urn:m"', 'xmlns:q="urn:m"').replace("m:k=", "q:k=", 1)
    y = y.replace("<m:", "<q:").replace("</m:", "</q:").replace("<Empty", "\n  <Empty", 1)
assert y != x, what
open(dst, "w", encoding="utf-8").write(y)
PY
}

# gostx signs; the changed copies
sign() { "$G" xml sign "$@" 2>err || bad "gostx sign $*: $(cat err)"; }
sign -in doc.xml -ref '' -key a.key -cert a.pem -out g-all.xml
sign -in doc.xml -ref req -key b.key -cert b.pem -out g-req.xml
sign -in doc.xml -ref req -smev -key a.key -cert a.pem -out g-smev.xml
sign -stream -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out g-stream.xml
edit g-smev.xml g-smev-renamed.xml rename
edit g-req.xml g-req-renamed.xml rename
edit g-req.xml g-req-content.xml content
edit g-smev.xml g-smev-swap.xml swap
V=$here/vectors/xmldsig/smev3-ack-cryptopro-2001.xml
cp "$V" cp.xml
{ echo "-----BEGIN CERTIFICATE-----"
  grep -o '<ds:X509Certificate>[^<]*' "$V" | sed 's/<ds:X509Certificate>//' | fold -w 64
  echo "-----END CERTIFICATE-----"; } >alias.pem
sed 's/accepted="true"/accepted="false"/' "$V" >cp-changed.xml
# comments inside the signed element, for the #WithComments signatures
sed 's#<Empty/>#<!-- in req --><Empty/>#' doc.xml >doc-c.xml
# SMEV 3's response: gostx signs the sender's part, Santuario SMEV's
. "$here/support/smev_response.sh"
smev_send
sign -detached -smev -in send.xml -ref SIGNED_BY_CALLER -key a.key -cert a.pem -out sent.xml
smev_response sent.xml

# compiled once for both programs (as fast as java running the source file)
javac -nowarn -cp "$jars" -d classes "$here/support/XmlDsigGost.java" \
  "$here/../bench/xml/XmlDsigGostBench.java" >javac.txt 2>&1 || bad "javac: $(cat javac.txt)"
# one JVM: Santuario verifies gostx's and the sample, then signs (C1 and
# the serial GC: half the CPU time of a default start for so short a run)
jvm() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "classes:$jars" "$@"; }
jvm XmlDsigGost \
  verify a-ca.pem g-all.xml verify b-ca.pem g-req.xml verify a-ca.pem g-smev.xml \
  verify a-ca.pem g-smev-renamed.xml verify alias.pem cp.xml \
  verify b-ca.pem g-req-content.xml verify b-ca.pem g-req-renamed.xml \
  verify a-ca.pem g-smev-swap.xml verify alias.pem cp-changed.xml verify other-ca.pem g-all.xml \
  verify a-ca.pem g-stream.xml \
  sign a.key a.pem doc.xml s-all.xml '' enveloped sign b.key b.pem doc.xml s-req.xml req enveloped \
  sign a.key a.pem doc.xml s-smev.xml req smev sign b.key b.pem doc.xml s-detached.xml req smev-detached \
  sign a.key a.pem doc-c.xml s-com-req.xml req comments sign a.key a.pem doc-c.xml s-com-all.xml '' comments \
  sign b.key b.pem resp.xml both.xml SIGNED_BY_SMEV smev-detached verify-each a-ca.pem,b-ca.pem both.xml \
  >java.txt 2>&1
rc=$?
check "Santuario: 5 refusals, no other failure: $(cat java.txt)" test $rc = 5
said() { grep -qF -- "$1" java.txt && ok || bad "Santuario: no line \"$1\" in: $(cat java.txt)"; }
for f in g-all g-req g-smev g-smev-renamed cp g-stream; do said "ok   verified $f.xml"; done
said "FAIL g-req-content.xml: Reference 0: digest mismatch"
said "FAIL g-req-renamed.xml: Reference 0: digest mismatch"
said "FAIL g-smev-swap.xml: SignatureValue does not verify"
said "FAIL cp-changed.xml: Reference 0: digest mismatch"
said "FAIL g-all.xml: the certificate is not signed by other-ca.pem"
for f in s-all s-req s-smev s-detached s-com-req s-com-all both; do said "ok   signed $f.xml"; done
said "ok   verified both.xml"

# the signed octets: each side's are the other's
for f in g-all:a g-req:b g-smev:a g-smev-renamed:a; do
  expect "gostx verifies its ${f%:*}" 0 "Verified OK" -in "${f%:*}.xml" -CAfile "${f#*:}-ca.pem"
  check "${f%:*}: the same signed octets" cmp -s out "${f%:*}.xml.signed"
done
# the streaming signer's enveloping signature (docs/XMLDSIG.md, "Big documents")
expect "gostx verifies its g-stream, streamed" 0 "Verified OK" -stream -in g-stream.xml -CAfile a-ca.pem
check "g-stream: the same signed octets" cmp -s out g-stream.xml.signed
check "the sample: its signed octets" test "$(cat cp.xml.signed)" = '<ns1:AckTargetMessage xmlns:ns1="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/basic/1.2" Id="SIGNED_BY_CALLER" accepted="true">91686b40-af89-11e8-b8b3-005056857a87</ns1:AckTargetMessage>'
# the whole document: the PI outside the root is signed too (XMLDSig 4.3.3.3)
check "URI='': the PI outside the root signed" grep -q '^<?app keep?>$' g-all.xml.signed
check "the SMEV transform's octets" test "$(cat g-smev.xml.signed)" = '<ns1:Req xmlns:ns1="urn:m" xmlns:ns2="urn:env" xmlns:ns3="urn:z" ns2:y="4" ns1:k="3" ns3:c="5" Id="req" a="1" b="2"><ns4:Empty xmlns:ns4="urn:d"></ns4:Empty><ns1:Text>a &amp; b &lt; c > d "q" &#xd;</ns1:Text></ns1:Req>'

# gostx verifies Santuario's, and refuses them changed
for f in s-all:a s-req:b s-smev:a s-detached:b s-com-req:a s-com-all:a; do
  expect "gostx verifies Santuario's ${f%:*}" 0 "Verified OK" -in "${f%:*}.xml" -CAfile "${f#*:}-ca.pem"
  check "${f%:*}: the same signed octets" cmp -s out "${f%:*}.xml.signed"
done
grep -q '<!-- in req -->' s-com-req.xml && grep -q 'xml-exc-c14n#WithComments' s-com-req.xml && ok ||
  bad "Santuario's #WithComments: no comment or no WithComments in s-com-req.xml"
! grep -q 'in req' s-com-req.xml.signed s-com-all.xml.signed && ok || bad "Santuario signed a comment"
# both signatures of the SMEV 3 response, the same octets both sides
cat a-ca.pem b-ca.pem >ab-ca.pem
expect "gostx verifies the SMEV 3 response" 0 "Verified OK (2 signatures, 2 references)" -in both.xml -CAfile ab-ca.pem
check "the SMEV 3 response: the same signed octets" cmp -s out both.xml.signed
grep -q '<ns2:SMEVSignature><ds:Signature' both.xml && ok || bad "Santuario's Signature not in SMEVSignature"
edit s-detached.xml t.xml rename
expect "Santuario's SMEV, prefixes renamed" 0 "Verified OK" -in t.xml -CAfile b-ca.pem
edit s-req.xml t.xml rename
expect "Santuario's, prefixes renamed" 1 "digest mismatch" -in t.xml -CAfile b-ca.pem
edit s-smev.xml t.xml content
expect "Santuario's SMEV, content changed" 1 "digest mismatch" -in t.xml -CAfile a-ca.pem
edit s-all.xml t.xml swap
expect "Santuario's as r || s" 1 "bad signature" -in t.xml -CAfile a-ca.pem
expect "Santuario's, another CA" 1 "certificate chain" -in s-all.xml -CAfile other-ca.pem
# and gostx its own changed ones
expect "gostx's changed" 1 "digest mismatch" -in g-req-content.xml -CAfile b-ca.pem
expect "gostx's as r || s" 1 "bad signature" -in g-smev-swap.xml -CAfile a-ca.pem

# the speed bench's code path, one operation: gostx's detached SMEV
# signature verified there, its own placed as gostx places it and verified here
cat >env.xml <<'X'
<S:Envelope xmlns:S="urn:env"><S:Body><m:Req xmlns:m="urn:m"><m:Data Id="d">x &amp; y</m:Data><m:CallerInformationSystemSignature/></m:Req></S:Body></S:Envelope>
X
sign -detached -smev -in env.xml -ref d -key a.key -cert a.pem -out g-env.xml
jvm XmlDsigGostBench a.key a.pem a-ca.pem env.xml d 0 1 0 j-env.xml g-env.xml >bench.txt 2>&1
check "the bench runs: $(cat bench.txt)" grep -q "1 timed in 1 rounds: median .* per CPU-second" bench.txt
check "the bench's signature in CallerInformationSystemSignature" \
  grep -q '<m:CallerInformationSystemSignature><ds:Signature' j-env.xml
expect "gostx verifies the bench's" 0 "Verified OK" -in j-env.xml -CAfile a-ca.pem
jvm XmlDsigGostBench a.key a.pem a-ca.pem env.xml d 0 1 0 j2.xml g-smev-swap.xml >bench.txt 2>&1
check "the bench stops on a signature that does not verify: $(cat bench.txt)" \
  grep -q "g-smev-swap.xml does not verify: SignatureValue does not verify" bench.txt
finish
