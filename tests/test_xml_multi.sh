#!/usr/bin/env bash
# gostx xml verify: every Signature of a document (issue 79). SMEV 3's
# GetResponseResponse (support/smev_response.sh) carries two: the sender's
# over SenderProvidedResponseData, moved into SenderInformationSystemSignature
# inside the Response, and SMEV's over that Response, in SMEVSignature; here
# signed by gostx with two keys of two CAs. Both verify, each named with its
# signer and what it covered; each changed in turn is named as the one that
# failed; a Signature that copies another, or whose Reference names another
# Signature's own nodes, is refused; an enveloping signature of a signed
# document verifies both.
. "$(dirname "$0")/cli_common.sh" xml_multi
. "$here/support/xml_common.sh"
. "$here/support/smev_response.sh"
pki a 256A
pki b 512A
cat a-ca.pem b-ca.pem >ab-ca.pem

smev_send
sign -detached -smev -in send.xml -ref SIGNED_BY_CALLER -key a.key -cert a.pem -out sent.xml
expect "the sender's alone" 0 "Verified OK (1 reference)" -in sent.xml -CAfile a-ca.pem
cp out sender.out
smev_response sent.xml
sign -detached -smev -in resp.xml -ref SIGNED_BY_SMEV -key b.key -cert b.pem -out both.xml
tr -d '\n' <both.xml | grep -q '<ns2:SMEVSignature><ds:Signature ' && ok || bad "SMEV's Signature not in SMEVSignature"

expect "both signatures" 0 "Verified OK (2 signatures, 2 references)" -in both.xml -CAfile ab-ca.pem
grep -qx 'Signature 1 of 2 in ns2:SenderInformationSystemSignature by CN=a: #SIGNED_BY_CALLER (ns2:SenderProvidedResponseData)' err &&
  grep -qx 'Signature 2 of 2 in ns2:SMEVSignature by CN=b: #SIGNED_BY_SMEV (ns2:Response, holding Signature 1)' err &&
  ok || bad "what each signature covered: $(cat err)"
# what was signed: the sender's octets (as it signed them alone), then SMEV's
n=$(wc -c <sender.out)
check "the sender's octets first" cmp -s -n "$n" sender.out out
[ "$(grep -o granted out | wc -l)" = 2 ] && grep -q responseIsDelivered out && ok ||
  bad "SMEV's octets: $(cat out)"
expect "one CA: SMEV's chain named" 1 "Signature 2 of 2 in ns2:SMEVSignature: certificate chain" \
  -in both.xml -CAfile a-ca.pem

# each changed in turn, the one that fails named
tamper "the sender's content changed" 1 "Signature 1 of 2 in ns2:SenderInformationSystemSignature: digest mismatch" \
  's#granted#refused#' both.xml ab-ca.pem
tamper "SMEV's metadata changed" 1 "Signature 2 of 2 in ns2:SMEVSignature: digest mismatch" \
  's#responseIsDelivered#responseIsRejected#' both.xml ab-ca.pem
sv1=$(grep -o '<ds:SignatureValue>[^<]*' both.xml | head -1 | sed 's/<ds:SignatureValue>//')
sv2=$(grep -o '<ds:SignatureValue>[^<]*' both.xml | tail -1 | sed 's/<ds:SignatureValue>//')
flip() { local c=${1:0:1}; [ "$c" = A ] && c=B || c=A; echo "$c${1:1}"; } # s's top bits changed
tamper "the sender's SignatureValue changed" 1 "Signature 1 of 2 in ns2:SenderInformationSystemSignature: bad signature" \
  "s#$sv1#$(flip "$sv1")#" both.xml ab-ca.pem
tamper "SMEV's SignatureValue changed" 1 "Signature 2 of 2 in ns2:SMEVSignature: bad signature" \
  "s#$sv2#$(flip "$sv2")#" both.xml ab-ca.pem

# wrapping between signatures: a copy of the sender's Signature beside
# SMEV's adds nothing signed: refused, as is a Reference that names another
# Signature (given an Id: the attribute is not under its SignedInfo) or its KeyInfo
s1=$(tr -d '\n' <both.xml | grep -o '<ns2:SenderInformationSystemSignature><ds:Signature .*</ds:Signature></ns2:SenderInformationSystemSignature>')
tr -d '\n' <both.xml | awk -v s="$s1" '{sub("<ns2:SMEVSignature>", s "<ns2:SMEVSignature>")} 1' >t.xml
expect "a copy of the sender's Signature" 1 "a second signature: Signature 2 is a copy of Signature 1" \
  -in t.xml -CAfile ab-ca.pem
sed 's#<ds:Signature #<ds:Signature Id="s1" #' sent.xml >s1.xml
sign -detached -in s1.xml -ref s1 -key b.key -cert b.pem -out t.xml
expect "a Reference to another Signature" 1 'Signature 2 of 2 in ns2:CallerInformationSystemSignature: a second signature: Reference "#s1" names a part of Signature 1' \
  -in t.xml -CAfile ab-ca.pem
sed 's#<ds:KeyInfo>#<ds:KeyInfo Id="k1">#' sent.xml >k1.xml
sign -in k1.xml -ref k1 -key b.key -cert b.pem -out t.xml
expect "a Reference to another Signature's KeyInfo" 1 'a second signature: Reference "#k1" names a part of Signature 1' \
  -in t.xml -CAfile ab-ca.pem

# an enveloping signature of the signed document: the sender's Signature in
# its Object names an element there (the Object's content is a document)
sign -enveloping -in sent.xml -ref '' -key b.key -cert b.pem -out ing.xml
expect "enveloping a signed document" 0 "Verified OK (2 signatures, 2 references)" -in ing.xml -CAfile ab-ca.pem
grep -qx 'Signature 1 of 2 by CN=b: #object (ds:Object, holding Signature 2)' err && ok || bad "enveloping: $(cat err)"
finish
