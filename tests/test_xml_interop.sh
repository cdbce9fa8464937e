#!/usr/bin/env bash
# gostx xml against a second implementation (tests/support/xmldsig_lxml.py:
# lxml's parser and exclusive C14N, openssl + gost-engine's Streebog and
# GOST R 34.10-2012), both ways, 256- and 512-bit keys: it verifies gostx's
# enveloped signatures by Id (and the octets both say were signed agree),
# gostx verifies its, one with an InclusiveNamespaces PrefixList, and one
# under exc-c14n#WithComments, whose Reference by Id keeps no comment.
# Skips (77) without gostx xml, lxml or gost-engine.
. "$(dirname "$0")/cli_common.sh" xml_interop
"$G" xml --help >/dev/null 2>&1 || { echo "SKIP: gostx built without libxml2"; exit 77; }
PY=
for p in python3 /usr/bin/python3; do "$p" -c 'import lxml' 2>/dev/null && PY=$p && break; done
[ -n "$PY" ] || { echo "SKIP: python3-lxml not installed"; exit 77; }
openssl engine gost >/dev/null 2>&1 || { echo "SKIP: openssl gost engine unavailable"; exit 77; }
export GOST_ENGINE_CNF=$here/support/gost_engine.cnf
PEER=$here/support/xmldsig_lxml.py
cd "$T" || exit 1
printf 'basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign\n' >ca.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\n' >leaf.ext
cat >doc.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<root xmlns="urn:a" xmlns:b="urn:b">
  <b:data Id="d1" z="1" a="2">hello <x/> &amp; more</b:data>
</root>
X
for c in 256A 512A; do
  bits=${c%?}
  rm -f ca.key k.key # genpkey never replaces a file
  { "$G" genpkey -c "$c" -o ca.key && "$G" req -x509 -ca -key ca.key -subj "/CN=CA $c" -days 30 -out ca.pem &&
    "$G" genpkey -c "$c" -o k.key && "$G" req -new -key k.key -subj "/CN=k $c" -out k.csr &&
    "$G" x509 -req -in k.csr -CA ca.pem -CAkey ca.key -days 10 -extfile leaf.ext -out k.pem; } 2>/dev/null ||
    bad "pki $c"
  "$G" xml sign -in doc.xml -ref d1 -key k.key -cert k.pem -out g.xml || bad "gostx sign $c"
  if "$PY" "$PEER" verify g.xml >peer.out; then ok; else bad "lxml+openssl verifies gostx's ($c)"; fi
  "$G" xml verify -in g.xml -CAfile ca.pem >gostx.out 2>/dev/null || bad "gostx verifies its own ($c)"
  check "the same signed octets ($c)" cmp -s peer.out gostx.out
  sed 's/hello/hellO/' g.xml >t.xml
  "$PY" "$PEER" verify t.xml >/dev/null 2>&1 && bad "lxml+openssl took a changed document ($c)" || ok
  "$PY" "$PEER" sign doc.xml d1 k.key k.pem "$bits" p.xml || bad "lxml+openssl sign $c"
  "$G" xml verify -in p.xml -CAfile ca.pem >out 2>err && ok || bad "gostx verifies lxml+openssl's ($c): $(cat err)"
  check "its signed octets ($c)" cmp -s out peer.out
done
# exc-c14n's InclusiveNamespaces PrefixList: the declaration of "keep", which
# the element does not use, is in what was signed
sed 's#<root #<root xmlns:keep="urn:keep" #' doc.xml >doc2.xml
"$PY" "$PEER" sign doc2.xml d1 k.key k.pem 512 p2.xml keep || bad "lxml+openssl sign with a PrefixList"
"$G" xml verify -in p2.xml -CAfile ca.pem >out 2>err && ok || bad "gostx verifies a PrefixList: $(cat err)"
grep -q 'xmlns:keep="urn:keep"' out && ok || bad "the PrefixList's declaration not in the signed octets"
# exc-c14n#WithComments after URI="#d1": the reference is dereferenced
# without comments (XMLDSig 1.1 4.3.3.3), so the one inside d1 is not signed
sed 's#hello #hello <!-- note --> #' doc.xml >doc3.xml
"$PY" "$PEER" sign doc3.xml d1 k.key k.pem 512 p3.xml "" comments || bad "lxml+openssl sign #WithComments"
grep -q 'xml-exc-c14n#WithComments' p3.xml && grep -q '<!-- note -->' p3.xml && ok || bad "p3.xml: no WithComments or comment"
"$G" xml verify -in p3.xml -CAfile ca.pem >out 2>err && ok || bad "gostx verifies #WithComments by Id: $(cat err)"
! grep -q note out && grep -q hello out && ok || bad "#WithComments by Id: a comment in the signed octets: $(cat out)"
sed 's#<!-- note -->#<!-- changed -->#' p3.xml >t.xml
"$G" xml verify -in t.xml -CAfile ca.pem >/dev/null 2>err && ok || bad "the unsigned comment changed: $(cat err)"
finish
