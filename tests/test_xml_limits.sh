#!/usr/bin/env bash
# gostx xml's limits on what a document holds (xmldsig.h, checked by
# integrations/xmldsig/scan.c before libxml2 parses a byte): libxml2 2.9's
# parser and C14N are quadratic in one element's attributes, so 100,000 of
# them (1.3 MB) once ran for minutes. Each limit refused by name, in memory
# and streamed, signed or verified, within a (load-scaled) timeout; a
# document at each limit still signed and verified; the encodings that
# would hide markup from the scan refused, a windows-1251 one read.
. "$(dirname "$0")/cli_common.sh" xml_limits
. "$here/support/xml_common.sh"
pki a 256A

# attrs N: an element with N attributes in a document signed by Id
attrs() {
  awk -v n="$1" 'BEGIN { printf "<r xmlns=\"urn:a\"><e Id=\"e\""
    for (i = 1; i < n; i++) printf " a%d=\"v\"", i; print "/></r>" }'
}
# the signed document FILE goes into to reach the streaming verifier,
# which stops at a root that is not a Signature: an Object after its own
attrs 2 >small.xml
sign -stream -enveloping -in small.xml -ref '' -key a.key -cert a.pem -out small-s.xml
signed=$(cat small-s.xml)
# refused NAME GREP FILE: sign and verify, in memory and streamed, each
# refuse FILE naming GREP, well within the timeout (FILE with an XML
# declaration is verified streamed as it is, else inside an Object)
refused() {
  local name=$1 grep=$2 f=$3 rc in
  for s in "" -stream; do
    timeout 10 "$G" xml sign $s -enveloping -in "$f" -ref '' -key a.key -cert a.pem -out t.xml 2>err
    rc=$?
    [ $rc = 1 ] && grep -q -- "$grep" err && ok || bad "$name: sign $s: rc $rc, $(cat err)"
    in=$f
    if [ "$s" ] && [ "$(head -c 5 "$f")" != "<?xml" ]; then
      { printf '%s<ds:Object>' "${signed%</ds:Signature>*}"; cat "$f"; printf '</ds:Object></ds:Signature>\n'; } >in.xml
      in=in.xml
    fi
    timeout 10 "$G" xml verify $s -in "$in" -CAfile a-ca.pem >out 2>err
    rc=$?
    [ $rc = 1 ] && grep -q -- "$grep" err && ok || bad "$name: verify $s: rc $rc, $(cat err)"
  done
}

# the attribute bomb: 100,000 attributes on one element
attrs 100000 >bomb.xml
refused "100,000 attributes" "<e> has over 256 attributes" bomb.xml
# at the limit: signed and verified both ways, c14n 1.0 and the SMEV transform too
attrs 256 >at.xml
sign -in at.xml -ref e -key a.key -cert a.pem -out s.xml
expect "256 attributes" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
sign -in at.xml -ref e -c14n -smev -key a.key -cert a.pem -out s.xml # xmlns="urn:a" added on <e>
expect "256 attributes, c14n 1.0 + SMEV" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
sign -stream -enveloping -in at.xml -ref '' -key a.key -cert a.pem -out s.xml
expect "256 attributes, streamed" 0 "Verified OK" -stream -in s.xml -CAfile a-ca.pem
attrs 257 >over.xml
refused "257 attributes" "<e> has over 256 attributes" over.xml
# namespace declarations count: 100 of them and 200 attributes
awk 'BEGIN { printf "<e"; for (i = 0; i < 100; i++) printf " xmlns:p%d=\"urn:%d\"", i, i
  for (i = 0; i < 200; i++) printf " a%d=\"v\"", i; print "/>" }' >ns.xml
refused "100 declarations and 200 attributes" "<e> has over 256 attributes" ns.xml
# and those in scope at once (inclusive c14n writes them all on its apex):
# 254 and the Signature's ds taken, c14n 1.0 and the SMEV transform over
# 256 attributes below them too; 258 refused
nsdeep() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i += 2) printf "<p xmlns:p%d=\"urn:%d\" xmlns:q%d=\"urn:q\">", i, i, i
  printf "<e Id=\"e\""; for (i = 1; i < 256; i++) printf " a%d=\"v\"", i; printf "/>"
  for (i = 0; i < n; i += 2) printf "</p>"; print "" }'; }
nsdeep 254 >ns.xml
sign -in ns.xml -ref e -c14n -smev -key a.key -cert a.pem -out s.xml
expect "255 declarations in scope, c14n 1.0 + SMEV" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
nsdeep 258 >ns.xml
refused "258 declarations in scope" "over 256 namespace declarations in scope" ns.xml
# a quote in a value does not hide the attributes after a '<' (libxml2 ends the value there)
{ printf '<r><x a="'; attrs 100000; printf '"/></r>'; } >q.xml
refused "attributes after a '<' in a value" "has over 256 attributes" q.xml

# nesting: 256 elements deep signed and verified, 257 refused
deep() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "<a>"; for (i = 0; i < n; i++) printf "</a>"; print "" }'; }
deep 256 >d256.xml
sign -in d256.xml -ref '' -key a.key -cert a.pem -out s.xml
expect "256 deep" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
deep 257 >d257.xml
refused "257 deep" "elements nested over 256 deep" d257.xml

# names: 1024 bytes taken, 1025 refused (an element's, an attribute's)
n1024=$(printf 'n%.0s' $(seq 1024))
printf '<r><%s %s="v"/></r>\n' "$n1024" "$n1024" >n.xml
sign -in n.xml -ref '' -key a.key -cert a.pem -out s.xml
expect "a name of 1024 bytes" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
printf '<r><%sx/></r>\n' "$n1024" >n.xml
refused "an element's name of 1025 bytes" "a name over 1024 bytes" n.xml
printf '<r><e %sx="v"/></r>\n' "$n1024" >n.xml
refused "an attribute's name of 1025 bytes" "a name over 1024 bytes" n.xml

# nodes, in a document read whole (streamed, the reader keeps few)
# (an element and a text node each 5 bytes: 8 Mi of them in 20 MiB)
{ printf '<r>'; yes 'x<a/>' | head -n $((4 << 20)) | tr -d '\n'; printf '</r>'; } >nodes.xml
timeout 10 "$G" xml verify -in nodes.xml -CAfile a-ca.pem >out 2>err
[ $? = 1 ] && grep -q "over 8388608 nodes" err && ok || bad "8 Mi nodes: $(cat err)"

# encodings: one that could hide markup (UTF-7: "+ADw-" is '<') refused by
# name, a single-byte one read
printf '<?xml version="1.0" encoding="UTF-7"?>\n<r>+ADw-e/+AD4-</r>\n' >u7.xml
refused "UTF-7" 'encoding "UTF-7"' u7.xml
printf '<?xml version="1.0" encoding="windows-1251"?>\n<r Id="w">\xef\xf0\xe8\xe2\xe5\xf2</r>\n' >w.xml
sign -in w.xml -ref w -key a.key -cert a.pem -out s.xml
expect "windows-1251" 0 "Verified OK" -in s.xml -CAfile a-ca.pem
check "windows-1251: the text as UTF-8" grep -q "$(printf '\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82')" out
finish
