#!/usr/bin/env bash
# gostx xml's streaming path (enveloping signatures in bounded memory;
# docs/XMLDSIG.md, "Big documents"): -stream forces it on small documents,
# whose signatures the in-memory (DOM) path must verify with the same signed
# octets, and the other way round; a changed byte deep in the Object is a
# digest mismatch that leaves no output; the safety rules hold (DOCTYPE,
# duplicated Id, second Signature, forms not streamed); a failed run leaves
# the output untouched; and a document over the old 64 MiB cap is signed and
# verified, what was signed compared with what it must be byte for byte.
. "$(dirname "$0")/cli_common.sh" xml_stream
. "$here/support/xml_common.sh"
pki a 256A
pki b 512A
D='xmlns:ds="http://www.w3.org/2000/09/xmldsig#"'
cat >doc.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<!-- outside --><?pi before?>
<root xmlns="urn:a" xmlns:b="urn:b" xmlns:ds="urn:not-dsig"><b:data Id="d1">hello <x a="1" b:t="&#9;q&quot;"/><!-- c -->
<![CDATA[<&>]]>&#13;</b:data><ds:other>unsigned &amp; &gt;</ds:other><?inner pi?>
<k xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:KeyName>the Object's prefix</ds:KeyName></k></root>
X

# streamed and in memory, both ways, the same signed octets
sign -stream -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out s.xml
expect "streamed, verified in memory" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
cp out dom.out
expect "streamed, verified streamed" 0 "Verified OK" -stream -in s.xml -CAfile a-ca.pem
check "streamed: the same octets both ways" cmp -s out dom.out
sign -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out d.xml
expect "in memory, verified streamed" 0 "Verified OK" -stream -in d.xml -CAfile a-ca.pem
check "in memory and streamed signers: the same signed octets" cmp -s out dom.out
check "the octets: the Object's exclusive c14n" grep -q "^<ds:Object $D Id=\"object\"><root xmlns=\"urn:a\"><b:data xmlns:b=\"urn:b\" Id=\"d1\">hello <x a=\"1\" b:t=\"&#x9;q&quot;\"></x>" out
head -c 300 s.xml | tr -d '\n' | grep -q '^<?xml[^>]*?><ds:Signature ' && ok || bad "streamed: the Signature not the root"
sign -stream -enveloping -in doc.xml -ref obj7 -key b.key -cert b.pem -out s7.xml
expect "streamed, -ref names the Object, 512 bits" 0 "Verified OK" -in s7.xml -CAfile b-ca.pem
expect "the same, streamed" 0 "Verified OK" -stream -in s7.xml -CAfile b-ca.pem -out-signed o7
grep -q '<ds:Object Id="obj7">' s7.xml && grep -q 'Id="obj7"' o7 && ok || bad "streamed: the Object's Id"

# a byte changed deep in the Object: refused, nothing written
sed 's#unsigned &amp;#unsigned &amp;!#' s.xml >t.xml
echo old >o.txt
expect "streamed, content changed" 1 "digest mismatch" -stream -in t.xml -CAfile a-ca.pem -out-signed o.txt
check "a refusal leaves -out-signed as it was" [ "$(cat o.txt)" = old ]
expect "streamed, content changed, to stdout" 1 "digest mismatch" -stream -in t.xml -CAfile a-ca.pem
check "a refusal writes nothing to stdout" [ ! -s out ]
expect "streamed, another CA" 1 "certificate chain" -stream -in s.xml -CAfile b-ca.pem

# the safety rules on the streaming path
{ echo '<!DOCTYPE r [<!ENTITY e "x">]>'; tail -n +2 doc.xml; } >dtd.xml
"$G" xml sign -stream -enveloping -in dtd.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "DTD refused" err && ok || bad "streamed sign, DOCTYPE: $(cat err)"
{ echo '<!DOCTYPE ds:Signature [<!ENTITY e "x">]>'; tail -n +2 s.xml; } >t.xml
expect "streamed verify, DOCTYPE" 1 "DTD refused" -stream -in t.xml -CAfile a-ca.pem
printf '\xff\xfe<\0r\0/\0>\0' >u16.xml
"$G" xml sign -stream -enveloping -in u16.xml -ref '' -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "ASCII-compatible" err && ok || bad "streamed sign, UTF-16: $(cat err)"
sed 's#<ds:Object Id="object">#<ds:Object Id="object">forged</ds:Object>&#' s.xml >t.xml
expect "streamed, duplicated Id (first)" 1 "duplicate Id" -stream -in t.xml -CAfile a-ca.pem
sed 's#</ds:Signature>#<ds:Object Id="object">forged</ds:Object>&#' s.xml >t.xml
expect "streamed, duplicated Id (after)" 1 "duplicate Id" -stream -in t.xml -CAfile a-ca.pem
sed 's#<ds:Object Id="object">#<ds:Object><root xmlns="urn:a">forged</root></ds:Object>&#' s.xml >t.xml
expect "streamed, a forged Object first" 0 "Verified OK" -stream -in t.xml -CAfile a-ca.pem
grep -q forged t.xml && ! grep -q forged out && ok || bad "streamed: the forged Object in the output"
sed 's#<ds:KeyInfo>#<ds:KeyInfo Id="object">#' s.xml >t.xml
expect "streamed, the Object's Id on KeyInfo" 1 "duplicate Id" -stream -in t.xml -CAfile a-ca.pem
sig=$(tr -d '\n' <d.xml | grep -o '<ds:Signature .*</ds:Signature>')
tr -d '\n' <s.xml | awk -v s="$sig" '{sub("<b:data Id=\"d1\">", "&" s)} 1' >t.xml
expect "streamed, a second Signature" 1 "a second signature" -stream -in t.xml -CAfile a-ca.pem
sign -in doc.xml -ref d1 -key a.key -cert a.pem -out env.xml
expect "streamed, an enveloped signature" 1 "only an enveloping signature streams" -stream -in env.xml -CAfile a-ca.pem
sed 's#URI="\#object"#URI="\#d1"#' s.xml >t.xml
expect "streamed, the Reference to an element inside" 1 "digest mismatch" -stream -in t.xml -CAfile a-ca.pem
sign -enveloping -smev -in doc.xml -ref '' -key a.key -cert a.pem -out smev.xml
expect "streamed, the SMEV transform" 1 "streamed verification takes exclusive c14n" -stream -in smev.xml -CAfile a-ca.pem
expect "  ... in memory it verifies" 0 "Verified OK" -in smev.xml -CAfile a-ca.pem
"$G" xml sign -stream -in doc.xml -ref d1 -key a.key -cert a.pem -out t.xml 2>err
[ $? = 2 ] && grep -q "enveloping only" err && ok || bad "sign -stream, enveloped: $(cat err)"
"$G" xml sign -stream -enveloping -in doc.xml -ref d1 -key a.key -cert a.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "duplicate Id" err && ok || bad "streamed sign, an Id of the content: $(cat err)"

# a failed run leaves the output as it was and no temporary file
mkdir od && echo old >od/s.xml
{ head -c 300 doc.xml; echo '</wrong>'; } >cut.xml
"$G" xml sign -stream -enveloping -in cut.xml -ref '' -key a.key -cert a.pem -out od/s.xml 2>err
[ $? = 1 ] && grep -q "malformed" err && ok || bad "streamed sign, malformed: $(cat err)"
check "a failed sign leaves -out as it was" [ "$(cat od/s.xml)" = old ]
check "a failed sign leaves no temporary file" [ "$(ls -A od)" = s.xml ]
"$G" xml sign -stream -enveloping -in doc.xml -ref '' -key a.key -cert a.pem -out - >p.xml 2>err ||
  bad "streamed sign to stdout: $(cat err)"
expect "streamed sign to stdout" 0 "Verified OK" -in p.xml -CAfile a-ca.pem
"$G" xml verify -stream -in - -CAfile a-ca.pem <s.xml >out 2>err && cmp -s out dom.out && ok ||
  bad "streamed verify from stdin: $(cat err)"

# over the old in-memory cap (64 MiB): 65 MiB of text paragraphs
awk 'BEGIN { printf "<?xml version=\"1.0\"?>\n<data xmlns=\"urn:t\">\n"; s = "";
  for (i = 0; i < 64; i++) s = s "paragraph text ";
  for (i = 0; i < 70000; i++) printf "<p n=\"%d\">%s</p>\n", i, s; print "</data>" }' >big.xml
check "the document is over 64 MiB" [ "$(stat -c %s big.xml)" -gt 67108864 ]
# signed from a pipe (its first 64 MiB read, then streamed), verified from the file
cat big.xml | "$G" xml sign -enveloping -in - -ref '' -key a.key -cert a.pem -out big-s.xml 2>err ||
  bad "over 64 MiB, from a pipe: $(cat err)"
"$G" xml verify -in big-s.xml -CAfile a-ca.pem -out-signed big.out 2>err && grep -q "Verified OK" err && ok ||
  bad "over 64 MiB: $(cat err)"
{ printf '<ds:Object %s Id="object">' "$D"; tail -n +2 big.xml | head -c -1; printf '</ds:Object>'; } |
  cmp -s - big.out && ok || bad "over 64 MiB: what was signed is not the document's c14n"
rm -f big.out big.xml
sed 's#<p n="60000">paragraph#<p n="60000">Paragraph#' big-s.xml >t.xml && rm big-s.xml
expect "over 64 MiB, a byte changed at 60 MB" 1 "digest mismatch" -in t.xml -CAfile a-ca.pem
finish
