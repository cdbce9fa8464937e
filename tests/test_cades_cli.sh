#!/bin/bash
# CAdES-X Long Type 1 end to end with gostx alone, on 127.0.0.1: a CA
# (`gostx ca`: issues, revokes, -gencrl), a TSA (`gostx ts serve`, and
# `gostx ts -reply` files), an OCSP responder (`gostx ocsp -port`, and its
# file mode); signatures made (`cms -sign -cades`), enhanced BES -> T ->
# X Long Type 1 (`cms -enhance`: -tsa/-ocsp URLs; -tsa-reply/-tsa-query,
# -ocsp-resp and -CRLfile files), the servers stopped, then verified
# offline with only the CA (`cms -verify`: "level: CAdES-X Long Type 1").
# A signer revoked after the signature timestamp still verifies; revoked
# before, -enhance refuses and (made with -noverify) -verify refuses, both
# naming the revocation; the signature timestamp's TSA revoked before the
# CAdES-C timestamp is refused by -enhance and (with -noverify) -verify,
# after it passes; a changed certificate value and revocation value
# are refused by name; a failed run leaves -in as it was
# (tests/test_cades_tsa_cli.sh: the TSAs' own data in their tokens).
. "$(dirname "$0")/cli_common.sh" cades_cli
cd "$T" || exit 1
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

. "$here/support/cades_pki.sh" "Qualified CA"
for u in after before good; do issue $u signer.ext; done
issue tsa tsa.ext
for u in tsa_before tsa_after; do issue $u tsa.ext; done
issue rsp rsp.ext
check "PKI by gostx ca" [ "$(grep -c '^V' index.txt)" = 7 ]
echo "a document to sign, $RANDOM" > doc.txt

# the servers: ports picked by the kernel, said on stderr
"$G" ts serve -port 0 -signer tsa.pem -inkey tsa.key -serial tsa.serial -threads 2 2> ts.log &
pids+=($!)
"$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -bind 127.0.0.1 -port 0 \
  -threads 2 2> ocsp.log &
pids+=($!)
for ((i = 0; i < $(bound 50); i++)); do
  tsa_port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' ts.log)
  ocsp_port=$(sed -n 's/.*on port \([0-9]*\) .*/\1/p' ocsp.log)
  [ -n "$tsa_port" ] && [ -n "$ocsp_port" ] && break
  sleep 0.1
done
check "servers up: $(cat ts.log ocsp.log)" [ -n "$tsa_port" -a -n "$ocsp_port" ]
net=(-tsa "http://127.0.0.1:$tsa_port/" -ocsp "http://127.0.0.1:$ocsp_port/")

sign() { "$G" cms -sign -cades -in doc.txt -signer "$1.pem" -inkey "$1.key" -out "$1.bes"; }
run() { # run NAME ARGS...: gostx, exit status in $rc, stderr in NAME.err
  local name=$1; shift
  "$G" "$@" > "$name.out" 2> "$name.err"
  rc=$?
}
said() { [ "$rc" = "$1" ] && grep -q -- "$2" "$3" || { echo "  rc=$rc"; sed 's/^/  /' "$3"; false; }; }

# revoked after the signature timestamp: T now, revoked a second later, XL1 after
sign after
run t1 cms -enhance -in after.bes -to T -tsa "http://127.0.0.1:$tsa_port/" -CAfile ca.pem -out after.t
check "BES -> T over HTTP" said 0 "^level: CAdES-T$" t1.err
sleep 1.1
"$G" ca -revoke after.pem -index index.txt -cert ca.pem -crl_reason keyCompromise 2>/dev/null
sleep 1.1 # the responder reads index.txt again at most once a second
run x1 cms -enhance -in after.t -to XL1 "${net[@]}" -CAfile ca.pem -out after.xl1
check "T -> XL1 over HTTP, revoked after the timestamp" said 0 "^level: CAdES-X Long Type 1$" x1.err
run o1 ocsp -issuer ca.pem -cert after.pem -url "http://127.0.0.1:$ocsp_port/"
check "the responder said revoked (after the timestamp)" grep -q "^after.pem: revoked" o1.out

# revoked before: -enhance refuses by name; -noverify makes it anyway
"$G" ca -revoke before.pem -index index.txt -cert ca.pem -crl_reason superseded 2>/dev/null
sleep 1.1
sign before
cp before.bes before.copy
run x2 cms -enhance -in before.bes -to XL1 "${net[@]}" -CAfile ca.pem -out before.bes
check "revoked before: -enhance refuses" said 4 "certificate revoked (reason: superseded" x2.err
check "a failed run leaves -in as it was" cmp -s before.bes before.copy
run x3 cms -enhance -in before.bes -to XL1 "${net[@]}" -CAfile ca.pem -noverify -out before.xl1
check "revoked before, -noverify: made, with a warning" said 0 "warning: .*certificate revoked" x3.err

# file mode: -tsa-reply / -tsa-query with `ts -reply`, the CRL from `gostx ca -gencrl`
"$G" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -crldays 30 -out ca.crl 2>/dev/null
sign good
"$G" cms -tsa-query q1.tsq -in good.bes
"$G" ts -reply -queryfile q1.tsq -signer tsa.pem -inkey tsa.key -serial tsa.serial -out r1.tsr 2>/dev/null
run f1 cms -enhance -in good.bes -to XL1 -tsa-reply r1.tsr -tsa-query q2.tsq -CRLfile ca.crl \
  -CAfile ca.pem -outform DER -out good.xl
check "file mode: X Long made, the CAdES-C timestamp's query written" said 0 "its request written to q2.tsq" f1.err
"$G" ts -reply -queryfile q2.tsq -signer tsa.pem -inkey tsa.key -serial tsa.serial -out r2.tsr 2>/dev/null
run f2 cms -enhance -in good.xl -to XL1 -tsa-reply r2.tsr -CAfile ca.pem -outform DER -out good.xl
check "file mode: XL1 in place (-out = -in)" said 0 "^level: CAdES-X Long Type 1$" f2.err
# a signature timestamp embedded after the CAdES-C timestamp would break
# that one (it stamps the signature timestamps there are): refused, named,
# nothing written
rm -f late.sig
run f4 cms -tsa-reply r1.tsr -in good.xl -CAfile ca.pem -out late.sig
check "-tsa-reply into an XL1: refused, the CAdES-C timestamp named" \
  said 1 "covered by a CAdES-C-time-stamp" f4.err
check "  and no -out written" [ ! -e late.sig ]
run f3 cms -enhance -in good.bes -to XL1 -CRLfile ca.crl -CAfile ca.pem -out x.sig
check "no TSA: named, exit 2" said 2 "Signature timestamp is needed: -tsa URL" f3.err
run u1 cms -enhance -in good.bes -to T -tsa "https://127.0.0.1:$tsa_port/" -CAfile ca.pem -out x.sig
check "-tsa https://: the option named, exit 2" said 2 "^gostx: cms: -enhance: -tsa: https://.*(plain http only)" u1.err

# the signature timestamp's TSA judged at the CAdES-C timestamp's time with
# the CRL in revocation-values (same CA): revoked before it, -verify fails
# naming the timestamp; revoked after it (the CRL made later), it passes
tsa_xl1() { # tsa_xl1 TSA CRL OUT [ARGS]: good.bes timestamped by TSA, XL1 with CRL, the CAdES-C by tsa
  "$G" ts -reply -queryfile q1.tsq -signer "$1.pem" -inkey "$1.key" -serial tsa.serial -out "$1.tsr" 2>/dev/null
  run "$1.1" cms -enhance -in good.bes -to XL1 -tsa-reply "$1.tsr" -tsa-query "$1.q2" -CRLfile "$2" \
    -CAfile ca.pem -outform DER -out "$3" "${@:4}"
  [ "$rc" = 0 ] || return
  "$G" ts -reply -queryfile "$1.q2" -signer tsa.pem -inkey tsa.key -serial tsa.serial -out "$1.r2" 2>/dev/null
  run "$1" cms -enhance -in "$3" -to XL1 -tsa-reply "$1.r2" -CAfile ca.pem -outform DER -out "$3"
}
"$G" ts -reply -queryfile q1.tsq -signer tsa_after.pem -inkey tsa_after.key -serial tsa.serial -out tsa_after.tsr 2>/dev/null
"$G" ca -revoke tsa_before.pem -index index.txt -cert ca.pem -crl_reason keyCompromise 2>/dev/null
"$G" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -crldays 30 -out tsa1.crl 2>/dev/null
sleep 1.1 # the CAdES-C timestamp a second after the revocation
tsa_xl1 tsa_before tsa1.crl tsa_before.xl
check "a TSA revoked before: -enhance refuses (the CRL goes in its token)" \
  said 4 "signature timestamp 1: the TSA's certificate at .*certificate revoked (reason: keyCompromise" tsa_before.1.err
tsa_xl1 tsa_before tsa1.crl tsa_before.xl -noverify
check "a TSA revoked before, -noverify: enhanced" said 0 "^level: CAdES-X Long Type 1$" tsa_before.err
run v7 cms -verify -in tsa_before.xl -inform DER -content doc.txt -CAfile ca.pem
check "TSA revoked before the CAdES-C timestamp: refused, named" \
  said 4 "signature timestamp 1: the TSA's certificate at .*certificate revoked (reason: keyCompromise" v7.err

# revoked after: its index.txt line dated a day ahead, the CRL made now lists it
"$G" ca -revoke tsa_after.pem -index index.txt -cert ca.pem -crl_reason keyCompromise 2>/dev/null
python3 - <<'PY'
import datetime
later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime("%y%m%d%H%M%SZ")
lines = open("index.txt").read().splitlines()
for i, l in enumerate(lines):
    f = l.split("\t")
    if f[0] == "R" and f[-1].startswith("/CN=tsa_after"):
        f[2] = later + f[2][13:]
        lines[i] = "\t".join(f)
open("index.txt", "w").write("\n".join(lines) + "\n")
PY
"$G" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -crldays 30 -out tsa2.crl 2>/dev/null
serial=$(awk -F'\t' '$6 ~ /^\/CN=tsa_after/ {print $4}' index.txt)
check "the CRL lists the TSA revoked a day ahead" python3 -c "
import base64, sys
d = open('tsa2.crl', 'rb').read()
if d.startswith(b'-----'): d = base64.b64decode(b''.join(d.split(b'\\n')[1:-2]))
sys.exit(bytes.fromhex('$serial') not in d)"
tsa_xl1 tsa_after tsa2.crl tsa_after.xl
run v8 cms -verify -in tsa_after.xl -inform DER -content doc.txt -CAfile ca.pem
check "TSA revoked after the CAdES-C timestamp: verifies" said 0 "^level: CAdES-X Long Type 1$" v8.err
check "TSA revoked after: judged with the CRL" grep -q "signature timestamp 1: TSA certificate and revocation values: OK" v8.err

# offline: the servers gone, only the CA
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
pids=()
run v1 cms -verify -in after.xl1 -content doc.txt -CAfile ca.pem
check "offline: revoked after the timestamp verifies" said 0 "^level: CAdES-X Long Type 1$" v1.err
check "offline: judged at the timestamp's time" grep -q "Chain and revocation values: OK at the signature timestamp" v1.err
run v2 cms -verify -in before.xl1 -content doc.txt -CAfile ca.pem
check "offline: revoked before the timestamp fails, named" said 4 "certificate revoked (reason: superseded" v2.err
run v3 cms -verify -in good.xl -content doc.txt -CAfile ca.pem
check "offline: the CRL-based XL1 verifies" said 0 "^level: CAdES-X Long Type 1$" v3.err
check "offline: both TSAs judged with the CRL" grep -q "CAdES-C timestamp 1: TSA certificate and revocation values: OK" v3.err
check "offline: the TSA judged with the OCSP response -ocsp put in its token" \
  grep -q "signature timestamp 1: TSA certificate and revocation values: OK" v1.err

# tampered values: the last byte of certificate-values (the CA certificate's
# signature) and of revocation-values (the CRL's signature)
tamper() { # tamper IN OUT OID-LAST-BYTE: OUT = IN with the attribute's last byte flipped
  python3 - "$1" "$2" "$3" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
aa = bytes.fromhex("060b2a864886f70d01091002")
def values_end(i):                    # i: the attrValues SET
    n = d[i + 1]
    if n < 0x80: return i + 2 + n
    k = n & 0x7f; return i + 2 + k + int.from_bytes(d[i + 2:i + 2 + k], "big")
ts = d.index(aa + b"\x0e") + len(aa) + 1  # the signer's, after its timestamp's token (the TSA's own)
oid = aa + bytes([int(sys.argv[3])])
d[values_end(d.index(oid, values_end(ts)) + len(oid)) - 1] ^= 0x55
open(sys.argv[2], "wb").write(d)
PY
}
tamper good.xl cert.xl 23
run v4 cms -verify -in cert.xl -content doc.txt -CAfile ca.pem
check "a changed certificate value: named" said 4 "complete-certificate-references: the certificate's hash does not match" v4.err
tamper good.xl rev.xl 24
run v5 cms -verify -in rev.xl -content doc.txt -CAfile ca.pem
check "a changed revocation value: named" said 4 "the CRL's or OCSP response's hash does not match" v5.err
run v6 cms -verify -in after.xl1 -content ca.pem -CAfile ca.pem
check "other content: refused" said 4 "Verification failure" v6.err
finish
