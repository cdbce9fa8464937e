#!/usr/bin/env bash
# gostx tls serve -c FILE reloaded under load: 200 connections (through
# gostx tls connect, to serve, to an echo backend) move data, and new ones
# keep coming (4 each 20 ms: handshakes under way at each reload), while
# serve's certificate and key are replaced and SIGHUP sent; a key that does
# not match the new certificate is refused first (the old pair served on),
# then the renewed pair taken, and reloaded 4 times more: new handshakes
# show its serial, and every connection, established or in its handshake
# at a reload, completes byte for byte (tests/net/inflight.py). A config
# freed while handshakes still read it is caught under ASan.
# Loopback, free ports, every wait bounded (about 5 s). Skipped (77)
# without openssl's gost-engine (the test PKI).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli_common.sh" tls_reload
TLS_HERE=$HERE
. "$HERE/tls_common.sh"
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT
tls_pki
N=${TLS_RELOAD_CONNS:-200}

tls_echo || exit 1
install -m 600 "$PKI/chain-256A.pem" "$T/cert.pem"
install -m 600 "$PKI/leaf-256A.key" "$T/key.pem"
cat >"$T/serve.conf" <<EOF
workers = 2
[web]
listen = 127.0.0.1:0
backend = 127.0.0.1:$(cat "$T/echo.port")
cert = $T/cert.pem
key = $T/key.pem
EOF
serial_of() { openssl x509 -in "$PKI/$1.pem" -noout -serial | cut -d= -f2; }
OLD=$(serial_of leaf-256A) NEW=$(serial_of leaf-256B)
# serial_now: the leaf's serial a new handshake with serve shows
serial_now() {
  echo ping | timeout 20 "$G" tls client "127.0.0.1:$SERVE_PORT" --ca "$PKI/ca.pem" \
    --servername localhost --close-on-eof 2>"$T/c.err" | grep -qx ping &&
    sed -n '1,/^    serial:/s/^    serial:  //p' "$T/c.err"
}
# hup COUNT: SIGHUP, then COUNT lines of reload answers in serve's log (5 s)
hup() {
  kill -HUP "$SERVE_PID"
  for _ in $(seq $(bound 100)); do
    [ "$(grep -cE 'reloaded|reload refused' "$T/serve.log")" -ge "$1" ] && return 0
    sleep 0.05
  done
  bad "no answer to SIGHUP $1: $(cat "$T/serve.log")"
}

tls_start serve tls serve -c "$T/serve.conf" || exit 1
SERVE_PID=$PID SERVE_PORT=$PORT
tls_start connect tls connect --listen 127.0.0.1:0 --upstream "127.0.0.1:$SERVE_PORT" \
  --ca "$PKI/ca.pem" --servername localhost --threads 2 || exit 1
[ "$(serial_now)" = "$OLD" ] && ok || bad "before the reload: $(cat "$T/c.err")"

timeout 90 python3 "$HERE/inflight.py" --churn=4 "$PORT" "$N" "$T/ready" "$T/go" \
  >"$T/inflight.out" 2>&1 &
load=$!
for _ in $(seq $(bound 600)); do [ -e "$T/ready" ] || ! kill -0 $load 2>/dev/null && break; sleep 0.05; done
[ -e "$T/ready" ] || bad "the $N connections did not start: $(cat "$T/inflight.out")"

# the new certificate beside the old key: refused, the old pair served on
install -m 600 "$PKI/chain-256B.pem" "$T/cert.pem"
hup 1
grep -q 'does not go with --cert' "$T/serve.log" && grep -q 'reload refused' "$T/serve.log" &&
  [ "$(serial_now)" = "$OLD" ] && ok || bad "a key of another certificate refused: $(cat "$T/serve.log")"
# the renewed pair
install -m 600 "$PKI/leaf-256B.key" "$T/key.pem"
hup 2
grep -q '\[web\] reloaded' "$T/serve.log" && [ "$(serial_now)" = "$NEW" ] && ok ||
  bad "the renewed certificate on new handshakes: $(cat "$T/serve.log" "$T/c.err")"
# more swaps, each while handshakes are under way
for i in 3 4 5 6; do hup $i; sleep 0.1; done
[ "$(grep -c '\[web\] reloaded' "$T/serve.log")" = 5 ] && ok || bad "5 reloads: $(cat "$T/serve.log")"
touch "$T/go"
wait $load
rc=$?
# all of them: the first N and those opened during the reloads
[ $rc = 0 ] && grep -qx "complete \([0-9]*\) of \1" "$T/inflight.out" &&
  [ "$(sed -n 's/^complete \([0-9]*\) of .*/\1/p' "$T/inflight.out")" -gt "$N" ] && ok ||
  bad "connections across the reload (rc $rc): $(tail -5 "$T/inflight.out")"
kill "$SERVE_PID"
wait "$SERVE_PID"
rc=$?
[ $rc = 0 ] && grep -q 'stopped: .* 0 failed' "$T/serve.log" && ok ||
  bad "serve stops, no connection failed (rc $rc): $(tail -3 "$T/serve.log")"
finish
