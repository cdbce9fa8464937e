#!/usr/bin/env bash
# gostx req and gostx x509 -req: a CA, a request and a server certificate
# made with gostx alone, each accepted by openssl + gost-engine (verify,
# req -verify, x509 -text showing the extensions asked for) and, when it is
# installed, by GnuTLS certtool --verify; gostx tls serve runs on that chain
# alone and gostx tls client --ca verifies it (loopback, bounded).
# Requests and CAs that openssl made are taken too; validity from
# -not_before to -not_after (an expired certificate). Refusals: a bad -subj
# or -addext, a request whose signature is broken, a CA key that is not the CA certificate's, an
# unreadable file: each with its exit status and one line, no output file
# made and an existing one left as it was.
# Skipped (77) without openssl's gost-engine.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" req_cli
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "openssl with gost-engine not found: skipping"; exit 77; }
TLS_HERE=$HERE/net
PIDS=()
. "$HERE/net/tls_common.sh"
trap 'pids_stop; rm -rf "$T"' EXIT
export OPENSSL_CONF=$HERE/support/gost_engine.cnf
cd "$T" || exit 1
have_certtool=0
command -v certtool >/dev/null && have_certtool=1

# run WANT ARGS...: gostx ARGS exits WANT (stdout in out, stderr in err)
run() {
  local want=$1
  shift
  "$G" "$@" >out 2>err
  local rc=$?
  [ $rc = "$want" ] && return 0
  bad "gostx $* -> rc $rc, want $want: $(cat err)"
  return 1
}
# refused RC PATTERN OUT ARGS...: gostx ARGS exits RC saying PATTERN in one
# line, and OUT is left as it was (absent, or its old bytes)
refused() {
  local want=$1 pat=$2 outf=$3 before=absent
  shift 3
  [ -e "$outf" ] && before=$(cksum <"$outf")
  "$G" "$@" >out 2>err
  local rc=$? after=absent
  [ -e "$outf" ] && after=$(cksum <"$outf")
  if [ $rc = "$want" ] && grep -q -- "$pat" err && [ "$(wc -l <err)" = 1 ] && [ "$before" = "$after" ] &&
    [ -z "$(ls -a | grep '^\.\?tmp\|\.tmp')" ]; then
    ok
  else
    bad "gostx $* -> rc $rc (want $want, '$pat'), output $before -> $after: $(cat err)"
  fi
}
# ossl_ok WHAT ARGS...: openssl ARGS succeeds
ossl_ok() {
  local what=$1
  shift
  if openssl "$@" >o.out 2>o.err; then ok; else bad "$what: openssl $*: $(cat o.out o.err)"; fi
}
certtool_ok() { # certtool_ok WHAT CA CERT
  [ $have_certtool = 1 ] || return 0
  if certtool --verify --load-ca-certificate "$2" --infile "$3" >c.out 2>&1 &&
    grep -q "Verified. The certificate is trusted" c.out; then ok; else bad "$1: certtool: $(cat c.out)"; fi
}

# ---- a CA, a request, a server certificate, with gostx alone ----
# 512 paramSetA CA; the server 256 paramSetB (GnuTLS 3.7 has no TC26-256-A)
# with an encrypted key
run 0 genpkey -c 512A -o ca.key
run 0 genpkey -c 256B -o srv.key -pass pass:secret
run 0 req -x509 -ca -key ca.key -subj "/CN=gostx test CA/O=gostx/C=RU" -days 10 -out ca.pem
ossl_ok "CA self-verifies" verify -CAfile ca.pem ca.pem
certtool_ok "CA" ca.pem ca.pem
openssl x509 -in ca.pem -noout -text >ca.txt
for want in "CA:TRUE" "Certificate Sign, CRL Sign" "Subject Key Identifier" \
  "Issuer: CN = gostx test CA, O = gostx, C = RU" "GOST R 34.10-2012 with GOST R 34.11-2012 (512 bit)"; do
  check "CA text has '$want'" grep -q -- "$want" ca.txt
done
check "basicConstraints critical" grep -q "Basic Constraints: critical" ca.txt
# validity: 10 days
nb=$(date -d "$(openssl x509 -in ca.pem -noout -startdate | cut -d= -f2)" +%s)
na=$(date -d "$(openssl x509 -in ca.pem -noout -enddate | cut -d= -f2)" +%s)
check "-days 10" [ $((na - nb)) = 864000 ]

run 0 req -new -key srv.key -passin pass:secret -subj "/CN=localhost/O=gostx/INN=7700000000" \
  -addext "subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1" -addext extendedKeyUsage=serverAuth \
  -out srv.csr
ossl_ok "openssl req -verify takes the request" req -verify -in srv.csr -noout
openssl req -in srv.csr -noout -text >csr.txt
check "the request asks for the SAN" grep -q "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1" csr.txt
check "the request's subject" grep -q "Subject: CN = localhost, O = gostx, INN = 7700000000" csr.txt
run 0 req -verify -in srv.csr -noout && check "req -verify says OK" grep -q "verify OK" err

cat >srv.ext <<'EOF'
# a TLS server
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = @names
[names]
DNS.1 = localhost
IP.1 = 127.0.0.1
EOF
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -days 5 -extfile srv.ext -out srv.pem
ossl_ok "openssl verify, sslserver, localhost" verify -CAfile ca.pem -purpose sslserver \
  -verify_hostname localhost srv.pem
certtool_ok "server certificate" ca.pem srv.pem
run 0 x509 verify -CAfile ca.pem -purpose sslserver -verify_hostname localhost srv.pem
openssl x509 -in srv.pem -noout -text >srv.txt
for want in "Digital Signature" "TLS Web Server Authentication, TLS Web Client Authentication" \
  "DNS:localhost, IP Address:127.0.0.1" "Subject Key Identifier" "Authority Key Identifier" \
  "Issuer: CN = gostx test CA" "Subject: CN = localhost"; do
  check "server text has '$want'" grep -q -- "$want" srv.txt
done
check "the CA's key id is the server's AKI" grep -qF \
  "$(grep -A1 'Subject Key Identifier' ca.txt | tail -1 | tr -d ' ')" <(tr -d ' ' <srv.txt | grep -A1 AuthorityKeyIdentifier)
# openssl's default: the request's extensions are not copied; copy takes them
check "no extension copied by default" bash -c '! grep -q "IP Address:0:0:0:0:0:0:0:1" srv.txt'
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -copy_extensions copy -out copied.pem
check "-copy_extensions copy" grep -q "IP Address:0:0:0:0:0:0:0:1" <(openssl x509 -in copied.pem -noout -text)
# serial numbers: random, positive, 20 bytes; -set_serial; -CAserial counts
s1=$(openssl x509 -in srv.pem -noout -serial | cut -d= -f2)
s2=$(openssl x509 -in copied.pem -noout -serial | cut -d= -f2)
check "random serials differ and are 20 bytes" [ "$s1" != "$s2" -a ${#s1} = 40 ]
check "positive" [ $((0x${s1:0:1} < 8)) = 1 ]
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -set_serial 0x0102 -out set.pem
check "-set_serial 0x0102" [ "$(openssl x509 -in set.pem -noout -serial)" = "serial=0102" ]
echo 41 >ca.srl
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAserial ca.srl -out s1.pem
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAserial ca.srl -out s2.pem
check "-CAserial counts" [ "$(openssl x509 -in s2.pem -noout -serial)/$(cat ca.srl)" = "serial=43/43" ]
# validity given (openssl 3.4's -not_before / -not_after): dates in the past
# make an expired certificate (the IKE refusal tests use one); UTCTime's
# two-digit years (RFC 5280 4.1.2.5.1) and today
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -not_before 20200229120000Z -not_after 210101000000Z -out old.pem
check "-not_before, -not_after" [ "$(openssl x509 -in old.pem -noout -dates | tr '\n' ' ')" = \
  "notBefore=Feb 29 12:00:00 2020 GMT notAfter=Jan  1 00:00:00 2021 GMT " ]
run 2 x509 verify -CAfile ca.pem old.pem && check "gostx x509 verify: expired" grep -q "certificate has expired" err
run 0 x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -not_before today -not_after 20991231235959Z -out late.pem
nb=$(date -d "$(openssl x509 -in late.pem -noout -startdate | cut -d= -f2)" +%s)
check "-not_before today" [ $(($(date +%s) - nb)) -le $(bound 60) ]
check "-not_after 2099 (GeneralizedTime)" grep -q "notAfter=Dec 31 23:59:59 2099 GMT" <(openssl x509 -in late.pem -noout -enddate)
for d in 2020 20230229000000Z 20201301000000Z 19491231000000Z 20200101000000 2001010000Z; do
  refused 2 "-not_before: '$d'" keep.pem x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -not_before $d -out keep.pem
done
refused 2 "would end (-not_after, -days) before it starts" keep.pem x509 -req -in srv.csr -CA ca.pem \
  -CAkey ca.key -not_before 20210101000000Z -not_after 20200101000000Z -out keep.pem
refused 2 "-days or -not_after, not both" keep.pem x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
  -days 3 -not_after 20990101000000Z -out keep.pem
# DER out, and the request as DER in
run 0 req -verify -in srv.csr -noout -outform DER
run 0 req -verify -in srv.csr -out srv.der -outform DER
run 0 x509 -req -in srv.der -CA ca.pem -CAkey ca.key -outform DER -out srv.crt.der
ossl_ok "DER certificate" verify -CAfile ca.pem <(openssl x509 -inform DER -in srv.crt.der)

# ---- gostx tls serve on that chain alone; gostx tls client verifies it ----
cat srv.pem ca.pem >chain.pem
tls_echo
if tls_start srv tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$(cat echo.port)" \
  --cert chain.pem --key srv.key -passin pass:secret --threads 1; then
  echo "hello over a gostx chain" | timeout 20 "$G" tls client "127.0.0.1:$PORT" --ca ca.pem \
    --servername localhost --close-on-eof >tls.out 2>tls.err
  rc=$?
  if [ $rc = 0 ] && grep -qx "hello over a gostx chain" tls.out && grep -q "^Verification: OK" tls.err; then
    ok
  else
    bad "tls client on the gostx chain: rc $rc: $(cat tls.err)"
  fi
  kill "$PID" 2>/dev/null
  wait "$PID" 2>/dev/null
else
  bad "tls serve on the gostx chain did not start"
fi

# ---- what openssl made, taken: its request and its CA ----
openssl genpkey -algorithm gost2012_256 -pkeyopt paramset:A -out o.key 2>/dev/null
openssl req -new -key o.key -subj "/CN=from openssl" -addext "subjectAltName=DNS:o.test" -out o.csr
run 0 x509 -req -in o.csr -CA ca.pem -CAkey ca.key -copy_extensions copy -out o.pem
ossl_ok "gostx issued from openssl's request" verify -CAfile ca.pem -verify_hostname o.test o.pem
openssl req -x509 -new -key o.key -subj "/CN=openssl CA" -days 3 -out oca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
  -addext "subjectKeyIdentifier=hash"
run 0 x509 -req -in srv.csr -CA oca.pem -CAkey o.key -extfile srv.ext -out by-oca.pem
ossl_ok "issued by openssl's CA" verify -CAfile oca.pem -purpose sslserver by-oca.pem
check "AKI is openssl's SKI" grep -qF "$(openssl x509 -in oca.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' ')" \
  <(openssl x509 -in by-oca.pem -noout -ext authorityKeyIdentifier | tr -d ' ')

# ---- refusals ----
refused 2 "-subj: C: the value must be 2 characters" bad.csr req -new -key ca.key -subj /C=RUS -out bad.csr
refused 2 "-subj: unknown attribute type 'XX'" bad.csr req -new -key ca.key -subj /XX=1 -out bad.csr
refused 2 "must start with '/'" bad.csr req -new -key ca.key -subj CN=x -out bad.csr
refused 2 "-addext: subjectAltName: '300.1.1.1' is no IPv4" bad.csr req -new -key ca.key -subj /CN=x \
  -addext subjectAltName=IP:300.1.1.1 -out bad.csr
refused 2 "unknown extension 'fooBar'" bad.csr req -new -key ca.key -subj /CN=x -addext fooBar=1 -out bad.csr
echo "keyUsage = signEverything" >bad.ext
refused 2 "-extfile bad.ext: keyUsage: unknown usage 'signEverything'" bad.pem x509 -req -in srv.csr \
  -CA ca.pem -CAkey ca.key -extfile bad.ext -out bad.pem
# a request whose signature is broken: one byte of the subject changed
openssl req -in srv.csr -outform DER -out broken.der
off=$(grep -boa localhost broken.der | head -1 | cut -d: -f1)
flip_byte broken.der "$off"
refused 1 "signature does not verify" bad.pem x509 -req -in broken.der -CA ca.pem -CAkey ca.key -out bad.pem
refused 1 "signature does not verify" bad.pem req -verify -in broken.der -out bad.pem
check "openssl agrees: broken" bash -c '! openssl req -verify -inform DER -in broken.der -noout 2>/dev/null'
# a CA key that is not the CA certificate's; the old output is kept
cp srv.pem keep.pem
refused 1 "-CAkey srv.key does not match the certificate -CA ca.pem" keep.pem x509 -req -in srv.csr \
  -CA ca.pem -CAkey srv.key -passin pass:secret -out keep.pem
run 0 genpkey -c 512A -o other.key # the same curve as the CA's: only the point differs
refused 1 "-CAkey other.key does not match the certificate -CA ca.pem" keep.pem x509 -req -in srv.csr \
  -CA ca.pem -CAkey other.key -out keep.pem
refused 1 "wrong password" keep.pem x509 -req -in srv.csr -CA ca.pem -CAkey srv.key -passin pass:nope -out keep.pem
refused 1 "nowhere.csr" keep.pem x509 -req -in nowhere.csr -CA ca.pem -CAkey ca.key -out keep.pem
refused 2 "not a DER or PEM PKCS#10" keep.pem x509 -req -in ca.key -CA ca.pem -CAkey ca.key -out keep.pem
refused 2 "-CA ca.pem holds no private key: give -CAkey" keep.pem x509 -req -in srv.csr -CA ca.pem -out keep.pem
refused 2 "-set_serial: '0' is not a serial number" keep.pem x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
  -set_serial 0 -out keep.pem
refused 2 "is not a serial number" keep.pem x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
  -set_serial 0x8000000000000000000000000000000000000000 -out keep.pem
refused 2 "-key KEY is needed" bad.csr req -new -subj /CN=x -out bad.csr
refused 2 "-CA CACERT is needed" keep.pem x509 -req -in srv.csr -out keep.pem
finish
