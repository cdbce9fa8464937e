#!/usr/bin/env bash
# gostx ca and revocation in gostx x509 verify: certificates issued from
# requests into openssl ca's index (serials from the serial file, a reused
# one refused), one revoked (keyCompromise), a CRL made (cRLNumber from
# the crlnumber file, nextUpdate); -crl_check refuses the revoked one and
# passes the good one, as openssl verify -crl_check does on the same files,
# and openssl crl reads gostx's CRL; openssl ca -gencrl (gost-engine) on the
# same index makes CRLs gostx reads: its plain one, one with an unknown
# critical extension and a delta CRL (each refused by name). The index
# round trip with openssl ca both ways (keyTime/CAkeyTime, every line not
# revoked byte for byte, the CRLs' entries and invalidityDates alike). Stale CRLs,
# a CRL of another CA of the same name (wrong issuer), of another name (no
# CRL), -crl_check_all, a truncated CRL file. Skipped (77) without
# openssl's gost-engine.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" ca_cli
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "openssl with gost-engine not found: skipping"; exit 77; }
export OPENSSL_CONF=$HERE/support/gost_engine.cnf
cd "$T" || exit 1

# expect RC PATTERN ARGS...: gostx ARGS exits RC, PATTERN in its output
expect() {
  local want=$1 pat=$2
  shift 2
  "$G" "$@" >out 2>&1
  local rc=$?
  if [ $rc = "$want" ] && { [ -z "$pat" ] || grep -q -- "$pat" out; }; then ok; else bad "gostx $* -> rc $rc (want $want, '$pat'): $(cat out)"; fi
}
# ossl_verify WANT_PATTERN ARGS...: openssl verify -engine gost ARGS says it
ossl_verify() {
  local pat=$1
  shift
  openssl verify -engine gost "$@" >o.out 2>&1
  if grep -q -- "$pat" o.out; then ok; else bad "openssl verify $*: want '$pat': $(cat o.out)"; fi
}

check "CA key" "$G" genpkey -c 256A -o ca.key
check "CA" "$G" req -x509 -ca -key ca.key -subj "/CN=Test CA/O=gostx/C=RU" -days 10 -out ca.pem
for u in alice bob carol; do
  check "$u key" "$G" genpkey -c 256A -o $u.key
  check "$u csr" "$G" req -new -key $u.key -subj "/CN=$u/O=gostx" -out $u.csr
done
echo 0A >serial
check "issue alice" "$G" ca -in alice.csr -cert ca.pem -keyfile ca.key -index index.txt -days 5 -out alice.pem
check "issue bob" "$G" ca -in bob.csr -cert ca.pem -keyfile ca.key -index index.txt -days 5 -out bob.pem
check "serial file moved on" [ "$(cat serial)" = 0C ]
check "two V lines, openssl's format" \
  grep -qP '^V\t\d{12}Z\t\t0B\tunknown\t/CN=alice/O=gostx$' index.txt
check "bob's line" grep -qP '^V\t\d{12}Z\t\t0C\tunknown\t/CN=bob/O=gostx$' index.txt
check "alice's serial" [ "$(openssl x509 -in alice.pem -noout -serial)" = serial=0B ]
# a value with ", " in it stays as it is (openssl's oneline form, which
# openssl ca writes); a multi-valued RDN's attributes are joined by "+"
mkdir names
check "dave key" "$G" genpkey -c 256A -o names/dave.key
check "dave csr" "$G" req -new -key names/dave.key -subj "/CN=dave/O=Foo, Inc" -out names/dave.csr
check "issue dave" "$G" ca -in names/dave.csr -cert ca.pem -keyfile ca.key -index names/index.txt \
  -days 5 -out names/dave.pem
check "dave's line keeps 'Foo, Inc'" grep -qP '\t/CN=dave/O=Foo, Inc$' names/index.txt
check "a multi-valued RDN by openssl" openssl req -x509 -engine gost -newkey gost2012_256 \
  -pkeyopt paramset:A -multivalue-rdn -subj "/CN=erin+OU=ops/O=Foo, Inc/C=RU" -nodes \
  -keyout names/erin.key -out names/erin.pem -days 2
expect 0 "" ca -revoke names/erin.pem -index names/index.txt
erin=$(openssl x509 -in names/erin.pem -noout -subject -nameopt compat)
check "erin's line as openssl writes the name (${erin#subject=})" \
  [ "$(cut -f6 names/index.txt | tail -1)" = "${erin#subject=}" ]
echo 0A >serial # the next would be 0B again: refused, nothing written
before=$(cksum <index.txt)
expect 1 "already in the index" ca -in carol.csr -cert ca.pem -keyfile ca.key -index index.txt -out carol.pem
check "no certificate for a reused serial" [ ! -e carol.pem ]
check "index untouched" [ "$(cksum <index.txt)" = "$before" ]
echo 0C >serial

# four writers at once: the lock keeps each serial and line
mkdir par
for i in 1 2 3 4; do
  "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index par/index.txt -out par/$i.pem 2>par/$i.err &
done
wait
check "four concurrent issues: four lines" [ "$(wc -l <par/index.txt)" = 4 ]
check "four distinct serials" [ "$(cut -f4 par/index.txt | sort -u | wc -l)" = 4 ]
check "each certificate's serial in the index" bash -c \
  'for i in 1 2 3 4; do s=$(openssl x509 -in par/$i.pem -noout -serial | cut -d= -f2); grep -q "	$s	" par/index.txt || exit 1; done'

expect 0 "" ca -revoke alice.pem -cert ca.pem -index index.txt -crl_reason keyCompromise
check "alice R with the reason" grep -qP '^R\t\d{12}Z\t\d{12}Z,keyCompromise\t0B\t' index.txt
expect 1 "already revoked" ca -revoke alice.pem -index index.txt
expect 2 "crl_reason" ca -revoke bob.pem -index index.txt -crl_reason nonsense
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -out ca.crl
check "crlnumber moved on" [ "$(cat crlnumber)" = 02 ]

# openssl reads gostx's CRL and agrees with gostx on both certificates
openssl crl -in ca.crl -noout -text >crl.txt 2>&1
for want in "CRL Number:" "Serial Number: 0B" "Key Compromise" "Authority Key Identifier" \
  "GOST R 34.10-2012 with GOST R 34.11-2012 (256 bit)" "Next Update"; do
  check "openssl crl shows '$want'" grep -q -- "$want" crl.txt
done
check "the first CRL's number is 1" bash -c "grep -A1 'CRL Number' crl.txt | grep -q '^ *1$'"
check "openssl: CRL signature" bash -c "openssl crl -in ca.crl -CAfile ca.pem -noout 2>&1 | grep -q 'verify OK'"
expect 2 "certificate revoked (reason: keyCompromise" x509 verify -CAfile ca.pem -CRLfile ca.crl -crl_check alice.pem
expect 0 "bob.pem: OK" x509 verify -CAfile ca.pem -CRLfile ca.crl -crl_check bob.pem
ossl_verify "certificate revoked" -CAfile ca.pem -CRLfile ca.crl -crl_check alice.pem
ossl_verify "bob.pem: OK" -CAfile ca.pem -CRLfile ca.crl -crl_check bob.pem
expect 2 "unable to get certificate CRL" x509 verify -CAfile ca.pem -crl_check bob.pem
# the chain ends at the anchor: -crl_check_all asks nothing more of a one-link chain
expect 0 "bob.pem: OK" x509 verify -CAfile ca.pem -CRLfile ca.crl -crl_check_all bob.pem
# DER, and several CRLs in one PEM file
openssl crl -in ca.crl -outform DER -out ca.der 2>/dev/null
expect 2 "certificate revoked" x509 verify -CAfile ca.pem -CRLfile ca.der -crl_check alice.pem

# stale: nextUpdate an hour on, checked two hours on (openssl says the same)
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -crldays 0 -crlhours 1 -out short.crl
check "crlnumber 3 next" [ "$(cat crlnumber)" = 03 ]
later=$(($(date +%s) + 7200))
expect 2 "CRL has expired" x509 verify -CAfile ca.pem -CRLfile short.crl -crl_check -attime $later bob.pem
ossl_verify "CRL has expired" -CAfile ca.pem -CRLfile short.crl -crl_check -attime $later bob.pem
cat short.crl ca.crl >both.crl # a stale and a fresh CRL: the fresh one decides
expect 0 "bob.pem: OK" x509 verify -CAfile ca.pem -CRLfile both.crl -crl_check bob.pem

# the wrong issuer: a CA of the same name with another key; of another name
mkdir evil other
check "evil key" "$G" genpkey -c 256A -o evil/ca.key
check "evil CA" "$G" req -x509 -ca -key evil/ca.key -subj "/CN=Test CA/O=gostx/C=RU" -days 10 -out evil/ca.pem
expect 0 "" ca -gencrl -cert evil/ca.pem -keyfile evil/ca.key -index evil/index.txt -out evil.crl
check "a crlnumber beside that index" [ -e evil/crlnumber ]
expect 2 "wrong issuer" x509 verify -CAfile ca.pem -CRLfile evil.crl -crl_check bob.pem
check "other key" "$G" genpkey -c 256A -o other/ca.key
check "other CA" "$G" req -x509 -ca -key other/ca.key -subj "/CN=Other CA" -days 10 -out other/ca.pem
expect 0 "" ca -gencrl -cert other/ca.pem -keyfile other/ca.key -index other/index.txt -out other.crl
expect 2 "unable to get certificate CRL" x509 verify -CAfile ca.pem -CRLfile other.crl -crl_check bob.pem
expect 1 "is not the key of" ca -gencrl -cert ca.pem -keyfile other/ca.key -index index.txt -out x.crl

# openssl ca -gencrl (gost-engine) over gostx's index: its CRLs read by gostx
cat >ca.cnf <<EOF
.include $OPENSSL_CONF
[ca]
default_ca = myca
[myca]
database = index.txt
crlnumber = ocrlnumber
default_md = md_gost12_256
default_crl_days = 7
[plain]
authorityKeyIdentifier = keyid
[unknown_critical]
1.2.3.4 = critical,DER:05:00
[delta]
2.5.29.27 = critical,DER:02:01:01
[nonum]
database = index.txt
default_md = md_gost12_256
default_crl_days = 7
[critnum]
2.5.29.20 = critical,DER:02:01:63
EOF
echo 10 >ocrlnumber
for ext in plain unknown_critical delta; do
  check "openssl ca -gencrl ($ext)" bash -c \
    "openssl ca -config ca.cnf -gencrl -crlexts $ext -cert ca.pem -keyfile ca.key -out o_$ext.crl >/dev/null 2>&1"
done
expect 2 "certificate revoked (reason: keyCompromise" x509 verify -CAfile ca.pem -CRLfile o_plain.crl -crl_check alice.pem
expect 0 "bob.pem: OK" x509 verify -CAfile ca.pem -CRLfile o_plain.crl -crl_check bob.pem
expect 2 "unhandled critical CRL extension" x509 verify -CAfile ca.pem -CRLfile o_unknown_critical.crl -crl_check bob.pem
expect 1 "delta CRLs are not supported" x509 verify -CAfile ca.pem -CRLfile o_delta.crl -crl_check bob.pem
# RFC 5280 5.2.3: a CRL without cRLNumber, or with a critical one, decides
# nothing (x509-limbo's crl::crlnumber-missing, -critical); alice stays unrevoked by them
for ext in plain critnum; do
  check "openssl ca -gencrl without a crlnumber file ($ext)" bash -c \
    "openssl ca -config ca.cnf -name nonum -gencrl -crlexts $ext -cert ca.pem -keyfile ca.key -out n_$ext.crl >/dev/null 2>&1"
done
check "n_plain.crl has no CRL Number" bash -c "! openssl crl -in n_plain.crl -noout -text | grep -q 'CRL Number'"
expect 2 "the CRL has no cRLNumber (RFC 5280 5.2.3)" x509 verify -CAfile ca.pem -CRLfile n_plain.crl -crl_check alice.pem
expect 2 "cRLNumber is marked critical" x509 verify -CAfile ca.pem -CRLfile n_critnum.crl -crl_check alice.pem
ossl_verify "unhandled critical CRL extension" -CAfile ca.pem -CRLfile n_critnum.crl -crl_check alice.pem
check "gostx's own CRLs: cRLNumber not critical" bash -c "! grep -q 'CRL Number: critical' crl.txt"

# a chain: -crl_check_all asks the intermediate's status too (openssl agrees)
mkdir sub
printf 'basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n' >sub.ext
check "sub key" "$G" genpkey -c 256B -o sub/ca.key
check "sub csr" "$G" req -new -key sub/ca.key -subj "/CN=Sub CA/O=gostx" -out sub/ca.csr
check "sub CA" "$G" ca -in sub/ca.csr -cert ca.pem -keyfile ca.key -index index.txt -extfile sub.ext -out sub/ca.pem
check "dave" "$G" ca -in carol.csr -cert sub/ca.pem -keyfile sub/ca.key -index sub/index.txt -out dave.pem
expect 0 "" ca -gencrl -cert sub/ca.pem -keyfile sub/ca.key -index sub/index.txt -out sub.crl
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -out root.crl
V="x509 verify -CAfile ca.pem -untrusted sub/ca.pem"
expect 0 "dave.pem: OK" $V -CRLfile sub.crl -crl_check dave.pem
expect 2 "depth 1: revocation: unable to get certificate CRL" $V -CRLfile sub.crl -crl_check_all dave.pem
cat sub.crl root.crl >chain.crl
expect 0 "dave.pem: OK" $V -CRLfile chain.crl -crl_check_all dave.pem
ossl_verify "dave.pem: OK" -CAfile ca.pem -untrusted sub/ca.pem -CRLfile chain.crl -crl_check_all dave.pem
expect 0 "" ca -revoke sub/ca.pem -cert ca.pem -index index.txt -crl_reason CACompromise
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index index.txt -out root.crl
cat sub.crl root.crl >chain.crl
expect 2 "depth 1: revocation: certificate revoked (reason: CACompromise" $V -CRLfile chain.crl -crl_check_all dave.pem
expect 0 "dave.pem: OK" $V -CRLfile chain.crl -crl_check dave.pem
ossl_verify "certificate revoked" -CAfile ca.pem -untrusted sub/ca.pem -CRLfile chain.crl -crl_check_all dave.pem

# a serial with its top bit set (INTEGER 00 80): "80" in the index, as openssl writes it
mkdir hi && echo 7F >hi/serial
check "issue serial 80" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index hi/index.txt -out hi/c.pem
check "index hex without a sign byte" grep -qP '^V\t\d{12}Z\t\t80\t' hi/index.txt
expect 0 "" ca -revoke hi/c.pem -index hi/index.txt
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index hi/index.txt -out hi/ca.crl
check "openssl reads serial 80" bash -c "openssl crl -in hi/ca.crl -noout -text | grep -q 'Serial Number: 80'"
expect 2 "certificate revoked" x509 verify -CAfile ca.pem -CRLfile hi/ca.crl -crl_check hi/c.pem

# openssl ca's own revocation forms in an index gostx reads (-crl_compromise
# writes "keyTime,TIME", -crl_hold "holdInstruction,OID"), and a serial of
# an odd number of hex digits, as openssl reads it
mkdir oss && echo 0B >oss/serial
check "oss c1" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c1.pem
check "oss c2" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c2.pem
check "oss c3" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c3.pem
check "oss c4" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c4.pem
check "oss c5" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c5.pem
check "oss c6" "$G" ca -in carol.csr -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/c6.pem
sed -e 's|^database = index.txt|database = oss/index.txt\nunique_subject = no|' ca.cnf >oss.cnf
check "openssl ca -revoke -crl_compromise" bash -c \
  "openssl ca -config oss.cnf -cert ca.pem -keyfile ca.key -revoke oss/c1.pem -crl_compromise 20250101000000Z >/dev/null 2>&1"
check "openssl ca -revoke -crl_hold" bash -c \
  "openssl ca -config oss.cnf -cert ca.pem -keyfile ca.key -revoke oss/c2.pem -crl_hold holdInstructionReject >/dev/null 2>&1"
check "openssl's keyTime in the index" grep -q ',keyTime,20250101000000Z' oss/index.txt
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/ca.crl
expect 2 "certificate revoked (reason: keyCompromise" x509 verify -CAfile ca.pem -CRLfile oss/ca.crl -crl_check oss/c1.pem
expect 2 "certificate revoked (reason: certificateHold" x509 verify -CAfile ca.pem -CRLfile oss/ca.crl -crl_check oss/c2.pem
sed -i 's/\t0C\t/\tC\t/' oss/index.txt
expect 1 "already revoked" ca -revoke oss/c1.pem -index oss/index.txt
sed -i 's/\tC\t/\t0C\t/' oss/index.txt # openssl ca's own load refuses "C" (bad serial number length)

# the index round trip with openssl ca: gostx revokes lines of the index
# openssl wrote (keyTime, holdInstruction) and every other line stays
# byte for byte; gostx writes CAkeyTime,TIME and keyTime,TIME as openssl
# does, and openssl keeps and reads them; gostx's CRL has the
# invalidityDates (and reasons, dates) openssl ca -gencrl writes from the
# same index
cp oss/index.txt oss/before.txt
expect 0 "" ca -revoke oss/c3.pem -index oss/index.txt -crl_reason superseded
check "gostx keeps the lines it did not revoke byte for byte: $(diff oss/before.txt oss/index.txt | tr '\n\t' '  ')" \
  cmp <(grep -vP '\t0E\t' oss/before.txt) <(grep -vP '\t0E\t' oss/index.txt)
check "the revoked line: only its status and revocation changed" \
  test "$(grep -P '\t0E\t' oss/index.txt | sed -E 's/^R(\t[^\t]*\t)[0-9]{12}Z,superseded\t/V\1\t/')" = \
  "$(grep -P '\t0E\t' oss/before.txt)"
cp oss/index.txt oss/before.txt
expect 0 "" ca -revoke oss/c4.pem -index oss/index.txt -crl_CA_compromise 20240601123000Z
check "CAkeyTime,TIME written as openssl writes it, the rest kept" \
  cmp <(grep -vP '\t0F\t' oss/before.txt) <(grep -vP '\t0F\t' oss/index.txt)
check "... its line" grep -qP '^R\t\d{12}Z\t\d{12}Z,CAkeyTime,20240601123000Z\t0F\tunknown\t' oss/index.txt
expect 0 "" ca -gencrl -cert ca.pem -keyfile ca.key -index oss/index.txt -out oss/g.crl
check "openssl ca -gencrl on the same index" bash -c \
  "openssl ca -config oss.cnf -gencrl -cert ca.pem -keyfile ca.key -out oss/o.crl >/dev/null 2>&1"
# the entries as openssl prints them; holdInstructionCode gostx does not write
revoked_text() { openssl crl -in "$1" -noout -text | sed -n '/^Revoked Certificates:/,/^    Signature Algorithm/p' |
  sed '/Hold Instruction Code/,+1d'; }
check "gostx's CRL entries are openssl's: $(diff <(revoked_text oss/o.crl) <(revoked_text oss/g.crl) | tr '\n' ' ')" \
  cmp <(revoked_text oss/o.crl) <(revoked_text oss/g.crl)
check "two invalidity dates (keyTime, CAkeyTime)" test "$(revoked_text oss/g.crl | grep -c "Invalidity Date")" = 2
check "openssl's keyTime and gostx's CAkeyTime dates" bash -c "revoked_text() { $(declare -f revoked_text | tail -n +2); }
  revoked_text oss/g.crl | grep -A1 'Invalidity Date' | grep -q 'Jan  1 00:00:00 2025 GMT' &&
  revoked_text oss/g.crl | grep -A1 'Invalidity Date' | grep -q 'Jun  1 12:30:00 2024 GMT'"
# openssl revokes after gostx: it keeps gostx's lines, and reads its keyTime
expect 0 "" ca -revoke oss/c5.pem -index oss/index.txt -crl_compromise 20230102030405Z
check "keyTime written" grep -qP '^R\t\d{12}Z\t\d{12}Z,keyTime,20230102030405Z\t10\t' oss/index.txt
cp oss/index.txt oss/before.txt
check "openssl ca -revoke after gostx" bash -c \
  "openssl ca -config oss.cnf -cert ca.pem -keyfile ca.key -revoke oss/c6.pem >/dev/null 2>&1"
check "openssl keeps gostx's lines" cmp <(grep -vP '\t11\t' oss/index.txt) <(grep -vP '\t11\t' oss/before.txt)
check "openssl ca -gencrl reads gostx's keyTime" bash -c \
  "openssl ca -config oss.cnf -gencrl -cert ca.pem -keyfile ca.key -out oss/o2.crl >/dev/null 2>&1 &&
   openssl crl -in oss/o2.crl -noout -text | grep -A1 'Invalidity Date' | grep -q 'Jan  2 03:04:05 2023 GMT'"
expect 2 "one of -crl_reason, -crl_compromise" ca -revoke oss/c1.pem -index oss/index.txt -crl_reason superseded -crl_compromise 20230102030405Z
expect 2 "not a time YYYYMMDDHHMMSSZ" ca -revoke oss/c1.pem -index oss/index.txt -crl_compromise 230102030405Z
printf 'R\t301231000000Z\t250101000000Z,keyTime\t77\tunknown\t/CN=x\n' >bad_time.txt
expect 1 "keyTime/CAkeyTime without a compromise time" ca -revoke bob.pem -index bad_time.txt

# hostile files
openssl crl -in ca.crl -outform DER 2>/dev/null | head -c 100 >cut.der
expect 1 "cut.der: CRL 1: crl: not a DER CRL" x509 verify -CAfile ca.pem -CRLfile cut.der -crl_check bob.pem
printf 'V\t261203151439Z\t\tZZ\tunknown\t/CN=x\n' >bad_index.txt
expect 1 "bad_index.txt:1: not openssl's index format: the serial is no hex number" \
  ca -revoke bob.pem -index bad_index.txt
finish
