#!/bin/bash
# gostx ocsp, client and responder, on 127.0.0.1 (a free port, every wait
# bounded): good, revoked and unknown over HTTP POST (SHA-1 and Streebog
# CertIDs, with and without a nonce) and GET; garbage gets malformedRequest,
# a bad HTTP request 400, an oversized one 413, and the responder lives on;
# index.txt read again when it changes. The client's refusals, each named,
# exit 1: a response for another certificate, unsigned, a bad signature, a
# responder without OCSPSigning, stale, another nonce, truncated DER, each
# text the one docs/OCSP.md quotes. A responder whose -rsigner is neither
# the CA nor has OCSPSigning does not start (2). Then
# the interop both ways: `openssl ocsp` (gost-engine) as client of gostx's
# responder and as responder to gostx's client, the same statuses (skipped
# without openssl's gost engine).
. "$(dirname "$0")/cli_common.sh" ocsp
cd "$T"
srv_pid=
trap '[ -n "$srv_pid" ] && kill $srv_pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

# the PKI, made by gostx: a CA, two responders (one without the EKU), leaves
. "$here/support/ocsp_pki.sh"
ocsp_pki 512A 256A rsp:0x2001:rsp norsp:0x2002:leaf leaf1:0x1001:leaf leaf2:0x1002:leaf leaf3:0x1003:leaf

quiet() { "$@" > /dev/null 2>&1; }
statuses() { grep -oE '^leaf[0-9]\.pem: [a-z]+' "$1" | tr '\n' ' '; }
want="leaf1.pem: good leaf2.pem: revoked leaf3.pem: unknown "
start_responder() { # start_responder ARGS...: $srv_pid, $url
  : > srv.err
  timeout "$(bound 60)" "$G" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key \
    -bind 127.0.0.1 -port 0 -nmin 5 "$@" 2> srv.err &
  srv_pid=$!
  local i
  port=
  for ((i = 0; i < $(bound 50); i++)); do
    port=$(sed -n 's/.*on port \([0-9]*\) .*/\1/p' srv.err)
    [ -n "$port" ] && break
    sleep 0.1
  done
  url=http://127.0.0.1:$port/
}
ask() { # ask OUT ARGS...: the client against $url, its exit status in $rc
  local out=$1; shift
  timeout "$(bound 20)" "$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -cert leaf3.pem \
    -url "$url" "$@" > "$out.out" 2> "$out.err"
  rc=$?
}

start_responder
ask sha1
check "client: good, revoked, unknown" [ "$rc:$(statuses sha1.out)" = "0:$want" ]
check "client: Response verify OK" grep -q "^Response verify OK" sha1.err
check "client: the reason" grep -q "Reason: keyCompromise" sha1.out
ask gost -md_gost12_256 -no_nonce
check "Streebog-256 CertIDs, no nonce" [ "$rc:$(statuses gost.out)" = "0:$want" ]
ask gost512 -md_gost12_512 -CAfile ca.pem
check "Streebog-512 CertIDs, -CAfile" [ "$rc:$(statuses gost512.out)" = "0:$want" ]
# garbage, HTTP refusals and GET, through Python's http.client
cat > http_probe.py <<'PY'
import base64, http.client, sys, urllib.parse
from gostx_test_time import bound
host, port = "127.0.0.1", int(sys.argv[1])
def post(body, ctype="application/ocsp-request"):
    c = http.client.HTTPConnection(host, port, timeout=bound(10))
    c.request("POST", "/", body, {"Content-Type": ctype})
    r = c.getresponse(); return r.status, r.read()
st, body = post(b"garbage")
print("garbage", st, body.hex())
st, body = post(b"\x30\x80" + b"\x00" * 50)
print("indefinite", st, body.hex())
st, body = post(b"x" * 70000)
print("oversized", st)
c = http.client.HTTPConnection(host, port, timeout=bound(10))
c.request("PUT", "/", b"x")
print("put", c.getresponse().status)
req = open("req.der", "rb").read()
c = http.client.HTTPConnection(host, port, timeout=bound(10))
c.request("GET", "/" + urllib.parse.quote(base64.b64encode(req).decode(), safe=""))
r = c.getresponse(); open("get.der", "wb").write(r.read()); print("get", r.status)
# two requests on one connection (keep-alive)
c = http.client.HTTPConnection(host, port, timeout=bound(10))
for i in range(2):
    c.request("POST", "/", req, {"Content-Type": "application/ocsp-request"})
    r = c.getresponse(); open("ka%d.der" % i, "wb").write(r.read())
print("keepalive", r.status)
PY
"$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -cert leaf3.pem -no_nonce -reqout req.der
timeout "$(bound 20)" python3 http_probe.py "$port" > http.out 2>&1 || sed 's/^/  /' http.out
check "garbage: malformedRequest" grep -q "^garbage 200 30030a0101$" http.out
check "indefinite length: malformedRequest" grep -q "^indefinite 200 30030a0101$" http.out
check "oversized: 413" grep -q "^oversized 413$" http.out
check "PUT: 405" grep -q "^put 405$" http.out
check "GET (RFC 6960 A.1)" grep -q "^get 200$" http.out
check "keep-alive: two answers" grep -q "^keepalive 200$" http.out
# the request parser's edges (cli/common/http.c), in bytes no client
# library sends: tests/support/http_edges.txt, each status pinned
timeout "$(bound 60)" python3 "$here/support/http_raw.py" "$port" req.der application/ocsp-request 1 > raw.out 2>&1
check "the parser's edges: $(tr '\n' ' ' < raw.out)" grep -q "^[0-9]* cases as wanted$" raw.out
for r in get ka1; do
  "$G" ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -cert leaf3.pem -no_nonce -respin $r.der > $r.out 2>&1
  check "$r: the statuses" [ "$(statuses $r.out)" = "$want" ]
done
# the GET form's base64 (RFC 4648 through gostx/base64.h), what it takes
# and refuses: a path that decodes gets malformedRequest (200), one that
# does not 400
cat > get_b64.py <<'PY'
import http.client, sys
from gostx_test_time import bound
for path in sys.argv[2:]:
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=bound(10))
    c.request("GET", "/" + path)
    print(path, c.getresponse().status)
PY
taken="Zg== Zg= Zg Zh== Z %3D%3D Zm9v Zm%2B%2F Zm9+ Zm9vYg%3D%3D"
refused="Zg=== Zg==A Zg=A Zm9v%0A Zm9v%20 Zm-_ Zm9v%00 Zm9v%2A Zm9v%C3%A9"
timeout "$(bound 20)" python3 get_b64.py "$port" $taken $refused > get_b64.out 2>&1 || sed 's/^/  /' get_b64.out
for p in $taken; do check "GET base64 $p: taken" grep -qx -- "$p 200" get_b64.out; done
for p in $refused; do check "GET base64 $p: refused" grep -qx -- "$p 400" get_b64.out; done
ask alive
check "the responder lives on" [ "$rc:$(statuses alive.out)" = "0:$want" ]
# connections that send nothing, half a request, or wait after a reply
# hold no worker: with one worker, another client is answered, and the
# half request still open is answered once its rest comes (the workers
# used to block on one connection each until its 30 s read timeout)
kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null
start_responder -threads 1
cat > slow_peers.py <<'PY'
import socket, subprocess, sys
from gostx_test_time import bound
port, gostx = int(sys.argv[1]), sys.argv[2]
req = open("req.der", "rb").read()
head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ocsp-request\r\nContent-Length: %d\r\n\r\n" % len(req)
def reply(s):
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    h, _, body = data.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in h.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(body) < n:
        body += s.recv(65536)
    return h.split(b" ")[1]
silent = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
half = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
half.sendall(head[:20])
kept = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
kept.sendall(head + req)
print("kept", reply(kept).decode())
r = subprocess.run([gostx, "ocsp", "-issuer", "ca.pem", "-cert", "leaf1.pem", "-url",
                    "http://127.0.0.1:%d/" % port, "-timeout", sys.argv[3]], capture_output=True)
print("other", r.returncode)
half.sendall(head[20:] + req)
print("half", reply(half).decode())
PY
timeout "$(bound 60)" python3 slow_peers.py "$port" "$G" "$(bound 20)" > slow.out 2>&1 || sed 's/^/  /' slow.out
check "one worker, a kept connection: answered" grep -q "^kept 200$" slow.out
check "one worker, three slow peers: another client answered" grep -q "^other 0$" slow.out
check "one worker: the half request answered once whole (still open)" grep -q "^half 200$" slow.out
kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null
# out of memory for one connection (tests/preload/fail_alloc.c refuses the
# 2048 bytes cli/common/http_serve.c holds for a request split across
# reads): that connection is dropped and the responder answers the next
# (it used to exit). Not in a sanitizer build: its runtime's malloc, linked
# into gostx, is not one LD_PRELOAD can stand in front of.
fail_lib=$(dirname "$G")/libgostx_fail_alloc.so
if [ -e "$fail_lib" ] && ! grep -qa __asan_init "$G"; then
  rm -f oom.flag
  LD_PRELOAD=$fail_lib GOSTX_FAIL_ALLOC_SIZE=2048 GOSTX_FAIL_ALLOC_FLAG=$PWD/oom.flag \
    start_responder -threads 1
  touch oom.flag
  cat > oom_peers.py <<'PY'
import socket, sys
from gostx_test_time import bound
port = int(sys.argv[1])
req = open("req.der", "rb").read()
head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ocsp-request\r\nContent-Length: %d\r\n\r\n" % len(req)
half = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
half.sendall(head[:20])
print("half", "dropped" if half.recv(100) == b"" else "answered")
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
    s.sendall(head + req)
    print("next", s.recv(100).split(b" ")[1].decode())
except OSError as e:
    print("next", e)
PY
  timeout "$(bound 30)" python3 oom_peers.py "$port" > oom.out 2>&1 || sed 's/^/  /' oom.out
  check "out of memory for a split request: that connection dropped" grep -q "^half dropped$" oom.out
  check "out of memory for one connection: the next answered" grep -q "^next 200$" oom.out
  rm -f oom.flag
  ask after_oom
  check "out of memory for one connection: the responder lives on" [ "$rc:$(statuses after_oom.out)" = "0:$want" ]
  kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null
fi
start_responder
# index.txt read again when it changes (looked at once a second)
sleep 1.1
printf 'R\t301231000000Z\t260101000000Z,superseded\t1001\tunknown\t/CN=leaf1\n' > index2.txt
tail -n 1 index.txt >> index2.txt && mv index2.txt index.txt
ask reread
check "index.txt read again" [ "$(statuses reread.out)" = "leaf1.pem: revoked leaf2.pem: revoked leaf3.pem: unknown " ]
kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null; srv_pid=
ask refused_conn
said() { [ "$rc" = "$1" ] && grep -q "$2" "$3"; } # said RC TEXT FILE
check "no responder: exit 1, said" said 1 "connecting to 127.0.0.1 port" refused_conn.err
url=https://127.0.0.1:$port/
ask https
check "https: exit 2 (plain http only)" said 2 "plain http only" https.err
printf 'V\t301231000000Z\t\t1001\tunknown\t/CN=leaf1\n' > index.txt
printf 'R\t301231000000Z\t250101000000Z,keyCompromise\t1002\tunknown\t/CN=leaf2\n' >> index.txt

# the refusals, from files (the responder answers -reqin once)
respond() { # respond REQ RESP SIGNER [ARGS]: the responder once, from a file
  local s=$3; shift 3
  "$G" ocsp -index index.txt -CA ca.pem -rsigner $s.pem -rkey $s.key -nmin 5 -reqin "$req" -respout "$resp" "$@"
}
refused() { # refused NAME TEXT ARGS...: exit 1 and TEXT on stderr (the failure kept in said.txt)
  local name=$1 text=$2; shift 2
  "$G" ocsp -issuer ca.pem "$@" > ref.out 2> ref.err
  local rc=$?
  sed -n 's/^Response Verify Failure: //p' ref.err >> said.txt
  if [ $rc = 1 ] && grep -q "$text" ref.err; then ok; else bad "$name (rc $rc): $(cat ref.err)"; fi
}
"$G" ocsp -issuer ca.pem -cert leaf1.pem -reqout n1.der
"$G" ocsp -issuer ca.pem -cert leaf1.pem -reqout n2.der
req=n1.der resp=r1.der respond n1.der r1.der rsp
check "one response from a file" quiet "$G" ocsp -issuer ca.pem -cert leaf1.pem -reqin n1.der -respin r1.der
refused "another certificate" "no status for the certificate asked" -cert leaf2.pem -no_nonce -respin r1.der
refused "nonce mismatch" "nonce: the response's is not the one sent" -cert leaf1.pem -reqin n2.der -respin r1.der
# a responder without OCSPSigning does not start for the CA (RFC 6960
# 4.2.2.2), named; posing as its own CA it answers, and the client, which
# knows the real CA, refuses the answer
timeout "$(bound 20)" "$G" ocsp -index index.txt -CA ca.pem -rsigner norsp.pem -rkey norsp.key \
  -bind 127.0.0.1 -port 0 2> noeku.err
rc=$?
check "-rsigner without OCSPSigning: refused at start (2), named" \
  test $rc = 2 -a "$(grep -c "norsp.pem may not answer for -CA ca.pem: responder: its certificate lacks extendedKeyUsage OCSPSigning" noeku.err)" = 1
req=n1.der resp=x.der respond x x norsp 2> noeku.err
rc=$?
check "... with -reqin too" test $rc = 2 -a ! -e x.der -a "$(grep -c "lacks extendedKeyUsage OCSPSigning" noeku.err)" = 1
"$G" ocsp -index index.txt -CA ca.pem -rsigner leaf1.pem -rkey leaf1.key -reqin n1.der -respout x.der 2> noeku.err
rc=$?
check "-rsigner a leaf: refused at start" test $rc = 2 -a "$(grep -c "leaf1.pem may not answer" noeku.err)" = 1
"$G" ocsp -index index.txt -CA norsp.pem -rsigner norsp.pem -rkey norsp.key -nmin 5 -reqin n1.der -respout r_noeku.der
refused "responder without OCSPSigning" "lacks extendedKeyUsage OCSPSigning" -cert leaf1.pem -reqin n1.der -respin r_noeku.der
refused "stale" "nextUpdate: the status is stale" -cert leaf1.pem -reqin n1.der -respin r1.der -attime $(($(date +%s) + 900))
req=n1.der resp=r_nocert.der respond x x rsp -resp_no_certs
len=$(stat -c %s r_nocert.der)
cp r_nocert.der unsigned.der; dd if=/dev/zero of=unsigned.der bs=1 seek=$((len - 64)) count=64 conv=notrunc status=none
refused "unsigned" "the response is unsigned" -cert leaf1.pem -reqin n1.der -respin unsigned.der -VAfile rsp.pem
cp r_nocert.der badsig.der; flip_byte badsig.der $((len - 10))
refused "bad signature" "does not verify" -cert leaf1.pem -reqin n1.der -respin badsig.der -VAfile rsp.pem
check "-VAfile: a trusted responder without certs" quiet "$G" ocsp -issuer ca.pem -cert leaf1.pem -reqin n1.der -respin r_nocert.der -VAfile rsp.pem
refused "no certificate of the responder" "no certificate of the responder" -cert leaf1.pem -reqin n1.der -respin r_nocert.der
head -c 100 r1.der > trunc.der
refused "truncated" "malformed" -cert leaf1.pem -reqin n1.der -respin trunc.der
printf 'junk' > junk.der
req=junk.der resp=r_junk.der respond x x rsp
check "a junk request: malformedRequest" cmp -s r_junk.der <(printf '\x30\x03\x0a\x01\x01')
refused "malformedRequest said" "Responder Error: malformedrequest" -cert leaf1.pem -no_nonce -respin r_junk.der
# docs/OCSP.md names each refusal as the client prints it
check "the refusals said: $(sort -u said.txt | tr '\n' ';')" test "$(sort -u said.txt | wc -l)" -ge 8
while read -r line; do
  check "docs/OCSP.md has the client's \"$line\"" grep -qF "\"$line\"" "$here/../docs/OCSP.md"
done < <(sort -u said.txt)

# interop with openssl ocsp and gost-engine, both ways
if command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1; then
  export OPENSSL_CONF=$here/support/gost_engine.cnf
  start_responder
  timeout "$(bound 20)" openssl ocsp -issuer ca.pem -cert leaf1.pem -cert leaf2.pem -cert leaf3.pem \
    -url "$url" -CAfile ca.pem > o_client.out 2> o_client.err
  rc=$?
  check "openssl client, gostx responder: the statuses" [ "$rc:$(statuses o_client.out)" = "0:$want" ]
  check "openssl client: Response verify OK" grep -q "^Response verify OK" o_client.err
  timeout "$(bound 20)" openssl ocsp -issuer ca.pem -md_gost12_256 -cert leaf1.pem -cert leaf2.pem \
    -cert leaf3.pem -url "$url" -CAfile ca.pem > o_client2.out 2> o_client2.err
  rc=$?
  check "openssl client, Streebog-256 CertIDs" [ "$rc:$(statuses o_client2.out)" = "0:$want" ]
  kill $srv_pid 2>/dev/null; wait $srv_pid 2>/dev/null; srv_pid=
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  timeout "$(bound 30)" openssl ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key \
    -port "$port" -nrequest 2 -nmin 5 > o_server.log 2>&1 &
  srv_pid=$!
  for ((i = 0; i < $(bound 50); i++)); do grep -qi "waiting for OCSP" o_server.log && break; sleep 0.1; done
  url=http://127.0.0.1:$port/
  ask o_srv
  check "gostx client, openssl responder: the statuses" [ "$rc:$(statuses o_srv.out)" = "0:$want" ]
  ask o_srv2 -md_gost12_256
  check "gostx client, openssl responder, Streebog-256 CertIDs" [ "$rc:$(statuses o_srv2.out)" = "0:$want" ]
  wait $srv_pid 2>/dev/null; srv_pid=
else
  echo "openssl's gost engine unavailable: the interop part skipped"
fi
finish
