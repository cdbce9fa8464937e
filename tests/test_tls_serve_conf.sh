#!/usr/bin/env bash
# gostx tls serve -c FILE: a file of services, one process. Refused files
# (exit 2, one line naming FILE:LINE); two services served at once, each
# with its own certificate (told apart by the serial `gostx tls client`
# prints); SIGHUP: a renewed certificate and key taken (new handshakes
# show the new serial), a key that does not match, a missing key, a
# certificate file that is not PEM and a key under another password than
# the passin file's refused with a message, the old ones served on; the
# command-line form reloads too. The same reload under load:
# tests/net/test_tls_reload.sh. Loopback, free ports, every wait bounded.
# Skipped (77) without openssl's gost-engine (tests/support/gost_pki.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" tls_serve_conf
TLS_HERE=$HERE/net
. "$HERE/net/tls_common.sh"
tls_pki
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT

# conf NAME: stdin into $T/NAME.conf
conf() { cat >"$T/$1.conf"; }
# refused PATTERN NAME [CODE]: serve -c $T/NAME.conf exits CODE (2), one
# line on stderr matching PATTERN
refused() {
  timeout 10 "$G" tls serve -c "$T/$2.conf" </dev/null >/dev/null 2>"$T/err"
  local rc=$?
  if [ $rc = "${3:-2}" ] && grep -qE -- "$1" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ]; then
    ok
  else
    bad "serve -c $2.conf -> rc $rc (want ${3:-2}, /$1/): $(cat "$T/err")"
  fi
}
SVC="listen = 127.0.0.1:0
backend = 127.0.0.1:9"
ID="cert = $PKI/chain-256A.pem
key = $PKI/leaf-256A.key"

conf unknown <<EOF
[web]
$SVC
$ID
verify = peer
EOF
refused "unknown.conf:6: unknown key 'verify'" unknown
conf twice <<EOF
[web]
$SVC
$ID

[web]
$SVC
$ID
EOF
refused "twice.conf:7: service \[web\] given twice \(first on line 1\)" twice
conf keytwice <<EOF
[web]
$SVC
$ID
cert = $PKI/chain-512A.pem
EOF
refused "keytwice.conf:6: cert given twice \(first on line 4\)" keytwice
conf nocert <<EOF
workers = 1

[api]
$SVC
EOF
refused "nocert.conf:3 \[api\]: --cert FILE and --key FILE are required" nocert
conf badcert <<EOF
[api]
$SVC
cert = $PKI/leaf-256A.key
key = $PKI/leaf-256A.key
EOF
refused "badcert.conf:1 \[api\]: --cert .*leaf-256A.key: no certificate in it" badcert
# files that cannot be read at the start: exit 1, the service named
# (FILE:LINE [NAME]) and the option. files NAME CERT KEY [PASSIN]: a
# service [api] of those files in $T/NAME.conf
files() {
  printf '[api]\n%s\ncert = %s\nkey = %s\n%s' "$SVC" "$2" "$3" "${4:+passin = $4
}" >"$T/$1.conf"
}
files nocertfile "$T/absent.pem" "$PKI/leaf-256A.key"
refused "nocertfile.conf:1 \[api\]: --cert $T/absent.pem: No such file" nocertfile 1
files nokeyfile "$PKI/chain-256A.pem" "$T/absent.key"
refused "nokeyfile.conf:1 \[api\]: --key $T/absent.key: No such file" nokeyfile 1
cp "$PKI/leaf-256A.key" "$T/open.key" && chmod 644 "$T/open.key"
files openkey "$PKI/chain-256A.pem" "$T/open.key"
refused "openkey.conf:1 \[api\]: --key $T/open.key has mode 0644" openkey 1
"$G" pkey -in "$PKI/leaf-256A.key" -out "$T/enc.key" -passout pass:one 2>"$T/err" || bad "pkey: $(cat "$T/err")"
files nopassfile "$PKI/chain-256A.pem" "$T/enc.key" "file:$T/absent.pass"
refused "nopassfile.conf:1 \[api\]: $T/absent.pass: No such file" nopassfile 1
files wrongpass "$PKI/chain-256A.pem" "$T/enc.key" pass:two
refused "wrongpass.conf:1 \[api\]: $T/enc.key: wrong password" wrongpass 1
conf global <<EOF
[web]
workers = 2
EOF
refused "global.conf:2: workers is a global setting" global
conf early <<EOF
listen = 127.0.0.1:0
EOF
refused "early.conf:1: listen belongs to a service" early
conf flag <<EOF
[web]
require-client = yes
EOF
refused "flag.conf:2: require-client is true or false, not 'yes'" flag
conf empty <<EOF
# nothing
EOF
refused "empty.conf: no service" empty
conf noeq <<EOF
[web
EOF
refused "noeq.conf:1: a section is written \[NAME\]" noeq
timeout 10 "$G" tls serve -c "$T/noeq.conf" --threads 1 2>"$T/err"
[ $? = 2 ] && grep -q 'takes no other options' "$T/err" && ok || bad "-c with an option: $(cat "$T/err")"

# serve_conf NAME N: serve -c $T/NAME.conf in the background (stderr in
# $T/NAME.log) until it listens N times: its pid in $PID. port_of SVC: the
# port the service [SVC] listens on.
serve_conf() {
  rm -f "$T/$1.log"
  "$G" tls serve -c "$T/$1.conf" 2>"$T/$1.log" </dev/null >/dev/null &
  PID=$!
  PIDS+=($PID)
  LOG=$T/$1.log
  for _ in $(seq $(bound 400)); do
    [ "$(grep -c 'listening on' "$LOG" 2>/dev/null)" = "$2" ] && return 0
    kill -0 $PID 2>/dev/null || break
    sleep 0.05
  done
  echo "serve -c $1.conf did not start: $(cat "$LOG")"
  return 1
}
port_of() { sed -n "s/.*\[$1\] listening on [^ ]*:\([0-9][0-9]*\),.*/\1/p" "$LOG"; }
# serial_at PORT [ARGS]: the leaf's serial a client sees there ("" when
# the handshake fails), the echo checked
serial_at() {
  local port=$1
  shift
  echo "line $port" | timeout 20 "$G" tls client "127.0.0.1:$port" --ca "$PKI/ca.pem" \
    --servername localhost --close-on-eof "$@" >"$T/c.out" 2>"$T/c.err" &&
    grep -qx "line $port" "$T/c.out" && sed -n '1,/^    serial:/s/^    serial:  //p' "$T/c.err"
}
# wait_log PATTERN COUNT: $LOG has COUNT lines matching PATTERN (5 s)
wait_log() {
  for _ in $(seq $(bound 100)); do
    [ "$(grep -cE -- "$1" "$LOG")" -ge "$2" ] && return 0
    sleep 0.05
  done
  return 1
}

tls_echo || exit 1
ECHO=127.0.0.1:$(cat "$T/echo.port")
S256A=$(openssl x509 -in "$PKI/leaf-256A.pem" -noout -serial | cut -d= -f2)
S512A=$(openssl x509 -in "$PKI/leaf-512A.pem" -noout -serial | cut -d= -f2)
S256B=$(openssl x509 -in "$PKI/leaf-256B.pem" -noout -serial | cut -d= -f2)

# two services, one process
conf two <<EOF
workers = 1   # each service's
[one]
listen = 127.0.0.1:0
backend = $ECHO
cert = $PKI/chain-256A.pem
key = $PKI/leaf-256A.key

[two]
listen = 127.0.0.1:0
backend = $ECHO
cert = $PKI/chain-512A.pem
key = $PKI/leaf-512A.key
version = 1.2
no-tickets = true
timing = true
EOF
if serve_conf two 2; then
  P1=$(port_of one) P2=$(port_of two)
  [ "$(serial_at "$P1")" = "$S256A" ] && grep -qx 'Version: TLSv1.3' "$T/c.err" && ok ||
    bad "[one] serves leaf-256A over 1.3: $(cat "$T/c.err")"
  [ "$(serial_at "$P2")" = "$S512A" ] && grep -qx 'Version: TLSv1.2' "$T/c.err" && ok ||
    bad "[two] serves leaf-512A over 1.2 only: $(cat "$T/c.err")"
  kill $PID
  wait $PID
  rc=$?
  [ $rc = 0 ] && grep -q '\[one\] stopped: 1 connections' "$LOG" &&
    grep -q '\[two\] stopped: 1 connections' "$LOG" && ok || bad "two services stop (rc $rc): $(cat "$LOG")"
  # timing = true: [two]'s connection ends with its split, [one]'s without
  grep -q '\[two\] timing: worker [0-9]*, since its last line: thread CPU' "$LOG" &&
    ! grep -q '\[one\] timing:' "$LOG" && ok || bad "timing = true in [two] only: $(cat "$LOG")"
fi

# SIGHUP: the files replaced where the config names them; the key
# encrypted, its password in a file (read again at each reload too)
# enc_key CURVE PASSWORD: $T/CURVE.enc, the leaf's key under PASSWORD
enc_key() {
  "$G" pkey -in "$PKI/leaf-$1.key" -out "$T/$1.enc" -passout "pass:$2" 2>"$T/pkey.err" ||
    bad "gostx pkey -passout: $(cat "$T/pkey.err")"
}
enc_key 256A one
enc_key 512A one
enc_key 256B two
install -m 600 "$PKI/chain-256A.pem" "$T/cert.pem"
install -m 600 "$T/256A.enc" "$T/key.pem"
echo one >"$T/pass" && chmod 600 "$T/pass"
conf reload <<EOF
workers = 2
[web]
listen = 127.0.0.1:0
backend = $ECHO
cert = $T/cert.pem
key = $T/key.pem
passin = file:$T/pass
EOF
# hup N WHAT: SIGHUP, then the Nth reload line (reloaded or refused)
hup() {
  kill -HUP $PID
  wait_log 'reloaded|reload refused' "$1" || bad "no answer to SIGHUP $1 ($2): $(cat "$LOG")"
}
if serve_conf reload 1; then
  P=$(port_of web)
  [ "$(serial_at "$P")" = "$S256A" ] && ok || bad "before the reload: $(cat "$T/c.err")"
  # a key that is not the certificate's: refused, the old pair served
  install -m 600 "$PKI/chain-256B.pem" "$T/cert.pem"
  install -m 600 "$T/512A.enc" "$T/key.pem"
  hup 1 "a key of another certificate"
  grep -q 'reload.conf:2 \[web\]: --key .*key.pem does not go with --cert' "$LOG" &&
    grep -q 'reload.conf:2 \[web\]: reload refused' "$LOG" && ok ||
    bad "a mismatched key refused: $(cat "$LOG")"
  [ "$(serial_at "$P")" = "$S256A" ] && ok || bad "served on after a refused key: $(cat "$T/c.err")"
  # the key gone
  rm "$T/key.pem"
  hup 2 "no key"
  [ "$(grep -c 'reload refused' "$LOG")" = 2 ] && [ "$(serial_at "$P")" = "$S256A" ] && ok ||
    bad "a missing key refused: $(cat "$LOG")"
  # a certificate file that is no PEM
  echo garbage >"$T/cert.pem"
  install -m 600 "$T/256B.enc" "$T/key.pem"
  hup 3 "not PEM"
  [ "$(grep -c 'reload refused' "$LOG")" = 3 ] && [ "$(serial_at "$P")" = "$S256A" ] && ok ||
    bad "a certificate that is not PEM refused: $(cat "$LOG")"
  # the renewed pair, its key under a password the file does not hold yet
  install -m 600 "$PKI/chain-256B.pem" "$T/cert.pem"
  hup 4 "a wrong password"
  [ "$(grep -c 'reload refused' "$LOG")" = 4 ] && [ "$(serial_at "$P")" = "$S256A" ] && ok ||
    bad "a wrong password refused: $(cat "$LOG")"
  # and the new password: taken
  echo two >"$T/pass"
  hup 5 "the renewed pair"
  grep -q '\[web\] reloaded' "$LOG" && [ "$(serial_at "$P")" = "$S256B" ] && ok ||
    bad "the renewed certificate served after SIGHUP: $(cat "$LOG" "$T/c.err")"
  kill $PID
  wait $PID
  rc=$?
  [ $rc = 0 ] && ok || bad "serve -c stops after reloads (rc $rc): $(cat "$LOG")"
fi

# the command-line form reloads the same way
install -m 600 "$PKI/chain-256A.pem" "$T/cert.pem"
install -m 600 "$PKI/leaf-256A.key" "$T/key.pem"
if tls_start cmdline tls serve --listen 127.0.0.1:0 --backend "$ECHO" --cert "$T/cert.pem" \
  --key "$T/key.pem" --threads 1; then
  LOG=$T/cmdline.log
  [ "$(serial_at "$PORT")" = "$S256A" ] && ok || bad "command line, before: $(cat "$T/c.err")"
  install -m 600 "$PKI/chain-256B.pem" "$T/cert.pem"
  install -m 600 "$PKI/leaf-256B.key" "$T/key.pem"
  hup 1 "the command line's files"
  grep -qx "gostx tls serve: reloaded: $T/cert.pem" "$LOG" && [ "$(serial_at "$PORT")" = "$S256B" ] &&
    ok || bad "command line: the renewed pair after SIGHUP: $(cat "$LOG")"
  kill $PID
  wait $PID
fi
finish
