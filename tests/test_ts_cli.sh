#!/usr/bin/env bash
# gostx ts (cli/ts): -query, -reply, -verify round trips with a PKI that
# gostx makes (a root, a TSA with critical EKU timeStamping, a signer
# without it), 256 and 512 keys and imprints; refusals named with exit 1
# (other data, another query's nonce, a TSA of another root, a query the
# TSA refuses: its rejection reply still written, a truncated query,
# garbage); the serial file monotonic across runs and across concurrent
# -reply runs (every serial once); `gostx ts serve` on 127.0.0.1 (a free
# port it picks): a CAdES-T made through it (gostx cms -tsa-query -> POST
# -> gostx cms -tsa-reply -> -verify), bad HTTP and bad queries answered,
# SIGTERM stops it. Then openssl ts -engine gost both ways: openssl
# queries, gostx replies, openssl verifies; gostx queries, openssl ts
# -reply signs with a GOST key, gostx verifies, with signingCertificateV2
# and with openssl's default signingCertificate v1 (ESSCertID, SHA-1: its
# hash checked, a twin certificate refused, a CAdES-T with it verifies)
# (skipped without openssl and gost-engine).
. "$(dirname "$0")/cli_common.sh" ts_cli
cd "$T" || exit 1

pki() { # NAME CURVE SUBJECT ISSUER EXT...: NAME.key, NAME.pem issued by ISSUER
  local name=$1 curve=$2 subj=$3 issuer=$4
  shift 4
  "$G" genpkey -c "$curve" -out "$name.key" || return 1
  printf '%s\n' "$@" >"$name.ext"
  "$G" req -new -key "$name.key" -subj "$subj" -out "$name.csr" &&
    "$G" x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -extfile "$name.ext" -out "$name.pem"
}
"$G" genpkey -c 256A -out ca.key && "$G" req -x509 -ca -key ca.key -subj "/CN=TS root/O=gostx test" -out ca.pem
"$G" genpkey -c 256A -out rogue.key && "$G" req -x509 -ca -key rogue.key -subj "/CN=rogue root" -out rogue.pem
tsa_ext=("basicConstraints = CA:FALSE" "keyUsage = critical,digitalSignature" "extendedKeyUsage = critical,timeStamping")
pki tsa 256B "/CN=gostx TSA/O=gostx test" ca "${tsa_ext[@]}"
pki tsa512 512A "/CN=gostx TSA 512/O=gostx test" ca "${tsa_ext[@]}"
pki rtsa 256A "/CN=rogue TSA" rogue "${tsa_ext[@]}"
pki plain 256A "/CN=no EKU" ca "basicConstraints = CA:FALSE" "keyUsage = critical,digitalSignature"
check "PKI made" test -s tsa.pem -a -s tsa512.pem -a -s plain.pem -a -s rtsa.pem
head -c 70000 /dev/urandom >doc.bin
echo "another document" >other.bin

# reply Q OUT [ARGS...]: the TSA answers Q with tsa's key
reply() { local q=$1 out=$2; shift 2; "$G" ts -reply -queryfile "$q" -signer tsa.pem -inkey tsa.key -serial serial -out "$out" "$@"; }

# ---- round trips ----
"$G" ts -query -data doc.bin -cert -out q.tsq
check "query written" test -s q.tsq
"$G" ts -query -in q.tsq -text >q.txt
check "query -text: Streebog-256, nonce, certReq" grep -q "Hash Algorithm: md_gost12_256" q.txt
check "query -text: certificate required" grep -q "Certificate required: yes" q.txt
check "query -text: a nonce" grep -q "^Nonce: 0x" q.txt
reply q.tsq r.tsr 2>err
check "reply: $(cat err)" test -s r.tsr
check "serial file: 01" test "$(cat serial)" = 01
"$G" ts -verify -data doc.bin -in r.tsr -CAfile ca.pem >out 2>err
check "verify -data: $(cat err)" grep -qx "Verification: OK" out
"$G" ts -verify -queryfile q.tsq -in r.tsr -CAfile ca.pem >out 2>err
check "verify -queryfile: $(cat err)" grep -qx "Verification: OK" out
"$G" ts -verify -digest "$("$G" hash -a streebog256 doc.bin | cut -d' ' -f1)" -in r.tsr -CAfile ca.pem >out 2>err
check "verify -digest: $(cat err)" grep -qx "Verification: OK" out
# a -CAfile of no certificate is said as every verifying command says it
# (cli/common/verify_opts.c): the file once and why, exit 1
"$G" ts -verify -data doc.bin -in r.tsr -CAfile doc.bin >out 2>err
check "verify -CAfile not a certificate: exit 1" test $? = 1
check "verify -CAfile not a certificate: named once: $(cat err)" \
  test "$(grep -o 'doc.bin' err | wc -l)" = 1 -a "$(grep -c 'no certificate' err)" = 1
"$G" ts -reply -in r.tsr -text >r.txt
check "reply -text: granted" grep -q "^Status: Granted." r.txt
check "reply -text: serial 1, policy" grep -q "^Serial number: 0x01" r.txt
check "reply -text: accuracy" grep -q "^Accuracy: 0x01 seconds" r.txt
"$G" ts -reply -in r.tsr -token_out -out r.tok
"$G" ts -verify -data doc.bin -in r.tok -token_in -CAfile ca.pem >out 2>err
check "verify a bare token: $(cat err)" grep -qx "Verification: OK" out
# Streebog-512, no nonce, a policy of the TSA's, accuracy, the tsa name, a 512 key
"$G" ts -query -data doc.bin -streebog512 -no_nonce -tspolicy 1.2.643.100.7 -out q512.tsq
"$G" ts -reply -queryfile q512.tsq -signer tsa512.pem -inkey tsa512.key -chain ca.pem -serial serial \
  -policy 1.2.643.100.7 -accuracy "secs:0,millis:250" -tsa_name -out r512.tsr 2>err
"$G" ts -reply -in r512.tsr -text >r512.txt
check "512: policy, millis, tsa, serial 2: $(cat err)" \
  grep -q "Policy OID: 1.2.643.100.7" r512.txt
check "512: accuracy 250 ms" grep -q "^Accuracy: 0x00 seconds, 0x0FA millis" r512.txt
check "512: the tsa name" grep -q "^TSA: DirName" r512.txt
check "512: serial 2" grep -q "^Serial number: 0x02" r512.txt
"$G" ts -verify -data doc.bin -in r512.tsr -CAfile ca.pem -untrusted tsa512.pem >out 2>err
check "verify 512 (no certReq: the TSA certificate apart): $(cat err)" grep -qx "Verification: OK" out

# ---- refusals: named, exit 1 ----
# vfail NAME PATTERN ARGS...: gostx ts -verify ARGS fails with 1, "Verification: FAILED", PATTERN
vfail() {
  local name=$1 pattern=$2 rc
  shift 2
  "$G" ts -verify "$@" >out 2>err
  rc=$?
  if [ $rc = 1 ] && grep -qx "Verification: FAILED" out && grep -q -- "$pattern" err; then ok; else bad "$name (rc $rc): $(cat out err)"; fi
}
vfail "other data" "imprint mismatch" -data other.bin -in r.tsr -CAfile ca.pem
"$G" ts -query -data doc.bin -cert -out q2.tsq
vfail "another query's nonce" "nonce mismatch" -queryfile q2.tsq -in r.tsr -CAfile ca.pem
vfail "another root" "chain: .*unknown CA" -data doc.bin -in r.tsr -CAfile rogue.pem
vfail "512 without its certificate" "signer's certificate\|no certificate\|signer" -data doc.bin -in r512.tsr -CAfile ca.pem
vfail "not a reply" "not a DER TimeStampResp" -data doc.bin -in other.bin -CAfile ca.pem
cp r.tsr cut.tsr && truncate -s 200 cut.tsr
vfail "a truncated reply" "not a DER TimeStampResp" -data doc.bin -in cut.tsr -CAfile ca.pem
# genTime: a GeneralizedTime of 15 to 19 bytes (DER drops the fraction's
# trailing zeros: .120 is written .12, .000 not at all); the byte before it
# (the serial's last) is flipped
cp r.tsr flip.tsr && off=$(LC_ALL=C grep -obUaP "\x18[\x0f-\x13]20" flip.tsr | head -1 | cut -d: -f1) && flip_byte flip.tsr $((off - 1))
vfail "a changed TSTInfo" "token's signature does not verify: messageDigest" -data doc.bin -in flip.tsr -CAfile ca.pem
# a TSA certificate without the critical EKU timeStamping alone (RFC 3161
# 2.3) does not sign, here or in serve: refused at start, named, usage;
# tokens of such a TSA are refused by the verifier (tests/test_tsa.c,
# tests/test_cms_ts.c make them through the library)
"$G" ts -reply -queryfile q.tsq -signer plain.pem -inkey plain.key -serial serial -out plain.tsr 2>err
rc=$?
check "-reply with a TSA without EKU: usage 2, named: $(cat err)" \
  test $rc = 2 -a ! -e plain.tsr -a "$(grep -c "plain.pem is not a TSA certificate: it has no extendedKeyUsage" err)" = 1
pki soft 256A "/CN=EKU not critical" ca "basicConstraints = CA:FALSE" "extendedKeyUsage = timeStamping"
pki both 256A "/CN=EKU of two" ca "basicConstraints = CA:FALSE" "extendedKeyUsage = critical,timeStamping,codeSigning"
"$G" ts -reply -queryfile q.tsq -signer soft.pem -inkey soft.key -serial serial -out x.tsr 2>err
rc=$?
check "-reply with a non-critical EKU: named" test $rc = 2 -a "$(grep -c "its extendedKeyUsage is not critical" err)" = 1
"$G" ts -reply -queryfile q.tsq -signer both.pem -inkey both.key -serial serial -out x.tsr 2>err
rc=$?
check "-reply with another purpose: named" test $rc = 2 -a "$(grep -c "purposes besides timeStamping" err)" = 1
timeout "$(bound 5)" "$G" ts serve -bind 127.0.0.1 -port 0 -signer plain.pem -inkey plain.key -serial serial 2>err
rc=$?
check "serve with a TSA without EKU: refused at start (2)" test $rc = 2 -a "$(grep -c "is not a TSA certificate" err)" = 1
# -reply -in takes a reply or a token, not junk (nothing written)
"$G" ts -reply -in other.bin -out junk.out 2>err
rc=$?
check "-reply -in JUNK: exit 1, named, nothing written" \
  test $rc = 1 -a ! -e junk.out -a "$(grep -c "other.bin: timestamp: not a DER TimeStampResp" err)" = 1
# rfail NAME PATTERN ARGS...: -reply refuses the query: exit 1, PATTERN, the rejection written
rfail() {
  local name=$1 pattern=$2 rc
  shift 2
  rm -f rej.tsr
  "$G" ts -reply -signer tsa.pem -inkey tsa.key -serial serial -out rej.tsr "$@" 2>err
  rc=$?
  if [ $rc = 1 ] && grep -q -- "$pattern" err && "$G" ts -reply -in rej.tsr -text | grep -q "^Status: Rejected."; then
    ok
  else
    bad "$name (rc $rc): $(cat err)"
  fi
}
"$G" ts -query -data doc.bin -tspolicy 1.2.3.4 -out badpol.tsq
rfail "another policy" "unacceptedPolicy" -queryfile badpol.tsq
head -c 30 q.tsq >cut.tsq
rfail "a truncated query" "badDataFormat" -queryfile cut.tsq
rfail "garbage" "badDataFormat" -queryfile other.bin
check "refusals take no serial" test "$(cat serial)" = 02
"$G" ts -query -data doc.bin -digest 00 >/dev/null 2>err
check "-data and -digest: usage" test $? = 2
"$G" ts -query -digest 0011 >/dev/null 2>err
check "-digest of 2 bytes: usage" grep -q "a Streebog-256 (32) or -512 (64) digest" err
"$G" ts -reply -queryfile q.tsq -signer tsa.pem -inkey plain.key -serial serial -out x.tsr 2>err
check "-inkey not the signer's: usage" grep -q "is not the key of -signer" err

# ---- the serial file: monotonic across runs, each serial once under concurrency ----
echo ff >serial
reply q.tsq s1.tsr && "$G" ts -reply -in s1.tsr -text | grep -q "^Serial number: 0x0100"
check "ff + 1 = 0x0100" test $? = 0
pids=()
for i in $(seq 1 12); do reply q.tsq "c$i.tsr" 2>/dev/null & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
for i in $(seq 1 12); do "$G" ts -reply -in "c$i.tsr" -text | sed -n 's/^Serial number: //p'; done | sort >serials
check "12 concurrent replies: 12 serials, all different" test "$(sort -u serials | wc -l)" = 12
check "12 concurrent replies: 0x0101..0x010C" test "$(head -1 serials) $(tail -1 serials)" = "0x0101 0x010C"
check "the file says the last" test "$(cat serial)" = 010c

# ---- serve ----
serve_pid=
"$G" ts serve -port 0 -signer tsa.pem -inkey tsa.key -chain ca.pem -serial serial -threads 4 2>serve.log &
serve_pid=$!
for _ in $(seq 1 $(bound 100)); do grep -q "listening on" serve.log && break; sleep 0.05; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' serve.log)
check "serve listens: $(cat serve.log)" test -n "$port"
# post FILE OUT [CONTENT-TYPE] [METHOD]: the HTTP status on stdout, the body in OUT
post() {
  python3 - "$port" "$1" "$2" "${3:-application/timestamp-query}" "${4:-POST}" <<'EOF'
import http.client, sys
from gostx_test_time import bound
port, inp, out, ctype, method = sys.argv[1:6]
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=bound(20))
c.request(method, "/", body=open(inp, "rb").read(), headers={"Content-Type": ctype})
r = c.getresponse()
open(out, "wb").write(r.read())
print(r.status, r.getheader("Content-Type"))
EOF
}
"$G" cms -sign -in doc.bin -signer tsa.pem -inkey tsa.key -cades -out s.sig -tsa-query s.tsq 2>/dev/null
check "HTTP: 200 application/timestamp-reply" test "$(post s.tsq s.tsr)" = "200 application/timestamp-reply"
"$G" cms -tsa-reply s.tsr -in s.sig -CAfile ca.pem -out s-t.sig 2>err
check "CAdES-T through serve: $(cat err)" grep -q "^Signature timestamp embedded" err
"$G" cms -verify -in s-t.sig -content doc.bin -CAfile ca.pem 2>err >/dev/null
check "CAdES-T verifies: $(cat err)" grep -q "^CMS Verification successful" err
check "HTTP: a bad query gets a rejection (200)" test "$(post cut.tsq bad.tsr)" = "200 application/timestamp-reply"
"$G" ts -reply -in bad.tsr -text | grep -q "^Status: Rejected."
check "HTTP: ... that says Rejected" test $? = 0
check "HTTP: another content type: 415" test "$(post q.tsq x text/plain | cut -d' ' -f1)" = 415
check "HTTP: GET: 405" test "$(post q.tsq x application/timestamp-query GET | cut -d' ' -f1)" = 405
head -c 20000 /dev/zero >big
check "HTTP: 20000 bytes: 413" test "$(post big x | cut -d' ' -f1)" = 413
# the request parser's edges (cli/common/http.c), in bytes no client
# library sends: tests/support/http_edges.txt, each status pinned
timeout "$(bound 60)" python3 "$here/support/http_raw.py" "$port" q.tsq application/timestamp-query 2 > raw.out 2>&1
check "HTTP: the parser's edges: $(tr '\n' ' ' < raw.out)" grep -q "^[0-9]* cases as wanted$" raw.out
# many at once (4 workers)
for i in $(seq 1 16); do post q.tsq "h$i.tsr" >/dev/null & done
while [ "$(jobs -rp | grep -vc "^$serve_pid$")" -gt 0 ]; do sleep 0.05; done
n=0
for i in $(seq 1 16); do "$G" ts -verify -queryfile q.tsq -in "h$i.tsr" -CAfile ca.pem 2>/dev/null | grep -qx "Verification: OK" && n=$((n + 1)); done
check "16 concurrent POSTs: all verify ($n)" test $n = 16
# five slow clients (a connection each, half a request line sent) hold
# none of the 4 workers: another POST is answered while they all stay
# open (each worker used to wait on one such client until its 10 s were
# up and it was dropped)
python3 - "$port" "$(bound 20)" > slow.out 2>&1 <<'EOF' || sed 's/^/  /' slow.out
import http.client, socket, sys
port, wait = int(sys.argv[1]), int(sys.argv[2])
slow = [socket.create_connection(("127.0.0.1", port), timeout=wait) for _ in range(5)]
for c in slow:
    c.sendall(b"POST / HT")
c = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
c.request("POST", "/", body=open("q.tsq", "rb").read(), headers={"Content-Type": "application/timestamp-query"})
print("other", c.getresponse().status)
def still_open(s):
    s.setblocking(False)
    try:
        return s.recv(1) != b""
    except BlockingIOError:
        return True
print("slow open", sum(still_open(s) for s in slow))
EOF
check "HTTP: slow clients hold no worker" grep -q "^other 200$" slow.out
check "HTTP: ... answered while they all wait" grep -q "^slow open 5$" slow.out
kill -TERM "$serve_pid"
t0=$(now_ms)
wait "$serve_pid"
rc=$?
check "SIGTERM: exit 0 ($rc)" test $rc = 0
check "SIGTERM: stopped promptly" test $(($(now_ms) - t0)) -lt $(bound 3000)
check "SIGTERM: said" grep -q "stopped" serve.log

# ---- openssl ts -engine gost, both ways ----
if ! command -v openssl >/dev/null || ! OPENSSL_CONF=/dev/null openssl engine gost >/dev/null 2>&1; then
  echo "openssl with gost-engine not found: interop skipped"
  finish
fi
# gost_tsa_v1: openssl's default ESSCertID (v1, SHA-1), no certs, no accuracy
tsa_common="serial = ./ossl.serial
signer_cert = ./tsa.pem
signer_key = ./tsa.key
signer_digest = md_gost12_256
default_policy = 1.2.643.100.1
digests = md_gost12_256, md_gost12_512"
cat >ts.cnf <<EOF
.include $here/support/gost_engine.cnf
[tsa]
default_tsa = gost_tsa
[gost_tsa]
$tsa_common
certs = ./ca.pem
accuracy = secs:1
ess_cert_id_alg = md_gost12_256
[gost_tsa_v1]
$tsa_common
EOF
export OPENSSL_CONF=$T/ts.cnf
# openssl queries, gostx replies, openssl verifies
openssl ts -query -data doc.bin -md_gost12_256 -cert -out oq.tsq 2>/dev/null
reply oq.tsq or.tsr 2>err
check "gostx answers openssl's query: $(cat err)" test -s or.tsr
openssl ts -verify -queryfile oq.tsq -in or.tsr -CAfile ca.pem >out 2>&1
check "openssl verifies gostx's reply: $(cat out)" grep -q "Verification: OK" out
openssl ts -verify -data doc.bin -in or.tsr -CAfile ca.pem >out 2>&1
check "openssl verifies gostx's reply against the data" grep -q "Verification: OK" out
openssl ts -query -data doc.bin -md_gost12_512 -no_nonce -out oq512.tsq 2>/dev/null
reply oq512.tsq or512.tsr 2>/dev/null
openssl ts -verify -data doc.bin -in or512.tsr -CAfile ca.pem -untrusted tsa.pem >out 2>&1
check "openssl verifies a Streebog-512 imprint's reply: $(cat out)" grep -q "Verification: OK" out
openssl ts -verify -data other.bin -in or.tsr -CAfile ca.pem >out 2>&1
check "openssl refuses it for other data" grep -q "Verification: FAILED" out
# gostx queries, openssl ts -reply signs with the GOST key, gostx verifies
"$G" ts -query -data doc.bin -cert -out gq.tsq
"$G" ts -query -data doc.bin -streebog512 -tspolicy 1.2.643.100.1 -out gq512.tsq
openssl ts -reply -queryfile gq.tsq -out gr.tsr 2>/dev/null
openssl ts -reply -queryfile gq512.tsq -out gr512.tsr 2>/dev/null
"$G" ts -verify -queryfile gq.tsq -in gr.tsr -CAfile ca.pem >out 2>err
check "gostx verifies openssl's reply: $(cat err)" grep -qx "Verification: OK" out
"$G" ts -verify -queryfile gq512.tsq -in gr512.tsr -CAfile ca.pem -untrusted tsa.pem >out 2>err
check "gostx verifies openssl's 512 reply: $(cat err)" grep -qx "Verification: OK" out
check "ESSCertIDv2 named: $(cat out)" grep -qx "TSA certificate named by: signingCertificateV2 (ESSCertIDv2, Streebog-256)" out
# openssl ts's default: signingCertificate v1, ESSCertID's SHA-1 (RFC 5816
# keeps it): read, its hash checked against the TSA's certificate, said
openssl ts -reply -section gost_tsa_v1 -queryfile gq.tsq -out gv1.tsr 2>/dev/null
"$G" ts -reply -in gv1.tsr -token_out -out gv1.tok && "$G" cms -cmsout -print -in gv1.tok -inform DER >gv1.txt 2>&1
check "openssl's token names its TSA by ESSCertID v1" grep -q "signingCertificate: SHA-1 " gv1.txt
"$G" ts -verify -queryfile gq.tsq -in gv1.tsr -CAfile ca.pem >out 2>err
check "gostx verifies openssl's ESSCertID (v1) token: $(cat err)" grep -qx "Verification: OK" out
check "... and says the form" grep -qx "TSA certificate named by: signingCertificate (ESSCertID, SHA-1)" out
# the same key and serial in another certificate: the SHA-1 names the other one
openssl ts -query -data doc.bin -md_gost12_256 -out nocert.tsq 2>/dev/null
openssl ts -reply -section gost_tsa_v1 -queryfile nocert.tsq -out gv1n.tsr 2>/dev/null
"$G" x509 -req -in tsa.csr -CA ca.pem -CAkey ca.key -extfile tsa.ext -set_serial "0x$(openssl x509 -in tsa.pem -noout -serial | cut -d= -f2)" -days 7 -out tsa_twin.pem
vfail "ESSCertID (v1) of another certificate" "signingCertificate" -data doc.bin -in gv1n.tsr -CAfile ca.pem -untrusted tsa_twin.pem
"$G" ts -verify -data doc.bin -in gv1n.tsr -CAfile ca.pem -untrusted tsa.pem >out 2>err
check "... and OK with the one it names: $(cat err)" grep -qx "Verification: OK" out
# CAdES-T with openssl's v1 token: the library's timestamp check is the same
"$G" cms -sign -in doc.bin -signer tsa.pem -inkey tsa.key -cades -out v1.sig -tsa-query v1.tsq 2>/dev/null
openssl ts -reply -section gost_tsa_v1 -queryfile v1.tsq -out v1.tsr 2>/dev/null
"$G" cms -tsa-reply v1.tsr -in v1.sig -CAfile ca.pem -out v1-t.sig 2>err
check "CAdES-T with a v1 token embedded: $(cat err)" grep -q "^Signature timestamp embedded" err
"$G" cms -verify -in v1-t.sig -content doc.bin -CAfile ca.pem 2>err >/dev/null
check "CAdES-T with a v1 token verifies: $(cat err)" grep -q "^CMS Verification successful" err
vfail "openssl's reply for another query" "nonce mismatch\|imprint mismatch" -queryfile q.tsq -in gr.tsr -CAfile ca.pem
"$G" ts -reply -in gr.tsr -text >gr.txt
check "gostx reads openssl's TSTInfo" grep -q "^Serial number: 0x01" gr.txt
finish
