#!/usr/bin/env bash
# gostx xml sign / verify (integrations/xmldsig over libxml2): enveloped
# signatures of the whole document and of an element by Id, 256- and
# 512-bit keys, exclusive and inclusive c14n, the SMEV 3 transform; KeyInfo
# as a WS-Security token; a public CryptoPro-signed SMEV 3 document (the
# SignatureValue's byte order); verify writes only what was signed. The
# refusals, each named: a changed content or SignatureValue, a chain to no
# anchor, DOCTYPEs (external entity, entity expansion), a duplicated Id, a
# copy of the Signature, XPath/XSLT transforms, an external or XPointer Reference, nesting
# past libxml2's depth, a transform after SMEV's, an undeclared namespace
# prefix; xml:lang under the SMEV transform; a signed element moved
# (wrapping) leaves the forged content out of what verify writes.
. "$(dirname "$0")/cli_common.sh" xml_cli
. "$here/support/xml_common.sh"
pki a 256A
pki b 512A
pki other 256B

cat >doc.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<root xmlns="urn:a" xmlns:b="urn:b"><!-- note --><b:data Id="d1">hello <x a="1"/></b:data><other>unsigned</other></root>
X
# whole document, 256-bit key: what was signed is the document less the
# Signature and the comment, in exclusive c14n
sign -in doc.xml -ref '' -key a.key -cert a.pem -out s-all.xml
expect "URI=''" 0 "Verified OK" -in s-all.xml -CAfile a-ca.pem -out-signed signed
want='<root xmlns="urn:a"><b:data xmlns:b="urn:b" Id="d1">hello <x a="1"></x></b:data><other>unsigned</other></root>'
check "URI='' signed octets" [ "$(cat signed)" = "$want" ]
grep -q 'gostr34102012-gostr34112012-256' s-all.xml && grep -q 'gostr34112012-256' s-all.xml && ok ||
  bad "256-bit URIs"

# one element by Id, 512-bit key: only that element is output
sign -in doc.xml -ref d1 -key b.key -cert b.pem -out s-d1.xml
expect "#d1" 0 "Verified OK" -in s-d1.xml -CAfile b-ca.pem
check "#d1 signed octets" [ "$(cat out)" = '<b:data xmlns:b="urn:b" Id="d1">hello <x xmlns="urn:a" a="1"></x></b:data>' ]
grep -q 'gostr34102012-gostr34112012-512' s-d1.xml && ok || bad "512-bit URIs"
# inclusive c14n keeps the ancestors' namespaces in scope
sign -in doc.xml -ref d1 -key a.key -cert a.pem -c14n -out s-inc.xml
expect "c14n 1.0" 0 "Verified OK" -in s-inc.xml -CAfile a-ca.pem
check "c14n 1.0 octets" [ "$(cat out)" = '<b:data xmlns="urn:a" xmlns:b="urn:b" Id="d1">hello <x a="1"></x></b:data>' ]

# the SMEV 3 transform (-smev) after exc-c14n: no declaration, PI or
# whitespace-only text, no empty-element tag, prefixes ns1.. in order of
# need, attributes sorted (qualified by namespace URI then name, then the
# rest by name), declarations before attributes
cat >smev.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<?pi x?>
<S:Envelope xmlns:S="urn:env" xmlns:unused="urn:u">
  <S:Body>
    <m:Req xmlns:m="urn:m" xmlns="urn:d" Id="req" b="2" a="1" m:z="3" S:y="4">
      <Empty/>
      <m:Text>a &amp; b &lt; c &gt; d</m:Text>
    </m:Req>
  </S:Body>
</S:Envelope>
X
sign -smev -in smev.xml -ref req -key a.key -cert a.pem -out s-smev.xml
expect "SMEV transform" 0 "Verified OK" -in s-smev.xml -CAfile a-ca.pem
check "SMEV transform octets" [ "$(cat out)" = '<ns1:Req xmlns:ns1="urn:m" xmlns:ns2="urn:env" ns2:y="4" ns1:z="3" Id="req" a="1" b="2"><ns3:Empty xmlns:ns3="urn:d"></ns3:Empty><ns1:Text>a &amp; b &lt; c > d</ns1:Text></ns1:Req>' ]
grep -q 'Algorithm="urn://smev-gov-ru/xmldsig/transform"' s-smev.xml && ok || bad "SMEV transform URI"
# what the transform forgets may change: a prefix renamed, whitespace added
sed 's/m:Text/q:Text/g; s/xmlns:m="urn:m"/xmlns:m="urn:m" xmlns:q="urn:m"/; s#</m:Req>#  </m:Req>#' s-smev.xml >t.xml
expect "SMEV: prefixes and whitespace" 0 "Verified OK" -in t.xml -CAfile a-ca.pem
sed 's#Algorithm="urn://smev-gov-ru/xmldsig/transform"/>#&<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n\#"/>#' \
  s-smev.xml >t.xml
expect "a transform after SMEV's" 1 "after the SMEV transform" -in t.xml -CAfile a-ca.pem
# xml:lang keeps the xml prefix: binding ns2 to the xml namespace is
# forbidden (Namespaces in XML 1.0, 3), SMEV's reference writer refuses it
sed 's#Id="req"#& xml:lang="ru"#' smev.xml >lang.xml
sign -smev -in lang.xml -ref req -key a.key -cert a.pem -out t.xml
expect "SMEV transform, xml:lang" 0 "Verified OK" -in t.xml -CAfile a-ca.pem
grep -q ' xml:lang="ru"' out && ! grep -q 'XML/1998/namespace' out && ok ||
  bad "SMEV transform: xml:lang written as $(cat out)"

# a real document: an SMEV 3 AckRequest signed by CryptoPro (GOST R
# 34.10-2001, R 34.11-94, exc-c14n + the SMEV transform, detached by Id;
# tests/vectors/README.md names its source): its digest is the SMEV
# transform's octets byte for byte, its SignatureValue s || r big-endian
V=$here/vectors/xmldsig/smev3-ack-cryptopro-2001.xml
{ echo "-----BEGIN CERTIFICATE-----"
  grep -o '<ds:X509Certificate>[^<]*' "$V" | sed 's/<ds:X509Certificate>//' | fold -w 64
  echo "-----END CERTIFICATE-----"; } >alias.pem
# its certificate is a CA without subjectKeyIdentifier: -x509_lax
expect "CryptoPro SMEV 3 sample" 0 "Verified OK" -in "$V" -CAfile alias.pem -attime 1540000000 -x509_lax
check "CryptoPro SMEV 3 sample octets" [ "$(cat out)" = '<ns1:AckTargetMessage xmlns:ns1="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/basic/1.2" Id="SIGNED_BY_CALLER" accepted="true">91686b40-af89-11e8-b8b3-005056857a87</ns1:AckTargetMessage>' ]
expect "CryptoPro sample, the profile strict" 1 "subjectKeyIdentifier" -in "$V" -CAfile alias.pem -attime 1540000000
# the halves in the other order (r || s) do not verify
sv=$(grep -o '<ds:SignatureValue>[^<]*' "$V" | sed 's/<ds:SignatureValue>//')
rs=$(printf %s "$sv" | base64 -d | { head -c 32 >s.bin; cat >r.bin; cat r.bin s.bin; } | base64 -w0)
sed "s#$sv#$rs#" "$V" >t.xml
expect "CryptoPro sample as r || s" 1 "bad signature" -in t.xml -CAfile alias.pem -attime 1540000000 -x509_lax
sed 's/accepted="true"/accepted="false"/' "$V" >t.xml
expect "CryptoPro sample changed" 1 "digest mismatch" -in t.xml -CAfile alias.pem -attime 1540000000 -x509_lax

# KeyInfo as WS-Security writes it: a SecurityTokenReference to a
# BinarySecurityToken by wsu:Id (KeyInfo is not signed: rewritten here)
W=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd
U=http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd
cert=$(grep -o '<ds:X509Certificate>[^<]*' s-d1.xml | sed 's/<ds:X509Certificate>//')
sed "s#<ds:KeyInfo>.*</ds:KeyInfo>#<ds:KeyInfo><wsse:SecurityTokenReference xmlns:wsse=\"$W\"><wsse:Reference URI=\"\#tok\"/></wsse:SecurityTokenReference></ds:KeyInfo>#; s#<other>unsigned</other>#<other><wsse:BinarySecurityToken xmlns:wsse=\"$W\" xmlns:wsu=\"$U\" wsu:Id=\"tok\">$cert</wsse:BinarySecurityToken></other>#" \
  s-d1.xml >t.xml
grep -q X509Data t.xml && bad "KeyInfo not rewritten"
expect "BinarySecurityToken" 0 "Verified OK" -in t.xml -CAfile b-ca.pem
sed 's#URI="\#tok"#URI="\#d1"#' t.xml >t2.xml
expect "a token reference to no token" 1 "no certificate" -in t2.xml -CAfile b-ca.pem

# refusals after signing
sed 's/hello/hellO/' s-d1.xml >t.xml
expect "content changed" 1 "digest mismatch" -in t.xml -CAfile b-ca.pem
check "nothing written on a refusal" [ ! -s out ]
v=$(grep -o '<ds:SignatureValue>..' s-all.xml | tail -c 3)
[ "$v" = AB ] && w=BA || w=AB
sed "s#<ds:SignatureValue>$v#<ds:SignatureValue>$w#" s-all.xml >t.xml
expect "SignatureValue changed" 1 "bad signature" -in t.xml -CAfile a-ca.pem
expect "no chain to the anchor" 1 "certificate chain" -in s-all.xml -CAfile other-ca.pem
sed 's#URI="\#d1"#URI="http://example.com/x"#' s-d1.xml >t.xml
expect "external Reference" 1 "bad reference" -in t.xml -CAfile b-ca.pem
# XPointer URIs keep comments where "" and "#Id" drop them (XMLDSig 1.1
# 4.3.3.3): refused by name, not read as "#Id"
for u in "#xpointer(/)" "#xpointer(id('d1'))"; do
  sed "s%URI=\"#d1\"%URI=\"$u\"%" s-d1.xml >t.xml
  expect "URI=$u" 1 "unsupported algorithm: Reference URI=\"$u\": XPointer is refused" -in t.xml -CAfile b-ca.pem
done
sed 's#Algorithm="http://www.w3.org/2000/09/xmldsig\#enveloped-signature"#Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116"#' \
  s-d1.xml >t.xml
expect "XPath transform" 1 "XPath transform is refused" -in t.xml -CAfile b-ca.pem
sed 's#Algorithm="http://www.w3.org/2000/09/xmldsig\#enveloped-signature"#Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116"#' \
  s-d1.xml >t.xml
expect "XSLT transform" 1 "XSLT transform is refused" -in t.xml -CAfile b-ca.pem
sed 's#<other>unsigned</other>#<other Id="d1">forged</other>#' s-d1.xml >t.xml
expect "duplicated Id" 1 "duplicate Id" -in t.xml -CAfile b-ca.pem
sig=$(grep -o '<ds:Signature .*</ds:Signature>' s-d1.xml)
awk -v s="$sig" '{sub("<other>", "<other>" s)} 1' s-d1.xml >t.xml
expect "a copy of the Signature" 1 "a second signature: Signature 2 is a copy of Signature 1" -in t.xml -CAfile b-ca.pem
# wrapping: the signed element moved under <other>, a forged one in its
# place without an Id; the signature verifies, and what verify writes is the
# signed element only, never the forged text
d1=$(grep -o '<b:data Id="d1">.*</b:data>' s-d1.xml)
awk -v d="$d1" '{i = index($0, d); if (i) $0 = substr($0, 1, i - 1) "<b:data>forged</b:data>" substr($0, i + length(d)); sub("<other>unsigned</other>", "<other>" d "</other>")} 1' \
  s-d1.xml >t.xml
expect "moved element" 0 "Verified OK" -in t.xml -CAfile b-ca.pem
grep -q forged t.xml && ! grep -q forged out && grep -q hello out && ok || bad "moved element: forged text in the output"

# DOCTYPEs: never read, whatever they declare
printf '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<r>&x;</r>\n' >xxe.xml
expect "external entity" 1 "DTD refused" -in xxe.xml -CAfile a-ca.pem
rm -f t.xml
"$G" xml sign -in xxe.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "DTD refused" err && [ ! -e t.xml ] && ok || bad "sign of a DOCTYPE: $(cat err)"
{ printf '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
  for i in 1 2 3 4 5 6 7 8; do printf '<!ENTITY %s "&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;">' "$(printf "\\$(printf %03o $((97 + i)))")" "$(printf "\\$(printf %03o $((96 + i)))")"{,,,,,,,,,}; done
  printf ']>\n<r>&i;</r>\n'; } >lol.xml
expect "entity expansion" 1 "DTD refused" -in lol.xml -CAfile a-ca.pem
printf '<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "http://127.0.0.1:1/x.dtd">\n<r/>\n' >ext.xml
expect "external DTD" 1 "DTD refused" -in ext.xml -CAfile a-ca.pem
# depth: past libxml2's 256 levels
{ for i in $(seq 300); do printf '<a>'; done; for i in $(seq 300); do printf '</a>'; done; } >deep.xml
expect "nesting" 1 "too large" -in deep.xml -CAfile a-ca.pem
expect "no signature" 1 "no signature" -in doc.xml -CAfile a-ca.pem
# an undeclared prefix (namespace-well-formedness, as Santuario and lxml
# refuse it): neither signed nor verified, in memory or streamed
sed 's#<other>#&<z:u/>#' doc.xml >undecl.xml
rm -f t.xml
"$G" xml sign -in undecl.xml -ref d1 -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q 'prefix z on u is not defined' err && [ ! -e t.xml ] && ok ||
  bad "sign with an undeclared prefix: $(cat err)"
"$G" xml sign -stream -enveloping -in undecl.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q 'prefix z on u is not defined' err && ok ||
  bad "streamed sign with an undeclared prefix: $(cat err)"
sed 's#<other>#&<z:u/>#' s-d1.xml >t.xml
expect "an undeclared prefix, unsigned part" 1 "prefix z on u is not defined" -in t.xml -CAfile b-ca.pem
sign -stream -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out s-str.xml
sed 's#</ds:Signature>#<ds:Object><z:u/></ds:Object>&#' s-str.xml >t.xml
expect "streamed, an undeclared prefix" 1 "prefix z on u is not defined" -stream -in t.xml -CAfile a-ca.pem
# the key must be the certificate's
"$G" xml sign -in doc.xml -ref '' -key other.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "key mismatch" err && ok || bad "sign with another key: $(cat err)"
"$G" xml sign -in doc.xml -ref nope -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "bad reference" err && ok || bad "sign of an absent Id: $(cat err)"
finish
