#!/usr/bin/env bash
# gostx tls end to end on loopback with real peers: nginx (Debian's package)
# serves files over plain HTTP, `gostx tls serve` terminates GOST TLS in
# front of it, `gostx tls connect` gives curl a plain port that reaches
# serve over GOST TLS. Checked: a 64 MiB random file arrives byte-exact; 200
# connections at once each byte-exact while a rate-limited download and a
# connection that never says anything hang on (a slow peer blocks no one);
# half-close both ways against a backend that answers only at the end of its
# input (1 MiB; 120 connections at once of 0 bytes to 1 MiB in random
# pieces); `gostx tls client` prints the version, suite, group, scheme, ALPN
# and chain for every suite, group and a 256- and a 512-bit certificate (PEM
# with an encrypted key and -passin; DER with --chain); client certificates
# (required, optional, untrusted); external PSKs (--psk, --psk-file: serve
# without a certificate, curl through connect; a wrong key refused with
# decrypt_error, an unknown identity or none with handshake_failure; a
# certificate beside the PSK for clients without it); the key logs of both
# sides agree; the
# failures (unknown CA, wrong name, expired certificate, no common suite, no
# client certificate, an untrusted upstream behind connect) exit 1, name the
# check or alert and deliver nothing; serve's handshake timeout; out of
# descriptors the server sheds connections instead of spinning; [::1];
# SIGTERM stops serve and connect cleanly (exit 0); the client: a 64 MiB
# download into a pipe byte-exact, the pipe grown to hold its batches.
# Loopback only, free ports, every wait bounded. Needs nginx, curl, python3;
# skipped (77) without openssl's gost-engine (the test PKI).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli_common.sh" tls
TLS_HERE=$HERE
. "$HERE/tls_common.sh"
for tool in curl python3 timeout cmp; do
  command -v $tool >/dev/null || { echo "FAIL: $tool missing (.ci/run installs it)"; exit 1; }
done
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] ||
  { echo "FAIL: nginx missing (.ci/run installs it)"; exit 1; }
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT
say() { echo "ok: $*"; ok; }
tls_pki

mkdir -p "$T/www"
echo "hello over GOST TLS" >"$T/www/index.html"
head -c 64M /dev/urandom >"$T/www/big"
head -c 256K /dev/urandom >"$T/www/mid"
tls_nginx || { bad "nginx"; finish; }

tls_start serve tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --alpn http/1.1 \
  --keylog "$T/serve.keylog" || { bad "serve"; finish; }
SPORT=$PORT SPID=$PID
tls_start connect tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:$SPORT \
  --ca "$PKI/ca.pem" --servername localhost || { bad "connect"; finish; }
CPORT=$PORT CPID=$PID
URL=http://127.0.0.1:$CPORT

# the large file; serve reads nginx in large pieces and sends several
# records a write: its write calls (/proc/PID/io syscw) stay well under one
# a record (4096 records of 16 KiB; one a record before the relay's
# buffers held four)
syscw() { sed -n 's/^syscw: //p' "/proc/$1/io" 2>/dev/null; }
w0=$(syscw $SPID)
if timeout 120 curl -sS -o "$T/big.got" "$URL/big" && cmp -s "$T/big.got" "$T/www/big"; then
  say "64 MiB through connect -> serve -> nginx byte-exact"
else
  bad "64 MiB transfer: $(cmp "$T/big.got" "$T/www/big" 2>&1)"
fi
rm -f "$T/big.got"
w1=$(syscw $SPID)
if [ -n "$w0" ] && [ -n "$w1" ]; then
  [ $((w1 - w0)) -lt 3072 ] && say "serve sent 64 MiB in $((w1 - w0)) writes (< 3072)" ||
    bad "serve sent 64 MiB in $((w1 - w0)) writes (>= 3072: about one a record)"
fi

# a slow reader (64 KiB/s) and a silent TCP connection to serve stay open
# through the 200
curl -s --limit-rate 64K -o /dev/null "$URL/big" &
slow=$!
PIDS+=($slow)
exec 7<>/dev/tcp/127.0.0.1/$SPORT
args=()
mkdir "$T/many"
for i in $(seq 200); do args+=(-o "$T/many/$i" "$URL/mid?$i"); done
timeout 120 curl -s -Z --parallel-max 200 --parallel-immediate "${args[@]}" 2>"$T/many.err"
good=0
for i in $(seq 200); do cmp -s "$T/many/$i" "$T/www/mid" && good=$((good + 1)); done
[ $good = 200 ] && say "200 connections at once, each byte-exact" ||
  bad "200 connections: $good byte-exact ($(head -c 300 "$T/many.err"))"
kill -0 $slow 2>/dev/null && say "the slow download is still going meanwhile" ||
  bad "the slow download ended early"
kill $slow 2>/dev/null
exec 7<&-

# gostx tls client: the fields, per suite and per group
GET=$'GET /index.html HTTP/1.0\r\n\r\n'
client() { # client OUT ARGS...: a request through gostx tls client; rc in $rc
  local out=$1
  shift
  printf '%s' "$GET" | timeout 30 "$G" tls client "$@" >"$T/$out.out" 2>"$T/$out.err"
  rc=$?
}
field() { sed -n "s/^$2: //p" "$T/$1.err"; }
for s in KUZNYECHIK_MGM_L MAGMA_MGM_L KUZNYECHIK_MGM_S MAGMA_MGM_S; do
  client s "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" --servername localhost --suites $s --alpn h2,http/1.1
  if [ $rc = 0 ] && [ "$(field s Suite)" = "TLS_GOSTR341112_256_WITH_$s" ] &&
    [ "$(field s Version)" = TLSv1.3 ] && [ "$(field s Scheme)" = gostr34102012_256a ] &&
    [ "$(field s ALPN)" = http/1.1 ] && [ "$(field s 'Server name')" = localhost ] &&
    grep -q '^  0 subject: CN=localhost, O=gostx test$' "$T/s.err" &&
    grep -q '^    issuer:  CN=gostx test intermediate, O=gostx test$' "$T/s.err" &&
    grep -q '^  1 subject: CN=gostx test intermediate, O=gostx test$' "$T/s.err" &&
    grep -q 'hello over GOST TLS' "$T/s.out" && grep -q '^HTTP/1.1 200' "$T/s.out"; then
    say "client, suite $s: version, suite, scheme, ALPN, chain, the answer"
  else
    bad "client --suites $s (rc $rc): $(cat "$T/s.err")"
  fi
done
# the end of stdin: by default the whole answer still comes (256 KiB here:
# nginx stops a long answer at the end of its request's data); with
# --close-on-eof close_notify goes at once, serve half-closes the backend,
# and nginx's short answer still comes back
GET=$'GET /mid HTTP/1.0\r\n\r\n'
client m "127.0.0.1:$SPORT" --ca "$PKI/ca.pem"
[ $rc = 0 ] && tail -c 262144 "$T/m.out" | cmp -s - "$T/www/mid" &&
  say "client: stdin's end, then a 256 KiB answer byte-exact" ||
  bad "client 256 KiB (rc $rc, $(wc -c <"$T/m.out") bytes): $(tail -2 "$T/m.err")"
# the 64 MiB file through the client into a pipe: the records of many
# socket reads gathered into one write of stdout come out byte-exact, and
# the client grew the pipe to hold such a write (512 KiB: two batches)
GET=$'GET /big HTTP/1.0\r\n\r\n'
printf '%s' "$GET" | timeout 60 "$G" tls client "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" 2>"$T/p.err" |
  python3 -c '
import fcntl, hashlib, sys
fd = sys.stdin.fileno()
data = bytearray()
while True:
    b = sys.stdin.buffer.read1(1 << 20)
    if not b: break
    data += b
print(fcntl.fcntl(fd, 1032), hashlib.sha256(data[-(64 << 20):]).hexdigest())' >"$T/p.out"
want="524288 $(sha256sum "$T/www/big" | cut -d' ' -f1)"
[ "$(cat "$T/p.out")" = "$want" ] &&
  say "client: 64 MiB into a pipe, byte-exact, the pipe grown to 512 KiB" ||
  bad "client 64 MiB into a pipe: '$(cat "$T/p.out")', want '$want': $(tail -2 "$T/p.err")"
GET=$'GET /index.html HTTP/1.0\r\n\r\n'
client h "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" --close-on-eof
[ $rc = 0 ] && grep -q 'hello over GOST TLS' "$T/h.out" &&
  say "client --close-on-eof: close_notify at stdin's end, the answer after the half-close" ||
  bad "client --close-on-eof (rc $rc): $(tail -2 "$T/h.err")"
# half-close end to end, against a backend that answers only at the end of
# its input (it echoes all it read): the client's --close-on-eof sends
# close_notify, serve half-closes the backend, the echo comes back whole;
# and a plain client's half-close through connect (its end of data becomes
# close_notify, then serve's half-close) the same way
python3 -c '
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
def echo(c):
    data = []
    while True:
        b = c.recv(65536)
        if not b: break
        data.append(b)
    c.sendall(b"".join(data)); c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=echo, args=(c,), daemon=True).start()
' >"$T/echo.port" &
PIDS+=($!)
for _ in $(seq $(bound 200)); do [ -s "$T/echo.port" ] && break; sleep 0.05; done
head -c 1M /dev/urandom >"$T/echo.in"
if tls_start echo tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$(cat "$T/echo.port") \
  --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key"; then
  EPORT=$PORT
  timeout 30 "$G" tls client "127.0.0.1:$EPORT" --ca "$PKI/ca.pem" --close-on-eof \
    <"$T/echo.in" >"$T/echo.out" 2>"$T/echo.err"
  rc=$?
  [ $rc = 0 ] && cmp -s "$T/echo.in" "$T/echo.out" &&
    say "client --close-on-eof -> serve -> a backend that answers at end of data: 1 MiB echoed whole" ||
    bad "echo through serve (rc $rc, $(wc -c <"$T/echo.out") bytes): $(tail -2 "$T/echo.err")"
  if tls_start echoc tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:$EPORT \
    --ca "$PKI/ca.pem" --servername localhost; then
    timeout 30 python3 -c '
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.sendall(open(sys.argv[2], "rb").read()); c.shutdown(socket.SHUT_WR)
out = []
while True:
    b = c.recv(65536)
    if not b: break
    out.append(b)
open(sys.argv[3], "wb").write(b"".join(out))
' "$PORT" "$T/echo.in" "$T/echo.out2" &&
      cmp -s "$T/echo.in" "$T/echo.out2" &&
      say "a plain client's half-close through connect and serve: 1 MiB echoed whole" ||
      bad "half-close through connect: $(wc -c <"$T/echo.out2" 2>&1) bytes back"
    # 120 at once: 0 bytes, record edges (16383, 16384, 16385), 1 MiB, sent
    # in random pieces, read back in pieces of 1 byte to 64 KiB
    timeout 120 python3 -c '
import os, random, socket, sys, threading
from gostx_test_time import bound
bad = []
def one(i):
    rnd = random.Random(i)
    data = os.urandom(rnd.choice([0, 1, 100, 16383, 16384, 16385, 100000, 1 << 20]))
    try:
        c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=bound(60))
        off = 0
        while off < len(data):
            k = rnd.randint(1, 70000)
            c.sendall(data[off:off + k])
            off += k
        c.shutdown(socket.SHUT_WR)
        out = []
        while True:
            b = c.recv(rnd.choice([1, 100, 65536]))
            if not b: break
            out.append(b)
        if b"".join(out) != data: bad.append((len(data), len(b"".join(out))))
    except Exception as e:
        bad.append((len(data), repr(e)))
ts = [threading.Thread(target=one, args=(i,)) for i in range(120)]
for t in ts: t.start()
for t in ts: t.join()
print(len(bad), bad[:3])
' "$PORT" >"$T/mixed.out" 2>&1
    [ "$(cut -d' ' -f1 "$T/mixed.out")" = 0 ] &&
      say "120 half-closing connections at once through connect and serve, sizes 0 to 1 MiB, each echoed whole" ||
      bad "mixed half-closing connections: $(cat "$T/mixed.out")"
  else
    bad "connect to the echo serve"
  fi
else
  bad "serve in front of the echo backend"
fi

for g in GC256A GC256B GC256C GC256D GC512A GC512B GC512C; do
  client g "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" --groups $g
  [ $rc = 0 ] && [ "$(field g Group)" = $g ] && grep -q 'hello over GOST TLS' "$T/g.out" &&
    say "client, group $g (servername from HOST:PORT: 127.0.0.1 in the SAN)" ||
    bad "client --groups $g (rc $rc): $(cat "$T/g.err")"
done

# a 512-bit certificate (paramSetC), its key encrypted (-passin)
"$G" pkey -in "$PKI/leaf-512C.key" -out "$T/512C.key" -passout pass:tls-test 2>"$T/pkey.err" ||
  bad "gostx pkey -passout: $(cat "$T/pkey.err")"
if tls_start serve512 tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/leaf-512C.pem" --chain "$PKI/int.pem" --key "$T/512C.key" -passin pass:tls-test; then
  client c512 "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --servername localhost --version 1.3
  [ $rc = 0 ] && [ "$(field c512 Scheme)" = gostr34102012_512c ] &&
    grep -q 'hello over GOST TLS' "$T/c512.out" &&
    say "a 512 paramSetC certificate (--chain, encrypted key with -passin): scheme gostr34102012_512c" ||
    bad "512C server (rc $rc): $(cat "$T/c512.err")"
else
  bad "serve with the 512C certificate and an encrypted key"
fi

# serve --timing: a line as each connection ends, its worker's thread CPU
# split into system calls (plain, TLS, epoll), TLS and the rest, the parts
# adding up to the whole, with the connection's bytes; serve without it
# prints none
if tls_start timed tls serve --threads 1 --timing --listen 127.0.0.1:0 \
  --backend 127.0.0.1:$NGINX_PORT --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key"; then
  GET=$'GET /mid HTTP/1.0\r\n\r\n'
  client tm "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --servername localhost
  for _ in $(seq $(bound 100)); do grep -q 'timing: worker' "$T/timed.log" && break; sleep 0.05; done
  line=$(grep 'timing: worker 0' "$T/timed.log")
  read -r all sys pl tl ep tls rest bytes <<<"$(sed -n 's/.*thread CPU \([0-9]*\) us = system calls \([0-9]*\) us (plain \([0-9]*\), TLS \([0-9]*\), epoll \([0-9]*\)) + TLS \([0-9]*\) us (handshakes, records) + the rest \([0-9]*\) us; the connection relayed \([0-9]*\) bytes$/\1 \2 \3 \4 \5 \6 \7 \8/p' <<<"$line")"
  if [ $rc = 0 ] && tail -c 262144 "$T/tm.out" | cmp -s - "$T/www/mid" && [ -n "$bytes" ] &&
    [ "$bytes" -gt 262144 ] && [ "$tls" -gt 0 ] && [ "$pl" -gt 0 ] &&
    [ $(((sys - pl - tl - ep) ** 2)) -le 4 ] && [ $(((all - sys - tls - rest) ** 2)) -le 9 ]; then
    say "serve --timing: $line"
  else
    bad "serve --timing (rc $rc): '$line' $(tail -2 "$T/tm.err")"
  fi
  GET=$'GET /index.html HTTP/1.0\r\n\r\n'
else
  bad "serve --timing did not start"
fi
grep -q 'timing:' "$T/serve.log" && bad "serve without --timing printed a timing line" ||
  say "serve without --timing: no timing line"
# connect --timing: curl through it, its line names connect and the bytes
if tls_start ctimed tls connect --timing --threads 1 --listen 127.0.0.1:0 \
  --upstream 127.0.0.1:$SPORT --ca "$PKI/ca.pem" --servername localhost; then
  if timeout 30 curl -sS -o "$T/ct.got" "http://127.0.0.1:$PORT/mid" && cmp -s "$T/ct.got" "$T/www/mid"; then
    for _ in $(seq $(bound 100)); do grep -q 'timing: worker' "$T/ctimed.log" && break; sleep 0.05; done
    sed -n 's/^gostx tls connect: timing: worker 0, since its last line: thread CPU [0-9]* us = .* relayed \([0-9]*\) bytes$/\1/p' \
      "$T/ctimed.log" | awk '$1 > 262144 {ok = 1} END {exit !ok}' &&
      say "connect --timing: $(grep -c 'timing: worker' "$T/ctimed.log") line(s)" ||
      bad "connect --timing: $(cat "$T/ctimed.log")"
  else
    bad "curl through connect --timing"
  fi
else
  bad "connect --timing did not start"
fi

# the key logs: SSLKEYLOGFILE for the client, --keylog for serve; every
# line the client wrote is in serve's log too (same secrets both sides)
printf '%s' "$GET" | SSLKEYLOGFILE="$T/client.keylog" timeout 30 "$G" tls client \
  "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" >/dev/null 2>"$T/kl.err"
grep -q "writing the TLS secrets to $T/client.keylog (SSLKEYLOGFILE)" "$T/kl.err" &&
  say "the client says it writes the secrets (SSLKEYLOGFILE)" || bad "key log notice: $(head -2 "$T/kl.err")"
kl_lines=$(grep -cE '^(CLIENT|SERVER)_(HANDSHAKE_TRAFFIC_SECRET|TRAFFIC_SECRET_0) [0-9a-f]{64} [0-9a-f]{64}$' \
  "$T/client.keylog" 2>/dev/null)
missing=$(grep -vxFf "$T/serve.keylog" "$T/client.keylog" 2>/dev/null | wc -l)
[ "${kl_lines:-0}" = 4 ] && [ "$missing" = 0 ] &&
  say "key log (SSLKEYLOGFILE, --keylog): the four TLS 1.3 secrets, the same on both sides" ||
  bad "key log: $kl_lines lines, $missing not in serve's: $(cat "$T/client.keylog" 2>&1 | head -5)"

# failures: exit 1, the check named, nothing delivered
fails() { # fails WHAT PATTERN: the last client failed as it should
  if [ $rc = 1 ] && grep -qiE "$2" "$T/f.err" && [ ! -s "$T/f.out" ]; then
    say "$1: exit 1, '$(grep -oiE "$2" "$T/f.err" | head -1)' named, nothing delivered"
  else
    bad "$1: rc $rc, stdout $(wc -c <"$T/f.out") bytes: $(cat "$T/f.err")"
  fi
}
client f "127.0.0.1:$SPORT" --ca "$PKI/rogue-ca.pem"
fails "unknown CA" 'unknown.?ca'
client f "127.0.0.1:$SPORT" --ca "$PKI/ca.pem" --servername wrong.example
fails "wrong servername" 'name mismatch|mismatch'
if tls_start expired tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/chain-bad-expired.pem" --key "$PKI/bad-expired.key"; then
  client f "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --servername localhost
  fails "expired server certificate" 'expired'
else
  bad "serve with an expired certificate"
fi
# one suite only, the certificate in DER (--chain the intermediate), a
# handshake timeout of 1 s (scaled with the load: the DER client's own
# handshake must fit inside it on a busy machine)
sed '/-----/d' "$PKI/leaf-256A.pem" | base64 -d >"$T/leaf.der"
if tls_start kuz tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT --timeout $(bound 1) \
  --cert "$T/leaf.der" --chain "$PKI/int.pem" --key "$PKI/leaf-256A.key" --suites KUZNYECHIK_MGM_L; then
  client f "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --suites MAGMA_MGM_L
  fails "no suite in common" 'handshake_failure|insufficient_security|suite'
  client d "127.0.0.1:$PORT" --ca "$PKI/ca.pem"
  [ $rc = 0 ] && grep -q '^  1 subject: CN=gostx test intermediate' "$T/d.err" &&
    say "a DER certificate with --chain: the chain sent whole" || bad "DER --cert: $(tail -2 "$T/d.err")"
  exec 8<>/dev/tcp/127.0.0.1/$PORT
  for _ in $(seq $(bound 100)); do grep -q 'handshake timed out' "$T/kuz.log" && break; sleep 0.05; done
  grep -q 'handshake timed out' "$T/kuz.log" && say "serve --timeout: a silent connection dropped" ||
    bad "handshake timeout: $(tail -2 "$T/kuz.log")"
  exec 8<&-
else
  bad "serve --suites KUZNYECHIK_MGM_L with a DER certificate"
fi

# external PSKs (--psk, --psk-file): serve with a PSK and no certificate;
# the client with the PSK and no --ca gets the page, "Scheme: (none: the
# PSK)"; connect with --psk-file, curl through it; a wrong key is refused
# by the server's binder check (decrypt_error), an identity it does not
# know finds no certificate (handshake_failure), a client without a PSK
# the same; serve with a certificate and a PSK still serves a client with
# --ca only (the certificate handshake)
PK=$(printf '%064x' 7)
printf 'gostx test psk:%s\n' "$PK" >"$T/ok.psk"
chmod 600 "$T/ok.psk" # a secret file: refused if others can read it
if tls_start psk tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --psk "gostx test psk:$PK"; then
  PSKPORT=$PORT
  client p "127.0.0.1:$PSKPORT" --psk "gostx test psk:$PK"
  if [ $rc = 0 ] && [ "$(field p Scheme)" = "(none: the PSK)" ] &&
    grep -q '^Peer chain: 0 certificates$' "$T/p.err" && grep -q 'hello over GOST TLS' "$T/p.out"; then
    say "--psk: serve without a certificate, client without --ca: the PSK handshake, the answer"
  else
    bad "--psk handshake (rc $rc): $(cat "$T/p.err")"
  fi
  if tls_start pskc tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:$PSKPORT \
    --psk-file "$T/ok.psk"; then
    timeout 30 curl -sS "http://127.0.0.1:$PORT/index.html" >"$T/p.curl" 2>&1
    grep -q 'hello over GOST TLS' "$T/p.curl" && say "--psk-file: curl through connect with a PSK" ||
      bad "curl through connect --psk-file: $(head -c 300 "$T/p.curl")"
  else
    bad "connect --psk-file"
  fi
  client f "127.0.0.1:$PSKPORT" --psk "gostx test psk:$(printf '%064x' 8)"
  fails "a wrong PSK key" 'decrypt_error'
  client f "127.0.0.1:$PSKPORT" --psk "another identity:$PK"
  fails "a PSK identity the server does not know" 'handshake_failure'
  client f "127.0.0.1:$PSKPORT" --insecure
  fails "no PSK to a PSK-only server" 'handshake_failure'
else
  bad "serve --psk"
fi
if tls_start pskcert tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --psk "gostx test psk:$PK"; then
  client p "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --servername localhost
  [ $rc = 0 ] && [ "$(field p Scheme)" = gostr34102012_256a ] && grep -q 'hello over GOST TLS' "$T/p.out" &&
    say "serve with a certificate and a PSK: a client without the PSK gets the certificate" ||
    bad "serve --cert --psk, client --ca (rc $rc): $(cat "$T/p.err")"
  client p "127.0.0.1:$PORT" --psk "gostx test psk:$PK" --ca "$PKI/ca.pem"
  [ $rc = 0 ] && [ "$(field p Scheme)" = "(none: the PSK)" ] &&
    say "serve with a certificate and a PSK: a client with the PSK takes it" ||
    bad "serve --cert --psk, client --psk (rc $rc): $(cat "$T/p.err")"
else
  bad "serve --cert --psk"
fi

# client certificates
if tls_start req tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --ca "$PKI/ca.pem" --require-client; then
  RPORT=$PORT
  client f "127.0.0.1:$RPORT" --ca "$PKI/ca.pem"
  fails "--require-client, no client certificate" 'certificate_required|certificate'
  client cc "127.0.0.1:$RPORT" --ca "$PKI/ca.pem" --cert "$PKI/chain-256B.pem" --key "$PKI/leaf-256B.key"
  [ $rc = 0 ] && grep -q 'hello over GOST TLS' "$T/cc.out" &&
    say "--require-client: a client with a certificate gets through" ||
    bad "client certificate (rc $rc): $(cat "$T/cc.err")"
  client f "127.0.0.1:$RPORT" --ca "$PKI/ca.pem" --cert "$PKI/chain-bad-unknownca.pem" \
    --key "$PKI/bad-unknownca.key"
  [ $rc = 1 ] && [ ! -s "$T/f.out" ] && say "--require-client: an untrusted client certificate refused" ||
    bad "untrusted client certificate (rc $rc): $(cat "$T/f.err")"
else
  bad "serve --require-client"
fi

if tls_start opt tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
  --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --ca "$PKI/ca.pem" --verify-client; then
  client v1 "127.0.0.1:$PORT" --ca "$PKI/ca.pem"
  client v2 "127.0.0.1:$PORT" --ca "$PKI/ca.pem" --cert "$PKI/chain-512A.pem" --key "$PKI/leaf-512A.key"
  grep -q 'hello over GOST TLS' "$T/v1.out" && grep -q 'hello over GOST TLS' "$T/v2.out" &&
    say "--verify-client: clients with and without a certificate get through" ||
    bad "--verify-client: $(tail -1 "$T/v1.err") / $(tail -1 "$T/v2.err")"
else
  bad "serve --verify-client"
fi

# connect to an upstream it cannot trust: curl sees a failure (reset), not
# an empty answer, and connect says why
if tls_start badconn tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:$SPORT \
  --ca "$PKI/rogue-ca.pem" --servername localhost; then
  timeout 30 curl -s -o "$T/bad.got" "http://127.0.0.1:$PORT/index.html"
  rc=$?
  for _ in $(seq $(bound 100)); do grep -q 'unknown CA' "$T/badconn.log" && break; sleep 0.05; done
  [ $rc != 0 ] && [ $rc != 124 ] && [ ! -s "$T/bad.got" ] && grep -q 'unknown CA' "$T/badconn.log" &&
    say "connect to an untrusted upstream: curl fails (exit $rc), connect logs the unknown CA" ||
    bad "connect, untrusted upstream: curl rc $rc: $(cat "$T/badconn.log")"
else
  bad "connect --ca rogue-ca.pem"
fi

# IPv6 loopback, where the system has it
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  if tls_start v6 tls connect --listen '[::1]:0' --upstream 127.0.0.1:$SPORT --ca "$PKI/ca.pem" \
    --servername localhost; then
    timeout 30 curl -s -g "http://[::1]:$PORT/index.html" | grep -q 'hello over GOST TLS' &&
      say "connect listening on [::1]" || bad "connect on [::1]: $(cat "$T/v6.log")"
  else
    bad "connect --listen [::1]:0"
  fi
fi

# out of descriptors (a limit of 32): the connections past it are closed,
# the server does not spin meanwhile, and serves again once they are gone
if command -v prlimit >/dev/null; then
  "$G" tls serve --threads 1 --listen 127.0.0.1:0 --backend 127.0.0.1:$NGINX_PORT \
    --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" 2>"$T/fd.log" </dev/null &
  FPID=$!
  PIDS+=($FPID)
  prlimit --pid $FPID --nofile=32:32
  for _ in $(seq $(bound 200)); do
    FPORT=$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\),.*/\1/p' "$T/fd.log" 2>/dev/null)
    [ -n "$FPORT" ] && break
    sleep 0.05
  done
  mkfifo "$T/hold"
  timeout 60 python3 -c '
import socket, sys
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(60)]
open(sys.argv[2]).read()
' "$FPORT" "$T/hold" &
  holder=$!
  for _ in $(seq $(bound 200)); do grep -q 'out of file descriptors' "$T/fd.log" && break; sleep 0.05; done
  t0=$(awk '{print $14 + $15}' /proc/$FPID/stat)
  # one second of the server's life with 60 connections held: CPU time
  # well under it (the reserve descriptor sheds the extra ones)
  sleep 1 # (not timeout: scaled on a busy machine, this window must stay 1 s)
  t1=$(awk '{print $14 + $15}' /proc/$FPID/stat)
  echo >"$T/hold"
  wait $holder
  client fd "127.0.0.1:$FPORT" --ca "$PKI/ca.pem"
  grep -q 'out of file descriptors' "$T/fd.log" && [ $((t1 - t0)) -lt $(($(getconf CLK_TCK) / 4)) ] &&
    [ $rc = 0 ] && grep -q 'hello over GOST TLS' "$T/fd.out" &&
    say "out of descriptors: the extra connections closed, no spinning ($((t1 - t0)) ticks in 1 s), served after" ||
    bad "out of descriptors: $((t1 - t0)) ticks, client rc $rc: $(tail -3 "$T/fd.log")"
fi

# SIGTERM: serve and connect stop, exit 0
for p in "$CPID:connect" "$SPID:serve"; do
  kill -TERM "${p%%:*}"
  code=
  for _ in $(seq $(bound 100)); do
    kill -0 "${p%%:*}" 2>/dev/null || { wait "${p%%:*}"; code=$?; break; }
    sleep 0.05
  done
  [ "$code" = 0 ] && grep -q 'stopped' "$T/${p#*:}.log" && say "SIGTERM stops ${p#*:} (exit 0)" ||
    bad "SIGTERM ${p#*:}: exit '$code': $(tail -3 "$T/${p#*:}.log")"
done
finish
