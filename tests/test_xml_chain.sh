#!/usr/bin/env bash
# gostx xml verify's chain: the signer's certificate is trusted only through
# a path to an anchor of -CAfile (lib/x509, as gostx x509 verify), the
# intermediates taken from the document's X509Data (sign -certfile) or from
# -untrusted; -attime moves the time checked. A refusal names the check as
# gostx x509 verify does ("error at depth D: <status>" and the failing
# certificate's subject); each status line is compared with x509 verify's
# for the same certificates and time.
. "$(dirname "$0")/cli_common.sh" xml_chain
. "$here/support/xml_common.sh"
{ "$G" genpkey -c 256A -o root.key && "$G" req -x509 -ca -key root.key -subj "/CN=Root" -days 30 -out root.pem &&
  "$G" genpkey -c 256A -o inter.key && "$G" req -new -key inter.key -subj "/CN=Inter" -out inter.csr &&
  "$G" x509 -req -in inter.csr -CA root.pem -CAkey root.key -days 20 -extfile ca.ext -out inter.pem &&
  "$G" genpkey -c 256A -o leaf.key && "$G" req -new -key leaf.key -subj "/CN=Leaf" -out leaf.csr &&
  "$G" x509 -req -in leaf.csr -CA inter.pem -CAkey inter.key -days 10 -extfile leaf.ext -out leaf.pem
} 2>/dev/null || bad "pki"
pki other 256A
printf '<?xml version="1.0"?>\n<r><d Id="d1">hello</d></r>\n' >doc.xml
now=$(date +%s)
# same NAME ATTIME xml-verify-args...: the refusal's "error at depth" line is
# x509 verify's for the leaf (with -untrusted inter.pem) at ATTIME
same() {
  local name=$1 at=$2
  shift 2
  expect "$name" 1 "certificate chain: error at depth" "$@" -attime "$at"
  "$G" x509 verify -CAfile root.pem -untrusted inter.pem -attime "$at" leaf.pem 2>x509.err >/dev/null
  local want
  want=$(grep -o 'error at depth.*' x509.err)
  [ -n "$want" ] && grep -qF -- "$want" err && ok || bad "$name: not x509 verify's status: $(cat err) / $want"
}

sign -in doc.xml -ref d1 -key leaf.key -cert leaf.pem -out s.xml
expect "no intermediate" 1 "issuer: no trusted issuer found (unknown CA)" -in s.xml -CAfile root.pem
grep -q "^CN=Leaf" err && ok || bad "the subject of the certificate that failed: $(cat err)"
expect "-untrusted" 0 "Verified OK" -in s.xml -CAfile root.pem -untrusted inter.pem
check "-untrusted: the signed octets" [ "$(cat out)" = '<d Id="d1">hello</d>' ]
expect "the intermediate as anchor" 0 "Verified OK" -in s.xml -CAfile inter.pem
# the intermediate in the document's X509Data (sign -certfile)
sign -in doc.xml -ref d1 -key leaf.key -cert leaf.pem -certfile inter.pem -out s2.xml
[ "$(grep -o '<ds:X509Certificate>' s2.xml | wc -l)" = 2 ] && ok || bad "-certfile: not two certificates in X509Data"
expect "X509Data's intermediate" 0 "Verified OK" -in s2.xml -CAfile root.pem
expect "another anchor" 1 "unknown CA" -in s2.xml -CAfile other-ca.pem
# -attime: the leaf (10 days) expired before the intermediate (20 days)
same "expired" $((now + 15 * 86400)) -in s2.xml -CAfile root.pem
grep -q "validity: certificate has expired" err && ok || bad "expired: $(cat err)"
same "the intermediate expired" $((now + 25 * 86400)) -in s2.xml -CAfile root.pem
grep -q "error at depth 1" err && grep -q "^CN=Inter" err && ok || bad "the intermediate's depth: $(cat err)"
same "not yet valid" $((now - 86400)) -in s.xml -CAfile root.pem -untrusted inter.pem
grep -q "not yet valid" err && ok || bad "not yet valid: $(cat err)"
expect "-attime within" 0 "Verified OK" -in s.xml -CAfile root.pem -untrusted inter.pem -attime $((now + 5 * 86400))
# a leaf as "intermediate" (not a CA) is no issuer: basicConstraints
{ "$G" genpkey -c 256A -o l2.key && "$G" req -new -key l2.key -subj "/CN=Leaf2" -out l2.csr &&
  "$G" x509 -req -in l2.csr -CA leaf.pem -CAkey leaf.key -days 5 -extfile leaf.ext -out l2.pem; } 2>/dev/null
sign -in doc.xml -ref d1 -key l2.key -cert l2.pem -certfile leaf.pem -out s3.xml
expect "an issuer not a CA" 1 "basicConstraints: the issuer is not a CA" -in s3.xml -CAfile root.pem -untrusted inter.pem
# refusals of the options
"$G" xml verify -in s.xml -CAfile root.pem -untrusted doc.xml >out 2>err
[ $? != 0 ] && [ ! -s out ] && ok || bad "-untrusted of no certificate"
"$G" xml sign -wsse -in doc.xml -ref d1 -key leaf.key -cert leaf.pem -certfile inter.pem -out t.xml 2>err
[ $? = 1 ] && grep -q "unsupported" err && ok || bad "-wsse -certfile: $(cat err)"
finish
