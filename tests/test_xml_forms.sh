#!/usr/bin/env bash
# gostx xml: the three forms of a signature, each signed and verified with
# what was signed compared byte for byte: enveloped (inside the element it
# signs), enveloping (-enveloping: the document inside ds:Object, URI="#Id")
# and detached by Id (-detached: beside the element, or inside the empty
# *Signature element after it, as SMEV 3 places it). For each form the
# wrapping cases: the signed element moved and a forged one in its place
# (verifies; the forged text is never in what verify writes), its Id
# duplicated, a copy of the Signature elsewhere, the Reference pointed at
# another element.
. "$(dirname "$0")/cli_common.sh" xml_forms
. "$here/support/xml_common.sh"
pki a 256A
D='xmlns:ds="http://www.w3.org/2000/09/xmldsig#"'
cat >doc.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<root xmlns="urn:a" xmlns:b="urn:b"><b:data Id="d1">hello <x a="1"/></b:data><other>unsigned</other></root>
X
# wrapped FILE: the element of Id d1 moved under <other>, a forged one
# without an Id in its place
wrapped() {
  local d
  d=$(grep -o '<b:data Id="d1">.*</b:data>' "$1")
  awk -v d="$d" '{i = index($0, d); if (i) $0 = substr($0, 1, i - 1) "<b:data>forged</b:data>" substr($0, i + length(d)); sub("<other>unsigned</other>", "<other>" d "</other>")} 1' "$1"
}
forged_out() { # forged_out NAME: verified, and the forged text not in what was written
  grep -q forged t.xml && ! grep -q forged out && grep -q hello out && ok || bad "$1: forged text in the output"
}
second_sig() { # second_sig FILE: a copy of its Signature inside <other>, refused as one
  local s
  s=$(tr -d '\n' <"$1" | grep -o '<ds:Signature .*</ds:Signature>')
  tr -d '\n' <"$1" | awk -v s="$s" '{sub("<other>", "<other>" s)} 1'
}
wrapping() { # wrapping FORM FILE: the element of d1 moved, its Id duplicated, a copy of the Signature
  wrapped "$2" >t.xml
  expect "$1, moved" 0 "Verified OK" -in t.xml -CAfile a-ca.pem
  forged_out "$1, moved"
  sed 's#<other>unsigned</other>#<other Id="d1">forged</other>#' "$2" >t.xml
  expect "$1, duplicated Id" 1 "duplicate Id" -in t.xml -CAfile a-ca.pem
  second_sig "$2" >t.xml
  expect "$1, a copy of the Signature" 1 "a second signature: Signature 2 is a copy of Signature 1" -in t.xml -CAfile a-ca.pem
}

# enveloped, by Id
sign -in doc.xml -ref d1 -key a.key -cert a.pem -out env.xml
expect "enveloped" 0 "Verified OK" -in env.xml -CAfile a-ca.pem
check "enveloped octets" [ "$(cat out)" = '<b:data xmlns:b="urn:b" Id="d1">hello <x xmlns="urn:a" a="1"></x></b:data>' ]
grep -q 'enveloped-signature' env.xml && ok || bad "enveloped: no enveloped-signature transform"
wrapping enveloped env.xml

# enveloping: the Signature is the root, the document in its Object
sign -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out ing.xml
expect "enveloping" 0 "Verified OK" -in ing.xml -CAfile a-ca.pem
check "enveloping octets" [ "$(cat out)" = "<ds:Object $D Id=\"object\"><root xmlns=\"urn:a\"><b:data xmlns:b=\"urn:b\" Id=\"d1\">hello <x a=\"1\"></x></b:data><other>unsigned</other></root></ds:Object>" ]
head -c 200 ing.xml | tr -d '\n' | grep -q '^<?xml[^>]*?><ds:Signature ' && ok || bad "enveloping: the Signature not the root"
grep -q 'URI="#object"' ing.xml && ! grep -q enveloped-signature ing.xml && ok || bad "enveloping: the Reference"
sign -enveloping -in doc.xml -ref obj7 -key a.key -cert a.pem -out ing7.xml
expect "enveloping, -ref names the Object" 0 "Verified OK" -in ing7.xml -CAfile a-ca.pem
grep -q '<ds:Object Id="obj7">' ing7.xml && ok || bad "enveloping: the Object's Id"
"$G" xml sign -enveloping -in doc.xml -ref d1 -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "duplicate Id" err && ok || bad "enveloping with an Id of the content: $(cat err)"
sed 's#<ds:Object Id="object">#<ds:Object><root xmlns="urn:a">forged</root></ds:Object>&#' ing.xml >t.xml
expect "enveloping, a forged Object first" 0 "Verified OK" -in t.xml -CAfile a-ca.pem
grep -q forged t.xml && ! grep -q forged out && ok || bad "enveloping: the forged Object in the output"
sed 's#<ds:Object Id="object">#<ds:Object Id="object">forged</ds:Object>&#' ing.xml >t.xml
expect "enveloping, duplicated Id" 1 "duplicate Id" -in t.xml -CAfile a-ca.pem
sed 's#<other>unsigned</other>#<other>forged</other>#' ing.xml >t.xml
expect "enveloping, content changed" 1 "digest mismatch" -in t.xml -CAfile a-ca.pem
# another Signature put into the Object: the content it signs changed
s=$(tr -d '\n' <env.xml | grep -o '<ds:Signature .*</ds:Signature>')
tr -d '\n' <ing.xml | awk -v s="$s" '{sub("<other>", "<other>" s)} 1' >t.xml
expect "enveloping, a Signature added in the Object" 1 "Signature 1 of 2: digest mismatch" -in t.xml -CAfile a-ca.pem
sed 's#URI="\#object"#URI="\#d1"#' ing.xml >t.xml
expect "enveloping, the Reference to another element" 1 "digest mismatch\|bad signature" -in t.xml -CAfile a-ca.pem

# detached by Id: the next sibling of the element
sign -detached -in doc.xml -ref d1 -key a.key -cert a.pem -out det.xml
expect "detached" 0 "Verified OK" -in det.xml -CAfile a-ca.pem
check "detached octets" [ "$(cat out)" = '<b:data xmlns:b="urn:b" Id="d1">hello <x xmlns="urn:a" a="1"></x></b:data>' ]
tr -d '\n' <det.xml | grep -q '</b:data><ds:Signature ' && ! grep -q enveloped-signature det.xml && ok ||
  bad "detached: not beside the element"
"$G" xml sign -detached -in doc.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "bad reference" err && ok || bad "detached of the root: $(cat err)"
wrapping detached det.xml
sed 's#hello#hellO#' det.xml >t.xml
expect "detached, content changed" 1 "digest mismatch" -in t.xml -CAfile a-ca.pem
# the Reference pointed at the unsigned element (given an Id)
sed 's#<other>unsigned#<other Id="o">unsigned#; s#URI="\#d1"#URI="\#o"#' det.xml >t.xml
expect "detached, the Reference to another element" 1 "digest mismatch\|bad signature" -in t.xml -CAfile a-ca.pem

# SMEV 3's place: inside the empty CallerInformationSystemSignature that
# follows the signed element, with the SMEV transform
cat >smev.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns2:SendRequestRequest xmlns:ns2="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.2"><ns2:SenderProvidedRequestData Id="SIGNED_BY_CONSUMER"><ns2:MessageID>db0486d0-3c08-11e5-95e2-d4c9eff07b77</ns2:MessageID></ns2:SenderProvidedRequestData><ns2:CallerInformationSystemSignature/></ns2:SendRequestRequest></S:Body></S:Envelope>
X
sign -detached -smev -in smev.xml -ref SIGNED_BY_CONSUMER -key a.key -cert a.pem -out s3.xml
expect "SMEV 3 detached" 0 "Verified OK" -in s3.xml -CAfile a-ca.pem
tr -d '\n' <s3.xml | grep -q '<ns2:CallerInformationSystemSignature><ds:Signature ' && ok ||
  bad "SMEV 3: the Signature not in CallerInformationSystemSignature"
check "SMEV 3 octets" [ "$(cat out)" = '<ns1:SenderProvidedRequestData xmlns:ns1="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.2" Id="SIGNED_BY_CONSUMER"><ns1:MessageID>db0486d0-3c08-11e5-95e2-d4c9eff07b77</ns1:MessageID></ns1:SenderProvidedRequestData>' ]
"$G" xml sign -detached -enveloping -in doc.xml -ref d1 -key a.key -cert a.pem -out t.xml 2>err
[ $? = 2 ] && ok || bad "two forms at once taken"
finish
