#!/usr/bin/env bash
# gostx x509 verify over tests/support/gost_pki.sh's PKI: the good chain of
# every curve and the GOST R 34.10-2001 chain pass; each bad one is refused
# (exit 2) naming its check and depth; and `openssl verify -engine gost`
# gives the same verdict on the same files and options. Then -CApath,
# -attime, wildcards, the usage errors, and gostx x509 show.
. "$(dirname "$0")/cli_common.sh" x509_cli
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "openssl with gost-engine not found: skipping"; exit 77; }
bash "$here/support/gost_pki.sh" "$T/pki" --paths || exit 1
cd "$T/pki" || exit 1
export OPENSSL_CONF=/dev/null

# verdicts WANT GREP ARGS...: gostx x509 verify ARGS with gx_extra's (rc,
# $T/out, $T/err) and openssl verify ARGS with ossl_extra's (orc, $T/oout);
# 0 when gostx exited WANT and said GREP (when given) on stderr, else a
# failure named.
ossl_extra=() gx_extra=()
verdicts() {
  local want=$1 grep=$2
  shift 2
  "$G" x509 verify "${gx_extra[@]}" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  openssl verify -engine gost "${ossl_extra[@]}" "$@" >"$T/oout" 2>&1
  orc=$?
  if [ $rc != "$want" ]; then
    why="gostx exit $rc, want $want: $(cat "$T/out" "$T/err")"
  elif [ "$want" = 0 ] && ! grep -q ": OK$" "$T/out"; then
    why="no OK line"
  elif [ -n "$grep" ] && ! grep -q -- "$grep" "$T/err"; then
    why="'$grep' not said: $(cat "$T/err")"
  else
    return 0
  fi
  return 1
}

# both VERDICT WANT_RC [GREP] -- ARGS...: gostx x509 verify ARGS must exit
# WANT_RC (and, when GREP is given, say it on stderr); openssl verify the
# same ARGS must agree (0 with 0, a refusal with a refusal).
both() {
  local what=$1 want=$2 grep=$3
  shift 4
  if ! verdicts "$want" "$grep" "$@"; then
    bad "$what: $why"
  elif [ $((orc == 0)) != $((want == 0)) ]; then
    bad "$what: openssl exit $orc disagrees: $(cat "$T/oout")"
  else
    ok
  fi
}

srv=(-CAfile ca.pem -untrusted int.pem -purpose sslserver)
for c in 256A 256B 256C 256D 512A 512B 512C; do
  both "$c for localhost" 0 "" -- "${srv[@]}" -verify_hostname localhost "leaf-$c.pem"
  both "$c for 127.0.0.1, client" 0 "" -- -CAfile ca.pem -untrusted int.pem -purpose sslclient \
    -verify_ip 127.0.0.1 "leaf-$c.pem"
done
both "2001 chain" 0 "" -- -CAfile old-ca.pem -purpose sslserver -verify_hostname localhost \
  -untrusted old-ca.pem old-leaf.pem

both expired 2 "depth 0: validity: certificate has expired" -- "${srv[@]}" bad-expired.pem
both notyet 2 "depth 0: validity: certificate is not yet valid" -- "${srv[@]}" bad-notyet.pem
both "wrong name" 2 "depth 0: subjectAltName" -- "${srv[@]}" -verify_hostname localhost bad-name.pem
both "wrong IP" 2 "depth 0: subjectAltName" -- "${srv[@]}" -verify_ip 127.0.0.1 bad-name.pem
both "no digitalSignature" 2 "depth 0: keyUsage" -- "${srv[@]}" bad-keyusage.pem
both "no serverAuth" 2 "depth 0: extendedKeyUsage" -- "${srv[@]}" bad-eku.pem
both "CA:false issuer" 2 "depth 1: basicConstraints" -- -CAfile ca.pem -untrusted int-notca.pem \
  -purpose sslserver bad-notca.pem
check "the failed certificate's subject is printed" grep -q "^CN=gostx test not-a-CA" "$T/err"
both "unknown CA" 2 "depth 1: issuer" -- -CAfile ca.pem -untrusted rogue-ca.pem bad-unknownca.pem
both "no intermediate" 2 "depth 0: issuer" -- -CAfile ca.pem leaf-256A.pem
both "bad signature" 2 "depth 0: signature" -- "${srv[@]}" bad-signature.pem
both "critical extension" 2 "depth 0: extensions" -- "${srv[@]}" bad-critical.pem
both "path length" 2 "depth 2: pathLenConstraint" -- -CAfile ca.pem -untrusted chain-bad-pathlen.pem \
  bad-pathlen.pem
both "wrong root" 2 "depth 1: issuer" -- -CAfile old-ca.pem -untrusted int.pem leaf-256A.pem
# the refusals that are about a purpose: fine without it
both "keyUsage, any purpose" 0 "" -- -CAfile ca.pem -untrusted int.pem bad-keyusage.pem
both "EKU clientAuth, as a client" 0 "" -- -CAfile ca.pem -untrusted int.pem -purpose sslclient \
  bad-eku.pem
# -attime: in ten years the leaf has expired; in 2065, within the notyet
# leaf's time, the root (anchors are checked too) has
both "attime 2040" 2 "validity: certificate has expired" -- "${srv[@]}" -attime 2208988800 leaf-256A.pem
both "attime 2065: the anchor has expired too" 2 "depth 2: validity: certificate has expired" -- \
  -CAfile ca.pem -untrusted int.pem -attime 3000000000 bad-notyet.pem
# wildcards (RFC 6125): one whole left-most label
both "wildcard" 0 "" -- "${srv[@]}" -verify_hostname a.wild.test leaf-wild.pem
both "wildcard, two labels" 2 "subjectAltName" -- "${srv[@]}" -verify_hostname a.b.wild.test leaf-wild.pem
both "wildcard, no label" 2 "subjectAltName" -- "${srv[@]}" -verify_hostname wild.test leaf-wild.pem
both "IPv6" 0 "" -- "${srv[@]}" -verify_ip ::1 leaf-wild.pem

# RFC 5280 path processing (gost_pki.sh's header; the NIST PKITS sections)
pkits() { # pkits SECTION FILE WANT_RC [GREP [ARGS...]]: FILE verified to ca.pem, its chain beside it
  both "$1 ($2)" "$3" "${4:-}" -- -CAfile ca.pem -untrusted "chain-$2.pem" "${@:5}" "$2.pem"
}
# nc-int's nameConstraints are not critical, which RFC 5280's profile
# refuses (4.2.1.10; below): its constraints as openssl applies them, lax
gx_extra=(-x509_lax)
pkits "4.13 DNS, IPv4, IPv6, email within permitted" nc-ok 0
pkits "4.13 DNS outside permitted, non-critical" nc-dns 2 \
  "depth 0: name constraints: DNS:www.evil.test not within permitted subtrees of CN=gostx nc CA"
pkits "4.13 DNS in excluded" nc-excl 2 "DNS:x.bad.good.test within excluded subtrees"
pkits "4.13 IPv4 outside permitted" nc-ip 2 "IP:192.168.1.1 not within permitted"
pkits "4.13 IPv4 in excluded" nc-ipexcl 2 "IP:10.9.1.1 within excluded"
pkits "4.13 IPv6 outside permitted" nc-ip6 2 "IP:fe80::1 not within"
pkits "4.13 rfc822Name outside permitted" nc-email 2 "email:a@evil.test not within"
pkits "4.13 emailAddress of the subject" nc-subjemail 2 "email:a@evil.test not within"
# -verify_email: rfc822Name, the domain in any case, the local part exact
pkits "-verify_email in the SAN" nc-ok 0 "" -verify_email a@GOOD.test
pkits "-verify_email, the local part in another case" nc-ok 2 \
  "depth 0: subjectAltName: no rfc822Name (nor subject emailAddress) is A@good.test" -verify_email A@good.test
gx_extra=()
pkits "4.13 critical nameConstraints, within" nc-crit-ok 0
pkits "4.13 critical nameConstraints, outside" nc-crit-dns 2 "name constraints: DNS:www.evil.test"
pkits "4.13 directoryName within" nc-dir-ok 0
pkits "4.13 directoryName within after RFC 4518 (case, spaces)" nc-dir-prep 0
pkits "4.13 directoryName outside" nc-dir-bad 2 "DirName:O=gostx test, OU=evil, CN=ok not within"
pkits "4.13 directoryName excluded" nc-dir-banned 2 "within excluded subtrees of CN=nc dir int"
pkits "4.13 self-issued intermediate exempt (6.1.3(b))" nc-dir-si-ok 0
pkits "4.13 self-issued last certificate checked" nc-dir-last 2 "depth 0: name constraints"
pkits "4.6 self-issued rollover CA not counted by pathLen (6.1.4(l))" roll-leaf 0
pkits "7.1 a PrintableString issuer, other case and spaces" enc-leaf 0
both "a path of 13 certificates" 0 "" -- -CAfile ca.pem -untrusted chain-long.pem long-leaf.pem
# policies, beside openssl with RFC 5280's initial inputs (anyPolicy)
ossl_extra=(-policy_check -policy 2.5.29.32.0)
pkits "4.8 one policy throughout, explicit required" pol-ok 0
pkits "4.8 another policy, explicit required" pol-other 2 \
  "depth 0: policies: no valid policy left at CN=localhost, O=gostx test, and the requireExplicitPolicy of CN=gostx policy CA"
pkits "4.8 no policy, explicit required" pol-none 2 "depth 0: policies: no valid policy"
pkits "4.8 anyPolicy CA" pol-any-ok 0
pkits "4.12 inhibitAnyPolicy 0, a named policy" pol-inh-ok 0
pkits "4.12 inhibitAnyPolicy 0, anyPolicy only" pol-inh-any 2 "policies: no valid policy"
pkits "4.10 the mapped policy" pol-map-ok 0
pkits "4.10 the policy mapped away" pol-map-old 2 "policies: no valid policy"
pkits "4.11 inhibitPolicyMapping 0" pol-mapinh 2 "policies: no valid policy"
pkits "4.10 anyPolicy mapped" pol-mapany 2 "depth 1: policies: policyMappings of CN=gostx anyPolicy"
ossl_extra=()

# RFC 5280's profile (docs/X509.md, "The profile"), in certificates that
# gostx itself writes: refused by default, as openssl's -x509_strict does;
# taken by -x509_lax, as openssl's default. Each a chain to ca.pem.
# profile NAME GREP OSSL_GREP: gostx refuses NAME.pem (its chain beside it)
# saying GREP, openssl -x509_strict refuses it saying OSSL_GREP, and both
# take it lax
profile() {
  ossl_extra=(-x509_strict)
  if ! verdicts 2 "$2" -CAfile ca.pem -untrusted "chain-$1.pem" "$1.pem"; then
    bad "profile $1: $why"
  elif ! grep -q "$3" "$T/oout"; then
    bad "profile $1: openssl -x509_strict does not say '$3': $(cat "$T/oout")"
  else
    ok
  fi
  ossl_extra=() gx_extra=(-x509_lax)
  both "profile $1, lax" 0 "" -- -CAfile ca.pem -untrusted "chain-$1.pem" "$1.pem"
  gx_extra=()
}
# issue NAME SUBJ ISSUER ISSUER_KEY EXT...: NAME.pem (key leaf-256B.key)
issue() {
  local name=$1 subj=$2 ca=$3 cakey=$4
  shift 4
  printf '%s\n' "$@" >"$T/$name.ext"
  "$G" req -new -key leaf-256B.key -subj "$subj" -out "$T/$name.csr" &&
    "$G" x509 -req -in "$T/$name.csr" -CA "$ca" -CAkey "$cakey" -extfile "$T/$name.ext" -out "$name.pem"
}
leaf_ext=("basicConstraints = CA:FALSE" "keyUsage = critical, digitalSignature")
ca_ext=("basicConstraints = critical, CA:TRUE" "keyUsage = critical, keyCertSign, cRLSign")
issue w-ok /CN=w-ok int.pem int.key "${leaf_ext[@]}" && cp int.pem chain-w-ok.pem
issue w-certsign /CN=w-certsign int.pem int.key "basicConstraints = CA:FALSE" \
  "keyUsage = digitalSignature, keyCertSign" && cp int.pem chain-w-certsign.pem
issue w-noaki /CN=w-noaki int.pem int.key "${leaf_ext[@]}" "authorityKeyIdentifier = none" &&
  cp int.pem chain-w-noaki.pem
issue w-noski-int /CN=w-noski-int ca.pem ca.key "${ca_ext[@]}" "subjectKeyIdentifier = none"
issue w-noski /CN=w-noski w-noski-int.pem leaf-256B.key "${leaf_ext[@]}" && cp w-noski-int.pem chain-w-noski.pem
issue w-bc-int /CN=w-bc-int ca.pem ca.key "basicConstraints = CA:TRUE" "keyUsage = critical, keyCertSign"
issue w-bc /CN=w-bc w-bc-int.pem leaf-256B.key "${leaf_ext[@]}" && cp w-bc-int.pem chain-w-bc.pem
both "gostx's own chain, -x509_strict" 0 "" -- -x509_strict -CAfile ca.pem -untrusted int.pem w-ok.pem
profile w-certsign "depth 0: profile: keyCertSign in a certificate that is not a CA" \
  "keyCertSign invalid for non-CA"
profile w-noaki "depth 0: profile: no authorityKeyIdentifier keyIdentifier" \
  "Missing Authority Key Identifier"
profile w-noski "depth 1: profile: a CA certificate without subjectKeyIdentifier" \
  "Missing Subject Key Identifier"
profile w-bc "depth 1: profile: basicConstraints of a CA not marked critical" \
  "Basic Constraints of CA cert not marked critical"

# -verify_email against the subject's emailAddress when there is no SAN
issue w-mail "/CN=w-mail/emailAddress=Ann@Mail.Test" int.pem int.key "${leaf_ext[@]}" &&
  cp int.pem chain-w-mail.pem
pkits "-verify_email, the subject's emailAddress" w-mail 0 "" -verify_email Ann@mail.TEST
pkits "-verify_email, not the subject's emailAddress" w-mail 2 "subjectAltName: no rfc822Name" \
  -verify_email ann@mail.test

# -verify_key_usage (gostx's own: openssl verify has none)
# gx WHAT WANT GREP ARGS...: gostx alone
gx() {
  local what=$1
  shift
  if verdicts "$@"; then ok; else bad "$what: $why"; fi
}
gx "-verify_key_usage, the bit there" 0 "" -CAfile ca.pem -untrusted int.pem \
  -verify_key_usage digitalSignature leaf-256A.pem
gx "-verify_key_usage, a bit missing" 2 "depth 0: keyUsage: the leaf lacks" -CAfile ca.pem \
  -untrusted int.pem -verify_key_usage digitalSignature,keyEncipherment leaf-256A.pem
gx "-verify_key_usage, no EKU asked" 0 "" -CAfile ca.pem -untrusted int.pem \
  -verify_key_usage nonRepudiation bad-keyusage.pem

# The known disagreements with openssl verify, each argued (docs/X509.md):
# differ WHAT GOSTX_RC [GREP] -- ARGS: gostx exits GOSTX_RC, openssl the other verdict
differ() {
  local what=$1 want=$2 grep=$3
  shift 4
  if ! verdicts "$want" "$grep" "$@"; then
    bad "$what: $why"
  elif [ $((orc == 0)) = $((want == 0)) ]; then
    bad "$what: openssl now agrees (exit $orc): drop it from the known differences"
  else
    ok
  fi
}
# RFC 5280 4.2.1.10: a constrained form not processed MUST be rejected (openssl processes URIs)
differ "URI constraint" 2 "gostx does not check" -- -CAfile ca.pem -untrusted chain-nc-uri.pem nc-uri.pem
# gostx's bound on the policy tree is 256 nodes (a CVE-2023-0464 guard); openssl's is higher
ossl_extra=(-policy_check -policy 2.5.29.32.0)
differ "a policy tree of 289 nodes" 2 "policies: more than 256 nodes" -- -CAfile ca.pem \
  -untrusted chain-pol-big.pem pol-big.pem
ossl_extra=()
# gostx's path limit is 32 certificates, openssl's 100
differ "a path of 34" 2 "depth 31: path length limit: no path within 32 certificates" -- \
  -CAfile ca.pem -untrusted chain-toolong.pem toolong-leaf.pem
# RFC 5280 4.2.1.10: nameConstraints must be critical (openssl -x509_strict does not check)
ossl_extra=(-x509_strict)
differ "non-critical nameConstraints" 2 "depth 1: profile: nameConstraints not marked critical" -- \
  -CAfile ca.pem -untrusted chain-nc-ok.pem nc-ok.pem
ossl_extra=()
# RFC 5280 4.2.1.6: an iPAddress is 4 or 16 octets; openssl reads no further
differ "a 5-byte iPAddress" 1 "certificate 1: extensions: an extension's value" -- \
  -CAfile ca.pem -untrusted int.pem sem/sem-ip5.pem
# RFC 6125 6.4.1 / 7.1 of RFC 9525: an absolute name is the same name
differ "a trailing dot" 0 "" -- -CAfile ca.pem -untrusted int.pem -verify_hostname localhost. leaf-256A.pem
# RFC 6125 6.4.3: the reference identifier is a name, never a pattern
differ "'*' in the reference name" 2 "subjectAltName" -- -CAfile ca.pem -untrusted int.pem \
  -verify_hostname '*.wild.test' leaf-wild.pem
# RFC 5280 4.1.2.5: the validity period includes notAfter
na=$(date -u -d "$(openssl x509 -in leaf-256A.pem -noout -enddate | cut -d= -f2)" +%s)
differ "at notAfter" 0 "" -- -CAfile ca.pem -untrusted int.pem -attime "$na" leaf-256A.pem

# -untrusted beyond the old 64, and the limit named when hit
for i in $(seq 70); do cat int.pem; done >"$T/many.pem"
check "-untrusted with 70 certificates" "$G" x509 verify -CAfile ca.pem -untrusted "$T/many.pem" leaf-256A.pem
cp int.pem "$T/dbl.pem"
for i in $(seq 10); do cat "$T/dbl.pem" "$T/dbl.pem" >"$T/dbl2.pem" && mv "$T/dbl2.pem" "$T/dbl.pem"; done
cat int.pem >>"$T/dbl.pem"
"$G" x509 verify -CAfile ca.pem -untrusted "$T/dbl.pem" leaf-256A.pem >"$T/out" 2>&1
check "1025 -untrusted certificates: the limit named" grep -q "more than 1024 certificates" "$T/out"

# the leaf's own file may carry the chain; -CApath reads a directory
check "chain in the leaf's file" "$G" x509 verify -CAfile ca.pem -purpose sslserver chain-512B.pem
mkdir "$T/anchors" && cp ca.pem old-ca.pem "$T/anchors/" && cp leaf-256A.key "$T/anchors/"
check "-CApath" "$G" x509 verify -CApath "$T/anchors" chain-256D.pem chain-old.pem
"$G" x509 verify -CApath "$T/anchors" chain-256D.pem bad-expired.pem -untrusted int.pem >"$T/out" 2>&1
check "one refusal of two: exit 2" [ $? = 2 ]
check "... the other still OK" grep -q "^chain-256D.pem: OK$" "$T/out"

# DER files; an anchor file that mixes in a root of another algorithm
openssl x509 -in leaf-512A.pem -outform DER -out "$T/leaf.der"
openssl x509 -in ca.pem -outform DER -out "$T/ca.der"
both "DER leaf" 0 "" -- -CAfile ca.pem -untrusted int.pem "$T/leaf.der"
# (openssl verify reads PEM anchors only)
check "DER anchor" "$G" x509 verify -CAfile "$T/ca.der" -untrusted int.pem "$T/leaf.der"
cat ecdsa-root.pem ca.pem >"$T/bundle.pem"
both "a mixed anchor bundle" 0 "" -- -CAfile "$T/bundle.pem" -untrusted int.pem leaf-256A.pem
"$G" x509 show "$T/leaf.der" >"$T/show" 2>&1
check "show: DER" grep -q "^key: .*512A" "$T/show"

# usage and file errors
usage() { # usage WHAT RC ARGS...
  local what=$1 want=$2
  shift 2
  "$G" x509 verify "$@" >"$T/out" 2>&1
  local rc=$?
  if [ $rc = "$want" ]; then ok; else bad "$what: exit $rc, want $want: $(cat "$T/out")"; fi
}
usage "no anchors" 2 leaf-256A.pem
usage "no certificate" 2 -CAfile ca.pem
usage "bad purpose" 2 -CAfile ca.pem -purpose smime leaf-256A.pem
usage "bad -verify_ip" 2 -CAfile ca.pem -verify_ip localhost leaf-256A.pem
usage "bad -verify_email" 2 -CAfile ca.pem -verify_email localhost leaf-256A.pem
usage "bad -verify_key_usage" 2 -CAfile ca.pem -verify_key_usage digitalSignature,sign leaf-256A.pem
usage "missing CERT" 1 -CAfile ca.pem "$T/none.pem"
usage "missing CAfile" 1 -CAfile "$T/none.pem" leaf-256A.pem
usage "a key as CAfile" 1 -CAfile leaf-256A.key leaf-256A.pem
usage "only ECDSA anchors" 1 -CAfile ecdsa-root.pem leaf-256A.pem
usage "an ECDSA CERT" 1 -CAfile ca.pem ecdsa-root.pem
check "... says why" grep -q "algorithm: not a GOST" "$T/out"
printf -- '-----BEGIN CERTIFICATE-----\nMIIB!!==\n-----END CERTIFICATE-----\n' >"$T/broken.pem"
usage "malformed CERT" 1 -CAfile ca.pem "$T/broken.pem"

"$G" x509 show chain-256C.pem >"$T/show" 2>&1
check "show: the leaf" grep -q "^subject: *CN=localhost, O=gostx test$" "$T/show"
check "show: the curve" grep -q "^key: .*256C" "$T/show"
check "show: SAN" grep -q "^subjectAltName: DNS:localhost IP:127.0.0.1$" "$T/show"
check "show: the intermediate" grep -q "^basicConstraints: CA:TRUE, pathlen:0$" "$T/show"
check "show: validity" grep -q "^notAfter: *20[0-9-]* [0-9:]* UTC$" "$T/show"
"$G" x509 show nc-int.pem pol-mapinh-int.pem pol-inh-int.pem >"$T/show" 2>&1
check "show: nameConstraints" grep -q "^nameConstraints: present$" "$T/show"
check "show: policyConstraints" grep -q "^inhibitPolicyMapping: 0$" "$T/show"
check "show: inhibitAnyPolicy" grep -q "^inhibitAnyPolicy: 0$" "$T/show"
check "--help lists x509" sh -c "'$G' --help | grep -q '^  x509 '"
check "x509 --help" sh -c "'$G' x509 --help | grep -q 'gostx x509 verify'"
check "x509 verify --help" sh -c "'$G' x509 verify --help | grep -q -- '-verify_hostname NAME'"
check "x509 show --help" sh -c "'$G' x509 show --help | grep -q 'Usage: gostx x509 show'"
"$G" x509 frobnicate >/dev/null 2>&1
check "x509 with an unknown action: exit 2" [ $? = 2 ]
finish
