#!/bin/bash
# A TSA's own validation data (RFC 5126 Annex B.2): `cms -enhance -to XL1`
# asks -ocsp URL about each timestamp's TSA certificate too (and takes
# -CRLfile / -ocsp-resp data for it) and puts it in the token's SignerInfo
# (complete references, certificate-values, revocation-values); `cms
# -verify` judges the TSA with it. A good TSA: judged OK from its token,
# no "no revocation values" note; a TSA revoked before the timestamp:
# -enhance refuses, and (made with -noverify) -verify refuses; revoked
# after (dated a day ahead): verifies. File mode: no data for the
# signature timestamp's TSA is a warning, a CRL given with the CAdES-C
# timestamp's reply goes into that token, and 40 days on, past its
# nextUpdate, that TSA is judged at its token's time. (tests/test_cades_cli.sh
# walks the rest; about 2 s, no waits.)
. "$(dirname "$0")/cli_common.sh" cades_tsa_cli
cd "$T" || exit 1
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

. "$here/support/cades_pki.sh" "TSA test CA"
issue signer signer.ext
for u in tsa tsa_early tsa_late; do issue $u tsa.ext; done
issue rsp rsp.ext
# tsa_early revoked a day ago, tsa_late a day ahead: the index dated so
for u in tsa_early tsa_late; do "$G" ca -revoke $u.pem -index index.txt -cert ca.pem -crl_reason keyCompromise 2>/dev/null; done
python3 - <<'PY'
import datetime
now = datetime.datetime.now(datetime.timezone.utc)
when = {"tsa_early": now - datetime.timedelta(days=1), "tsa_late": now + datetime.timedelta(days=1)}
lines = open("index.txt").read().splitlines()
for i, l in enumerate(lines):
    f = l.split("\t")
    name = f[-1].split("/")[1][3:]
    if f[0] == "R" and name in when:
        f[2] = when[name].strftime("%y%m%d%H%M%SZ") + f[2][13:]
        lines[i] = "\t".join(f)
open("index.txt", "w").write("\n".join(lines) + "\n")
PY
echo "a document, $RANDOM" > doc.txt
"$G" cms -sign -cades -in doc.txt -signer signer.pem -inkey signer.key -out doc.bes

"$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -bind 127.0.0.1 -port 0 -threads 1 2> ocsp.log &
pids+=($!)
for ((i = 0; i < $(bound 50); i++)); do
  port=$(sed -n 's/.*on port \([0-9]*\) .*/\1/p' ocsp.log)
  [ -n "$port" ] && break
  sleep 0.1
done
check "responder up: $(cat ocsp.log)" [ -n "$port" ]
url=http://127.0.0.1:$port/

run() { # run NAME ARGS...: gostx, exit status in $rc, stderr in NAME.err
  local name=$1; shift
  "$G" "$@" > "$name.out" 2> "$name.err"
  rc=$?
}
said() { [ "$rc" = "$1" ] && grep -q -- "$2" "$3" || { echo "  rc=$rc"; sed 's/^/  /' "$3"; false; }; }
reply() { # reply TSA QUERY OUT: `gostx ts -reply` by TSA
  "$G" ts -reply -queryfile "$2" -signer "$1.pem" -inkey "$1.key" -serial tsa.serial -out "$3" 2>/dev/null
}
xl1() { # xl1 NAME TSA ARGS...: doc.bes to NAME.xl1, the signature timestamp by TSA, the CAdES-C by tsa
  local name=$1 tsa=$2; shift 2
  "$G" cms -tsa-query "$name.q1" -in doc.bes
  reply "$tsa" "$name.q1" "$name.r1"
  run "$name.1" cms -enhance -in doc.bes -to XL1 -tsa-reply "$name.r1" -tsa-query "$name.q2" -CAfile ca.pem \
    -outform DER -out "$name.xl1" "$@"
  [ "$rc" = 0 ] || return
  reply tsa "$name.q2" "$name.r2"
  run "$name" cms -enhance -in "$name.xl1" -to XL1 -tsa-reply "$name.r2" -CAfile ca.pem -outform DER \
    -out "$name.xl1" "$@"
}
verify() { run "$1.v" cms -verify -in "$1.xl1" -inform DER -content doc.txt -CAfile ca.pem -out /dev/null; }

# a good TSA: -ocsp asked about it, its response in its tokens, judged with it
xl1 good tsa -ocsp "$url"
check "good TSA: enhanced" said 0 "^level: CAdES-X Long Type 1$" good.err
check "good TSA: its data put in the signature timestamp's token" \
  grep -q "^signature timestamp 1: the TSA's validation data added to its token" good.1.err
check "good TSA: and in the CAdES-C timestamp's" grep -q "^CAdES-C timestamp 1: the TSA's validation data added" good.err
verify good
check "good TSA: verifies" said 0 "^level: CAdES-X Long Type 1$" good.v.err
check "good TSA: the signature timestamp's TSA judged with its token's data" \
  grep -q "^signature timestamp 1: TSA certificate and revocation values: OK" good.v.err
check "good TSA: the CAdES-C timestamp's too" grep -q "^CAdES-C timestamp 1: TSA certificate and revocation values: OK" good.v.err
check "good TSA: no 'no revocation values' note" bash -c '! grep -q "no revocation values" good.v.err'
check "in the signature-time-stamp's token: references and values" python3 - good.xl1 <<'PY'
import sys
def tlv(d, i):  # tag, content start, end
    n, j = d[i + 1], i + 2
    if n & 0x80:
        k = n & 0x7f; n = int.from_bytes(d[j:j + k], "big"); j += k
    return d[i], j, j + n
def kids(d, i):
    _, j, end = tlv(d, i)
    while j < end:
        yield j
        j = tlv(d, j)[2]
def unsigned(d, ci):  # ContentInfo -> its one signer's unsigned attributes {OID's last byte: value}
    sd = list(kids(d, list(kids(d, list(kids(d, ci))[1]))[0]))
    si = list(kids(d, list(kids(d, sd[-1]))[0]))
    out = {}
    if d[si[-1]] == 0xa1:
        for a in kids(d, si[-1]):
            oid, vals = list(kids(d, a))
            out[d[tlv(d, oid)[2] - 1]] = list(kids(d, vals))[0]
    return out
d = open(sys.argv[1], "rb").read()
token = unsigned(d, 0)[14]
sys.exit(sorted(unsigned(d, token)) != [21, 22, 23, 24])
PY

# revoked a day before the timestamp: -enhance refuses; -noverify makes it, -verify refuses
xl1 early tsa_early -ocsp "$url"
check "TSA revoked before: -enhance refuses, named" \
  said 4 "signature timestamp 1: the TSA's certificate at .*certificate revoked (reason: keyCompromise" early.1.err
xl1 early tsa_early -ocsp "$url" -noverify
check "TSA revoked before, -noverify: made with a warning" said 0 "warning: .*signature timestamp 1: the TSA's certificate" early.1.err
verify early
check "TSA revoked before: -verify refuses, named" \
  said 4 "signature timestamp 1: the TSA's certificate at .*certificate revoked (reason: keyCompromise" early.v.err

# revoked a day after: passes
xl1 late tsa_late -ocsp "$url"
check "TSA revoked after: enhanced" said 0 "^level: CAdES-X Long Type 1$" late.err
verify late
check "TSA revoked after: verifies, judged" said 0 "^signature timestamp 1: TSA certificate and revocation values: OK" late.v.err

# file mode: the signer's OCSP response alone in the first run (nothing for
# the TSA: a warning), the CA's CRL with the CAdES-C timestamp's reply
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
pids=()
"$G" ocsp -issuer ca.pem -cert signer.pem -no_nonce -reqout s.req
"$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -reqin s.req -respout s.resp 2>/dev/null
"$G" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -crldays 30 -out ca.crl 2>/dev/null
"$G" cms -tsa-query f.q1 -in doc.bes
reply tsa f.q1 f.r1
run f1 cms -enhance -in doc.bes -to XL1 -tsa-reply f.r1 -tsa-query f.q2 -ocsp-resp s.resp -CAfile ca.pem \
  -outform DER -out f.xl1
check "no data for the TSA: a warning, not a failure" \
  said 0 "warning: .*signature timestamp 1: no revocation data for the TSA's certificate" f1.err
reply tsa f.q2 f.r2
run f2 cms -enhance -in f.xl1 -to XL1 -tsa-reply f.r2 -CRLfile ca.crl -CAfile ca.pem -outform DER -out f.xl1
check "the CRL in the CAdES-C timestamp's token" said 0 "^CAdES-C timestamp 1: the TSA's validation data added" f2.err
verify f
check "file mode: verifies" said 0 "^level: CAdES-X Long Type 1$" f.v.err
check "file mode: the CAdES-C timestamp's TSA judged with its token's CRL" \
  grep -q "^CAdES-C timestamp 1: TSA certificate and revocation values: OK" f.v.err
check "file mode: the signature timestamp's TSA without data: said" \
  grep -q "^signature timestamp 1: TSA certificate: no revocation values for it" f.v.err
# 40 days on (-attime), past the CRL's nextUpdate: the CAdES-C timestamp's
# TSA, judged then, is judged at its token's time instead, said
later=$(($(date +%s) + 40 * 86400))
run f40 cms -verify -in f.xl1 -inform DER -content doc.txt -CAfile ca.pem -out /dev/null -attime $later
check "past nextUpdate: verifies" said 0 "^CAdES-C timestamp 1: TSA certificate: revocation values stale at" f40.err
check "past nextUpdate: judged at the token's time" bash -c "grep '^CAdES-C timestamp 1: TSA certificate and \
revocation values: OK at' f40.err | grep -vq '$(date -u -d @$later +%Y-%m-%d)'"
finish
