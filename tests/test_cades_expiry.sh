#!/bin/bash
# CAdES-X Long Type 1 after its certificates expire (RFC 5126 6.3.2 note 2,
# 6.3.5; docs/ESIGN.md "When certificates expire"): a root CA (ten years),
# a signers' CA under it that lives 4 days, a signer under that CA for 2
# days, a signature-time-stamp TSA for 3 days and a CAdES-C-time-stamp TSA
# for a year, both under the root. Verified offline at -attime 10 days on,
# when the signer, its CA and the first TSA have expired: the signer's
# path is judged at the signature timestamp's time, the first TSA at the
# CAdES-C timestamp's, so it verifies. The CAdES-C timestamp's own TSA is
# the latest proof of time: expired at -attime (the same 3-day TSA for
# both timestamps), it is refused, named. A CAdES-T (no values) of the
# same signer is judged now: refused once the signer has expired.
. "$(dirname "$0")/cli_common.sh" cades_expiry
cd "$T" || exit 1

"$G" genpkey -c 256A -o root.key 2>/dev/null
"$G" req -x509 -ca -key root.key -subj "/CN=Root/O=gostx test" -days 3650 -out root.pem
printf 'basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n' > ca.ext
printf 'keyUsage = critical,digitalSignature,nonRepudiation\n' > signer.ext
printf 'basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = critical,timeStamping\n' > tsa.ext
issue() { # issue NAME CA EXT DAYS: NAME.key, NAME.pem by CA (CA.index)
  "$G" genpkey -c 256A -o "$1.key" 2>/dev/null
  "$G" req -new -key "$1.key" -subj "/CN=$1/O=gostx test" -out "$1.csr"
  "$G" ca -in "$1.csr" -cert "$2.pem" -keyfile "$2.key" -index "$2.index" -days "$4" -extfile "$3" \
    -out "$1.pem" 2>/dev/null
}
issue subca root ca.ext 4
issue signer subca signer.ext 2
issue tsa_short root tsa.ext 3
issue tsa_long root tsa.ext 365
"$G" ca -gencrl -cert root.pem -keyfile root.key -index root.index -crldays 30 -out root.crl 2>/dev/null
"$G" ca -gencrl -cert subca.pem -keyfile subca.key -index subca.index -crldays 30 -out subca.crl 2>/dev/null
cat subca.pem > chain.pem
check "PKI: root, a 4-day CA, a 2-day signer, a 3-day and a 1-year TSA, two CRLs" \
  [ -s signer.pem -a -s tsa_short.pem -a -s tsa_long.pem -a -s root.crl -a -s subca.crl ]
echo "a document to sign, $RANDOM" > doc.txt

run() { # run NAME ARGS...: gostx, exit status in $rc, stderr in NAME.err
  local name=$1; shift
  "$G" "$@" > "$name.out" 2> "$name.err"
  rc=$?
}
said() { [ "$rc" = "$1" ] && grep -q -- "$2" "$3" || { echo "  rc=$rc"; sed 's/^/  /' "$3"; false; }; }
reply() { # reply QUERY TSA OUT
  "$G" ts -reply -queryfile "$1" -signer "$2.pem" -inkey "$2.key" -serial "$2.serial" -out "$3" 2>/dev/null
}
xl1() { # xl1 ESC-TSA OUT: doc.txt signed, timestamped by tsa_short, X Long, the CAdES-C timestamp by ESC-TSA
  "$G" cms -sign -cades -in doc.txt -signer signer.pem -inkey signer.key -certfile chain.pem -out "$2.bes" &&
    "$G" cms -tsa-query "$2.q1" -in "$2.bes" && reply "$2.q1" tsa_short "$2.r1" &&
    "$G" cms -enhance -in "$2.bes" -to XL1 -tsa-reply "$2.r1" -tsa-query "$2.q2" -CRLfile subca.crl \
      -CRLfile root.crl -CAfile root.pem -out "$2" 2>/dev/null &&
    reply "$2.q2" "$1" "$2.r2" &&
    "$G" cms -enhance -in "$2" -to XL1 -tsa-reply "$2.r2" -CAfile root.pem -out "$2" 2>/dev/null
}
check "X Long Type 1, the CAdES-C timestamp by the 1-year TSA" xl1 tsa_long good.sig
check "X Long Type 1, both timestamps by the 3-day TSA" xl1 tsa_short short.sig
"$G" cms -sign -cades -in doc.txt -signer signer.pem -inkey signer.key -certfile chain.pem -out t.bes
"$G" cms -tsa-query t.q1 -in t.bes && reply t.q1 tsa_short t.r1
run t cms -enhance -in t.bes -to T -tsa-reply t.r1 -CAfile root.pem -out t.sig
check "CAdES-T of the same signer" said 0 "^level: CAdES-T$" t.err

now=$(date +%s)
later=$((now + 10 * 86400))
run v0 cms -verify -in good.sig -content doc.txt -CAfile root.pem
check "today: verifies" said 0 "^level: CAdES-X Long Type 1$" v0.err
run v1 cms -verify -in good.sig -content doc.txt -CAfile root.pem -attime "$later"
check "10 days on (signer, its CA, the first TSA expired): verifies" said 0 "^level: CAdES-X Long Type 1$" v1.err
check "10 days on: the signer's path judged at the signature timestamp's time" \
  grep -q "Chain and revocation values: OK at the signature timestamp's time" v1.err
check "10 days on: the first TSA judged at the CAdES-C timestamp's time" \
  grep -q "^signature timestamp 1: TSA certificate and revocation values: OK" v1.err
run v2 cms -verify -in short.sig -content doc.txt -CAfile root.pem -attime "$later"
check "10 days on, the CAdES-C timestamp's TSA expired: refused, named" \
  said 4 "CAdES-C-time-stamp: the timestamp fails 1: .*certificate has expired" v2.err
check "10 days on, the CAdES-C timestamp's TSA expired: why said" grep -q "latest proof of time" v2.err
run v3 cms -verify -in short.sig -content doc.txt -CAfile root.pem
check "the same today: verifies" said 0 "^level: CAdES-X Long Type 1$" v3.err
run v4 cms -verify -in t.sig -content doc.txt -CAfile root.pem -untrusted chain.pem -attime "$later"
check "a CAdES-T 10 days on: the signer judged now, expired" said 4 "validity: certificate has expired" v4.err
run v5 cms -verify -in t.sig -content doc.txt -CAfile root.pem -untrusted chain.pem
check "the CAdES-T today: verifies" said 0 "^level: CAdES-T$" v5.err
# the signer's own data still judged at that time: its CA's CRL value
# changed (its last byte, the signature's) is refused 10 days on as today
python3 - good.sig bad.sig <<'PY'
import sys, base64
d = open(sys.argv[1], "rb").read()
if d.startswith(b"-----"): d = base64.b64decode(b"".join(d.split(b"\n")[1:-2]))
crl = open("subca.crl", "rb").read()
if crl.startswith(b"-----"): crl = base64.b64decode(b"".join(crl.split(b"\n")[1:-2]))
i = d.index(crl) + len(crl) - 1
open(sys.argv[2], "wb").write(d[:i] + bytes([d[i] ^ 1]) + d[i + 1:])
PY
run v6 cms -verify -in bad.sig -inform DER -content doc.txt -CAfile root.pem -attime "$later"
check "10 days on, a changed CRL value: refused" said 4 "hash does not match" v6.err
finish
