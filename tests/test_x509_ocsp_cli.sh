#!/bin/bash
# gostx x509 verify -ocsp_resp: path validation with OCSP responses made by
# `gostx ocsp` in file mode (-reqin/-respout, no network). Good passes;
# revoked fails named with its reason, at -attime after the revocation date
# only; unknown, stale, a response signed by a responder the CA did not
# issue, and a response about another certificate (no revocation data) each
# fail by name; a bare BasicOCSPResponse reads too (what CAdES carries).
. "$(dirname "$0")/cli_common.sh" x509_ocsp
cd "$T"

"$G" genpkey -c 256A -o ca.key 2>/dev/null
"$G" req -x509 -ca -key ca.key -subj "/CN=OCSP path CA" -days 3650 -set_serial 1 -out ca.pem
"$G" genpkey -c 256A -o rogue.key 2>/dev/null
"$G" req -x509 -ca -key rogue.key -subj "/CN=OCSP path CA" -days 3650 -set_serial 1 -out rogue.pem
printf 'extendedKeyUsage = OCSPSigning\n' > rsp.ext
printf 'keyUsage = digitalSignature\n' > leaf.ext
issue() { # issue NAME SERIAL EXTFILE [CA]
  "$G" genpkey -c 256A -o "$1.key" 2>/dev/null
  "$G" req -new -key "$1.key" -subj "/CN=$1" -out "$1.csr"
  "$G" x509 -req -in "$1.csr" -CA "${4:-ca}.pem" -CAkey "${4:-ca}.key" -set_serial "$2" -days 3650 \
    -extfile "$3" -out "$1.pem"
}
issue rsp 0x2001 rsp.ext
issue rrsp 0x2002 rsp.ext rogue
issue good 0x1001 leaf.ext
issue revoked 0x1002 leaf.ext
issue unknown 0x1003 leaf.ext
printf 'V\t351231000000Z\t\t1001\tunknown\t/CN=good\n' > index.txt
printf 'R\t351231000000Z\t300101000000Z,keyCompromise\t1002\tunknown\t/CN=revoked\n' >> index.txt
respond() { # respond NAME CERT [RSIGNER [OPTS...]]: NAME.der, the response for CERT ($CA's responder)
  local name=$1 cert=$2 rs=${3:-rsp}; shift 3 2>/dev/null || shift $#
  "$G" ocsp -issuer ca.pem -cert "$cert.pem" -no_nonce -reqout "$name.req"
  "$G" ocsp -index index.txt -CA "${CA:-ca}.pem" -rsigner "$rs.pem" -rkey "$rs.key" -reqin "$name.req" \
    -respout "$name.der" "$@" 2>/dev/null
}
respond good good
respond revoked revoked
respond unknown unknown
respond stale good rsp -nmin 1
CA=rogue respond rogue good rrsp # the rogue CA's responder (gostx answers only for its own CA)
for f in good revoked unknown stale rogue; do [ -s $f.der ] || { echo "FAIL: the responses ($f)"; exit 1; }; done

v() { # v CERT RESP [ARGS...]: x509 verify, its exit status in $rc, stderr in err
  local cert=$1 resp=$2; shift 2
  "$G" x509 verify -CAfile ca.pem -ocsp_resp "$resp" "$@" "$cert.pem" > out 2> err
  rc=$?
}
said() { [ "$rc" = 2 ] && grep -q -- "$1" err || { sed 's/^/  /' err; false; }; }
v good good.der
check "good: OK" [ "$rc" = 0 ]
v revoked revoked.der
check "revoked in 2030: OK now" [ "$rc" = 0 ]
v revoked revoked.der -attime 1924992000 # 2031
check "revoked: named, with reason" said "certificate revoked (reason: keyCompromise, revoked 2030-01-01 00:00:00 UTC, by OCSP)"
v unknown unknown.der
check "unknown: named" said "the OCSP responder answered unknown"
v good stale.der -attime $(($(date +%s) + 7200))
check "stale: named" said "OCSP response is stale"
v good rogue.der
check "a responder the CA did not issue: named" said "fails its checks (responder: its certificate is not issued by the CA)"
v good revoked.der
check "a response about another certificate: no revocation data" said "no revocation data"
v good good.der -ocsp_resp revoked.der
check "two responses: the one naming the certificate decides" [ "$rc" = 0 ]
# the BasicOCSPResponse alone (the OCSPResponse's octets after its 2+3+2+2+11+2+2 byte heads)
python3 - <<'PY'
d = open("revoked.der", "rb").read()
def elt(b, i):  # (content start, end) of the DER element at i
    n = b[i + 1]
    if n < 0x80: return i + 2, i + 2 + n
    k = n & 0x7f; ln = int.from_bytes(b[i + 2:i + 2 + k], "big"); return i + 2 + k, i + 2 + k + ln
s, e = elt(d, 0)            # OCSPResponse
s, e = elt(d, elt(d, s)[1]) # [0] responseBytes (after the ENUMERATED)
s, e = elt(d, s)            # ResponseBytes SEQUENCE
s, e = elt(d, elt(d, s)[1]) # the OCTET STRING after the OID
open("basic.der", "wb").write(d[s:e])
PY
v revoked basic.der -attime 1924992000
check "a bare BasicOCSPResponse reads" said "certificate revoked (reason: keyCompromise"
printf 'junk' > junk.der
v good junk.der
check "junk: refused by name, exit 1" [ "$rc" = 1 ] && grep -q "junk.der: malformed" err
finish
