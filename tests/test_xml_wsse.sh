#!/usr/bin/env bash
# gostx xml sign -wsse: WS-Security's form (X.509 token profile) of a SOAP
# Envelope: the Signature in the Header's wsse:Security beside a
# BinarySecurityToken (X509v3, base64) of the certificate, KeyInfo a
# SecurityTokenReference to it by wsu:Id, the Reference signing the Body
# (given wsu:Id="body" when it has none) or the element of -ref. verify
# takes that token by Id and trusts it only through a chain. The wrapping
# cases: the Body moved into the Header with a forged one in its place
# (verifies; the forged text is never in the output), duplicated Ids (of
# the Body, of the token), a second Signature, another or a changed token.
. "$(dirname "$0")/cli_common.sh" xml_wsse
. "$here/support/xml_common.sh"
pki a 256A
pki b 256A
VT='http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3'
cat >soap.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:Req xmlns:m="urn:m">hello</m:Req></soap:Body></soap:Envelope>
X
sign -wsse -in soap.xml -ref '' -key a.key -cert a.pem -out w.xml
expect "wsse" 0 "Verified OK" -in w.xml -CAfile a-ca.pem
check "wsse octets" [ "$(cat out)" = '<soap:Body xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd" wsu:Id="body"><m:Req xmlns:m="urn:m">hello</m:Req></soap:Body>' ]
tr -d '\n' <w.xml | grep -q '<soap:Header><wsse:Security [^>]*><wsse:BinarySecurityToken [^>]*>[^<]*</wsse:BinarySecurityToken><ds:Signature ' &&
  grep -q "ValueType=\"$VT\"" w.xml && grep -q '<wsse:Reference URI="#X509Token"' w.xml &&
  grep -q 'URI="#body"' w.xml && ! grep -q X509Data w.xml && ! grep -q enveloped-signature w.xml && ok ||
  bad "wsse: not the token profile's layout"
# the token is the certificate, byte for byte
acert=$(grep -o '<wsse:BinarySecurityToken [^>]*>[^<]*' w.xml | sed 's/.*>//')
check "the token is the signer's certificate" [ "$acert" = "$(grep -v -- ----- a.pem | tr -d '\n')" ]
# a Header already there, the Body's own Id, the SMEV transform, SOAP 1.2
cat >soap2.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Header><h>x</h></env:Header><env:Body Id="b7"><m:Req xmlns:m="urn:m">hello</m:Req></env:Body></env:Envelope>
X
sign -wsse -smev -in soap2.xml -ref '' -key a.key -cert a.pem -out w2.xml
expect "wsse, SOAP 1.2 with a Header" 0 "Verified OK" -in w2.xml -CAfile a-ca.pem
grep -q 'URI="#b7"' w2.xml && [ "$(grep -o '<env:Header>' w2.xml | wc -l)" = 1 ] && ok || bad "wsse: the Header or the Body's Id"
sign -wsse -in soap2.xml -ref b7 -key a.key -cert a.pem -out w3.xml
expect "wsse -ref" 0 "Verified OK" -in w3.xml -CAfile a-ca.pem
# refusals when signing
printf '<r Id="x"/>' >doc.xml
"$G" xml sign -wsse -in doc.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "SOAP Envelope" err && ok || bad "-wsse of no Envelope: $(cat err)"
"$G" xml sign -wsse -enveloping -in soap.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "unsupported" err && ok || bad "-wsse -enveloping: $(cat err)"
sed 's#<soap:Envelope #<soap:Envelope Id="env" #' soap.xml >t0.xml
"$G" xml sign -wsse -in t0.xml -ref env -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "holds the SOAP Header" err && ok || bad "-wsse of the Envelope: $(cat err)"
sed 's#<m:Req #<m:Req Id="X509Token" #' soap.xml >t0.xml
"$G" xml sign -wsse -in t0.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "duplicate Id" err && ok || bad "-wsse over the token's Id: $(cat err)"

# verify: the token trusted only through a chain
expect "wsse, no chain" 1 "certificate chain" -in w.xml -CAfile b-ca.pem
bcert=$(grep -v -- ----- b.pem | tr -d '\n')
tamper "wsse, another certificate in the token" 1 "bad signature" "s#$acert#$bcert#" w.xml b-ca.pem
tamper "wsse, a token not X509v3" 1 "no certificate" "s|$VT\"|${VT%X509v3}X509PKIPathv1\"|" w.xml a-ca.pem
tamper "wsse, a reference to the Body, not a token" 1 "no certificate" \
  's#<wsse:Reference URI="\#X509Token"#<wsse:Reference URI="\#body"#' w.xml a-ca.pem
tamper "wsse, the token's Id duplicated" 1 "duplicate Id" 's#<m:Req #<m:Req wsu:Id="X509Token" #' w.xml a-ca.pem
tamper "wsse, the Body's Id duplicated" 1 "duplicate Id" \
  's#<soap:Header>#&<x wsu:Id="body" xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"/>#' w.xml a-ca.pem
tamper "wsse, Body changed" 1 "digest mismatch" 's#hello#hellO#' w.xml a-ca.pem
# wrapping: the signed Body moved into the Header, a forged Body in its place
body=$(grep -o '<soap:Body .*</soap:Body>' w.xml)
awk -v b="$body" '{i = index($0, b); if (i) $0 = substr($0, 1, i - 1) "<soap:Body><m:Req xmlns:m=\"urn:m\">forged</m:Req></soap:Body>" substr($0, i + length(b)); sub("<soap:Header>", "<soap:Header><w>" b "</w>")} 1' \
  w.xml >t.xml
expect "wsse, the Body moved" 0 "Verified OK" -in t.xml -CAfile a-ca.pem
grep -q forged t.xml && ! grep -q forged out && grep -q hello out && ok || bad "wsse, the Body moved: forged text in the output"
# (the copy declares wsse, which it had from wsse:Security: a prefix undeclared is refused first)
sig=$(grep -o '<ds:Signature .*</ds:Signature>' w.xml |
  sed 's#<ds:Signature #&xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" #')
awk -v s="$sig" '{sub("<soap:Header>", "<soap:Header>" s)} 1' w.xml >t.xml
expect "wsse, second Signature" 1 "a second signature" -in t.xml -CAfile a-ca.pem
finish
