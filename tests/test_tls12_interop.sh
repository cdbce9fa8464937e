#!/usr/bin/env bash
# TLS 1.2 (RFC 9189 suites) between gostx and the two independent GOST TLS
# 1.2 implementations of a Debian 12 machine, on loopback, in both
# directions:
#   peers    openssl s_server/s_client with gost-engine loaded as an ENGINE
#            (0xC100, 0xC101, 0xC102); GnuTLS gnutls-serv/gnutls-cli (0xC102,
#            the only GOST suite it has)
#   rows     suite x direction (our client -> their server, their client ->
#            our server) x client certificate (none, required) x key size
#            (256: server and client keys on 256-bit curves; 512: on 512-bit)
# Each row: a full handshake with the one suite both sides allow, then ~64
# KiB of text lines one way and the same lines reversed back (openssl
# s_server -rev, or a reversing backend behind `gostx tls serve`), compared
# byte for byte; against gnutls-serv --echo the lines come back as sent.
# `gostx tls client` must name TLSv1.2 and the suite by its RFC name.
# Then per peer and suite one row each way with our side on its defaults
# (no --version, no --suites: 1.3 and 1.2 offered or served, as a user
# would run it against a 1.2-only server or client), and renegotiation
# refused both ways with openssl (s_client's R, s_server's r): fatal
# no_renegotiation; and refusals with the alert each side names (a client
# certificate from an unknown CA or none where one is required, a server
# certificate that expired, a 1.2-only client to a 1.3-only serve): 46
# rows in all.
# GnuTLS 3.7 has no TC26-256-A curve: its rows use the PKI's gt chain
# (int-gt on 256B). Peers verify our chain (and we theirs) against ca.pem.
#   TLS12_ROWS=REGEX runs only the rows whose name matches (names as
#   printed: PEER/SUITE/DIR/cc|nocc/KEY), TLS12_SKIP=REGEX leaves those
#   matching out (each named as not run); CMake registers the test with
#   the rows known to fail in TLS12_SKIP.
# Skipped (77) when openssl's gost-engine or the GnuTLS tools are missing.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" tls12_interop
TLS_HERE=$HERE/net
. "$HERE/net/tls_common.sh"
command -v gnutls-serv >/dev/null && command -v gnutls-cli >/dev/null ||
  { echo "SKIP: gnutls-serv and gnutls-cli (gnutls-bin) are needed"; exit 77; }
tls_pki
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT
# a signal (ctest's timeout, a closed output pipe) ends through the EXIT
# trap too, so no peer or backend outlives the test
trap 'exit 1' INT TERM HUP PIPE
ROWS=${TLS12_ROWS:-.}
SKIP=${TLS12_SKIP:-}
GNUTLS_PRIO='NORMAL:-VERS-ALL:+VERS-TLS1.2:+VKO-GOST-12:+GOST28147-TC26Z-CNT:+GOST28147-TC26Z-IMIT:+SIGN-GOSTR341012-256:+SIGN-GOSTR341012-512:+GROUP-GOST-ALL'
RFC=TLS_GOSTR341112_256_WITH_
declare -A OSSL_NAME=([KUZNYECHIK_CTR_OMAC]=GOST2012-KUZNYECHIK-KUZNYECHIKOMAC
  [MAGMA_CTR_OMAC]=GOST2012-MAGMA-MAGMAOMAC [28147_CNT_IMIT]=IANA-GOST2012-GOST8912-GOST8912)

# The payload: base64 lines of random bytes, then CLOSE (which makes both
# reversing servers end the connection); what comes back from each kind.
head -c 49152 /dev/urandom | base64 >"$T/lines"
{ cat "$T/lines"; echo CLOSE; } >"$T/send"
rev "$T/lines" >"$T/want.rev"
cp "$T/send" "$T/want.echo"

# A reversing TCP backend for `gostx tls serve`: each line back reversed,
# the connection closed at CLOSE (as s_server -rev does).
cat >"$T/rev.py" <<'EOF'
import socket, sys, threading
from gostx_test_time import bound
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
def serve(c):
    c.settimeout(bound(30))
    f = c.makefile("rb")
    try:
        for line in f:
            body = line.rstrip(b"\n")
            if body == b"CLOSE":
                break
            c.sendall(body[::-1] + b"\n")
    except OSError:
        pass
    f.close()
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
python3 "$T/rev.py" >"$T/rev.port" &
PIDS+=($!)
for _ in $(seq $(bound 200)); do [ -s "$T/rev.port" ] && break; sleep 0.05; done
REV_PORT=$(cat "$T/rev.port")
[ -n "$REV_PORT" ] || { echo "FAIL: the reversing backend did not start"; exit 1; }

# wait_port PORT PID: until PORT listens on 127.0.0.1 (10 s), while PID lives
wait_port() {
  for _ in $(seq $(bound 200)); do
    ss -Hltn "sport = :$1" | grep -q . && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
# peer_server LOG STDIN CMD...: a peer server, CMD with @PORT@ replaced by a
# free port (timeout 40 s, stdin from STDIN, output in LOG), retried on
# another port when it ends before it listens (the port taken meanwhile);
# its port in $port, its pid in $sp; 1 when it never listens
peer_server() {
  local log=$1 in=$2 try
  shift 2
  for try in 1 2 3; do
    port=$(tls_free_port)
    timeout 40 "${@//@PORT@/$port}" <"$in" >"$log" 2>&1 &
    sp=$!
    PIDS+=($sp)
    wait_port "$port" $sp && return 0
    kill $sp 2>/dev/null
    wait $sp 2>/dev/null
  done
  return 1
}

# run_client FILE N OUT ERR CMD...: CMD (timeout 30 s) with FILE on its stdin,
# held open until OUT has N bytes, CMD exits or 20 s pass (so a client that
# ends at its stdin's end gets the whole answer first); rc in $rc
run_client() {
  local file=$1 n=$2 out=$3 err=$4 cpid
  shift 4
  rm -f "$T/fifo"
  mkfifo "$T/fifo"
  timeout 30 "$@" <"$T/fifo" >"$out" 2>"$err" &
  cpid=$!
  (
    cat "$file"
    for _ in $(seq $(bound 400)); do
      [ "$(stat -c %s "$out" 2>/dev/null || echo 0)" -ge "$n" ] && break
      kill -0 $cpid 2>/dev/null || break
      sleep 0.05
    done
  ) >"$T/fifo"
  wait $cpid
  rc=$?
}

# The identities per peer and key size: server and client certificate
ident() { # ident PEER KEY -> SCERT SKEY CCERT CKEY
  case $1/$2 in
    openssl/256) SCERT=chain-256A SKEY=leaf-256A CCERT=chain-256B CKEY=leaf-256B ;;
    openssl/512) SCERT=chain-512A SKEY=leaf-512A CCERT=chain-512B CKEY=leaf-512B ;;
    gnutls/256) SCERT=chain-gt-256B SKEY=leaf-gt-256B CCERT=chain-gt-256B CKEY=leaf-gt-256B ;;
    gnutls/512) SCERT=chain-gt-512A SKEY=leaf-gt-512A CCERT=chain-gt-512A CKEY=leaf-gt-512A ;;
  esac
}
PASSED=()
FAILED=()
row_ok() { ok; PASSED+=("$1"); echo "ok   $1"; }
row_bad() { bad "$1: ${*:2}"; FAILED+=("$1"); }

# row_start DIRECTION PEER SUITE CC KEY [defaults]: the row's name, and our
# side's pin of the version and suite (none with defaults), into the
# caller's name and pin; fails when the row is not wanted, else sets the
# peer's certificates (ident)
row_start() {
  name="$2/$3/$1/$4/$5${6:+/$6}"
  pin=(--version 1.2 --suites "$RFC$3")
  [ "${6:-}" = defaults ] && pin=()
  wanted "$name" || return 1
  ident "$2" "$5"
}

# ours_client PEER SUITE CC KEY [defaults]: gostx tls client -> their
# server; with defaults, our side has no --version and no --suites (it
# offers 1.3 and 1.2 in one ClientHello; the peer allows one 1.2 suite)
ours_client() {
  local peer=$1 suite=$2 cc=$3 key=$4 name pin
  row_start ours-to-theirs "$@" || return 0
  local port sp want out=$T/out err=$T/err slog=$T/peer.log
  local ccarg=()
  [ "$cc" = cc ] && ccarg=(--cert "$PKI/$CCERT.pem" --key "$PKI/$CKEY.key")
  rm -f "$out" "$err" "$slog"
  local srv=()
  if [ "$peer" = openssl ]; then
    local vc=()
    [ "$cc" = cc ] && vc=(-Verify 3 -verify_return_error)
    want=$T/want.rev
    srv=(openssl s_server -engine gost -accept 127.0.0.1:@PORT@ -naccept 1 -rev -quiet
      -tls1_2 -cipher "${OSSL_NAME[$suite]}" -cert "$PKI/$SKEY.pem" -key "$PKI/$SKEY.key"
      -cert_chain "$PKI/int.pem" -CAfile "$PKI/ca.pem" "${vc[@]}")
  else
    local vc=()
    [ "$cc" = cc ] && vc=(--require-client-cert --verify-client-cert --x509cafile "$PKI/ca.pem")
    want=$T/want.echo
    # (gnutls-serv has no listen address: it listens on every address,
    # and only this test's client, on loopback, connects)
    srv=(gnutls-serv --priority "$GNUTLS_PRIO" -p @PORT@ --echo
      --x509certfile "$PKI/$SCERT.pem" --x509keyfile "$PKI/$SKEY.key" "${vc[@]}")
  fi
  if ! peer_server "$slog" /dev/null "${srv[@]}"; then
    row_bad "$name" "the peer server did not start: $(tail -3 "$slog")"
    return
  fi
  run_client "$T/send" "$(wc -c <"$want")" "$out" "$err" \
    "$G" tls client "127.0.0.1:$port" --ca "$PKI/ca.pem" --servername localhost \
    "${pin[@]}" --close-on-eof "${ccarg[@]}"
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  if [ "$rc" = 0 ] && cmp -s "$out" "$want" &&
    grep -qx 'Version: TLSv1.2' "$err" && grep -qx "Suite: $RFC$suite" "$err"; then
    row_ok "$name"
  else
    row_bad "$name" "rc $rc, $(wc -c <"$out" 2>/dev/null || echo 0) of $(wc -c <"$want") bytes back;" \
      "ours: $(grep -vE '^ |subject|issuer' "$err" | tr '\n' ' ' | cut -c1-400);" \
      "peer: $(grep -iE 'error|alert|fatal|verify' "$slog" | head -3 | tr '\n' ' ')"
  fi
}

# wanted NAME: whether the row NAME runs
wanted() {
  [[ $1 =~ $ROWS ]] || return 1
  if [ -n "$SKIP" ] && [[ $1 =~ $SKIP ]]; then
    echo "not run (TLS12_SKIP): $1"
    return 1
  fi
}

# theirs_client PEER SUITE CC KEY [defaults]: their client -> gostx tls
# serve (reversing backend); with defaults, serve has no --version and no
# --suites (1.3 and 1.2, the peer offering one 1.2 suite)
theirs_client() {
  local peer=$1 suite=$2 cc=$3 key=$4 name pin
  row_start theirs-to-ours "$@" || return 0
  local out=$T/out err=$T/err want=$T/want.rev
  local vc=()
  [ "$cc" = cc ] && vc=(--ca "$PKI/ca.pem" --require-client)
  rm -f "$out" "$err"
  if ! tls_start serve12 tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$REV_PORT" \
    --cert "$PKI/$SCERT.pem" --key "$PKI/$SKEY.key" "${pin[@]}" --threads 1 "${vc[@]}"; then
    row_bad "$name" "gostx tls serve did not start"
    return
  fi
  local sp=$PID rc
  if [ "$peer" = openssl ]; then
    local ccarg=()
    [ "$cc" = cc ] && ccarg=(-cert "$PKI/$CKEY.pem" -key "$PKI/$CKEY.key" -cert_chain "$PKI/int.pem")
    run_client "$T/send" "$(wc -c <"$want")" "$out" "$err" \
      openssl s_client -engine gost -connect "127.0.0.1:$PORT" -tls1_2 -quiet \
      -cipher "${OSSL_NAME[$suite]}" -CAfile "$PKI/ca.pem" -verify_return_error \
      -verify_hostname localhost "${ccarg[@]}"
  else
    local ccarg=()
    [ "$cc" = cc ] && ccarg=(--x509certfile "$PKI/$CCERT.pem" --x509keyfile "$PKI/$CKEY.key")
    run_client "$T/send" "$(wc -c <"$want")" "$out" "$err.2" \
      gnutls-cli --priority "$GNUTLS_PRIO" --x509cafile "$PKI/ca.pem" -p "$PORT" \
      127.0.0.1 --logfile "$err" "${ccarg[@]}"
    grep -q 'Description: (TLS1.2-X.509)-(VKO-GOST-12)-(GOST28147-TC26Z-CNT)-(GOST28147-TC26Z-IMIT)' \
      "$err" || rc="$rc (no GOST description)"
  fi
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  if [ "$rc" = 0 ] && cmp -s "$out" "$want"; then
    row_ok "$name"
  else
    row_bad "$name" "rc $rc, $(wc -c <"$out" 2>/dev/null || echo 0) of $(wc -c <"$want") bytes back;" \
      "peer: $(grep -iE 'error|alert|fatal|verif' "$err" | head -3 | tr '\n' ' ');" \
      "ours: $(tr '\n' ' ' <"$T/serve12.log" | cut -c1-400)"
  fi
}

# wait_for FILE REGEX PID: until FILE has a line matching REGEX (20 s),
# while PID lives
wait_for() {
  for _ in $(seq $(bound 400)); do
    grep -qE "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
# Renegotiation, refused both ways with a fatal no_renegotiation (100):
# s_client's R (a new ClientHello after the handshake) to serve, and
# s_server's r (a HelloRequest) to our client; nothing more is relayed.
reneg_theirs_client() {
  local name=openssl/MAGMA_CTR_OMAC/theirs-to-ours/renegotiation
  wanted "$name" || return 0
  local err=$T/err out=$T/out cpid
  rm -f "$T/fifo" "$out" "$err"
  mkfifo "$T/fifo"
  tls_start serve12 tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$REV_PORT" \
    --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --threads 1 ||
    { row_bad "$name" "gostx tls serve did not start"; return; }
  local sp=$PID
  timeout 30 openssl s_client -engine gost -connect "127.0.0.1:$PORT" -tls1_2 \
    -cipher GOST2012-MAGMA-MAGMAOMAC -CAfile "$PKI/ca.pem" <"$T/fifo" >"$out" 2>"$err" &
  cpid=$!
  exec 8<>"$T/fifo" # read-write: never blocks, never SIGPIPE
  # (a subshell: the peer may be gone, and SIGPIPE must not end the test)
  wait_for "$out" '^New, TLSv1\.2, Cipher is' $cpid && (echo R >&8) 2>/dev/null
  wait_for "$err" 'alert no renegotiation' $cpid
  exec 8>&-
  wait $cpid
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  if grep -q 'SSL alert number 100' "$err" && grep -q 'renegotiation refused' "$T/serve12.log" &&
    grep -q 'alert no_renegotiation (100) sent' "$T/serve12.log"; then
    row_ok "$name"
  else
    row_bad "$name" "peer: $(grep -iE 'error|alert' "$err" | head -2 | tr '\n' ' ');" \
      "ours: $(tr '\n' ' ' <"$T/serve12.log" | cut -c1-300)"
  fi
}
reneg_ours_client() {
  local name=openssl/MAGMA_CTR_OMAC/ours-to-theirs/renegotiation
  wanted "$name" || return 0
  local err=$T/err out=$T/out slog=$T/peer.log port sp rc
  rm -f "$T/fifo" "$T/fifo2" "$out" "$err" "$slog"
  mkfifo "$T/fifo" "$T/fifo2"
  exec 8<>"$T/fifo" # read-write: never blocks, never SIGPIPE
  if ! peer_server "$slog" "$T/fifo" openssl s_server -engine gost -accept 127.0.0.1:@PORT@ \
    -naccept 1 -tls1_2 -msg -cipher GOST2012-MAGMA-MAGMAOMAC -cert "$PKI/leaf-256A.pem" \
    -key "$PKI/leaf-256A.key" -cert_chain "$PKI/int.pem"; then
    exec 8>&-
    row_bad "$name" "the peer server did not start: $(tail -3 "$slog")"
    return
  fi
  # our client's stdin stays open (fd 9), so only the HelloRequest ends it
  timeout 30 "$G" tls client "127.0.0.1:$port" --ca "$PKI/ca.pem" --servername localhost \
    <"$T/fifo2" >"$out" 2>"$err" &
  local cpid=$!
  exec 9<>"$T/fifo2"
  wait_for "$slog" 'Finished' $sp && wait_for "$err" '^---$' $cpid && (echo r >&8) 2>/dev/null
  wait_for "$err" 'renegotiation refused' $cpid
  exec 8>&-
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  wait_for "$slog" 'fatal no_renegotiation' $cpid
  exec 9>&-
  wait $cpid
  rc=$?
  if grep -q 'HelloRequest' "$slog" && grep -q 'fatal no_renegotiation' "$slog" &&
    grep -q 'renegotiation refused' "$err" && grep -q 'alert no_renegotiation (100) sent' "$err" &&
    [ "$rc" = 1 ]; then
    row_ok "$name"
  else
    row_bad "$name" "rc $rc; ours: $(grep -v '^ ' "$err" | tail -2 | tr '\n' ' ');" \
      "peer: $(grep -E 'HelloRequest|Alert|error' "$slog" | head -3 | tr '\n' ' ')"
  fi
}

# Refusals with real peers: each handshake fails on both sides with the
# alert RFC 5246 names, and nothing reaches the other end.
# refused_by_serve NAME PEER_PATTERN OURS_PATTERN SERVE_ARGS -- CLIENT_CMD...
refused_by_serve() {
  local name=$1 ppat=$2 opat=$3 sargs=()
  shift 3
  wanted "$name" || return 0
  while [ "$1" != -- ]; do sargs+=("$1"); shift; done
  shift
  tls_start serve12 tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$REV_PORT" --threads 1 \
    "${sargs[@]}" || { row_bad "$name" "gostx tls serve did not start"; return; }
  local sp=$PID cmd=("${@//@PORT@/$PORT}")
  echo hello | timeout 20 "${cmd[@]}" >"$T/out" 2>"$T/err"
  local rc=$?
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  if [ $rc != 0 ] && ! grep -q olleh "$T/out" && grep -qE "$ppat" "$T/err" "$T/out" &&
    grep -qE "$opat" "$T/serve12.log"; then
    row_ok "$name"
  else
    row_bad "$name" "rc $rc; peer: $(grep -iE 'alert|error' "$T/err" | head -2 | tr '\n' ' ');" \
      "ours: $(tr '\n' ' ' <"$T/serve12.log" | cut -c1-300)"
  fi
}
refusals() {
  local O=(openssl s_client -engine gost -connect 127.0.0.1:@PORT@ -tls1_2 -quiet
    -cipher GOST2012-KUZNYECHIK-KUZNYECHIKOMAC)
  local ID=(--cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key")
  refused_by_serve openssl/KUZNYECHIK_CTR_OMAC/theirs-to-ours/refused/client-cert-unknown-ca \
    'alert unknown ca' 'unknown CA.*alert unknown_ca' "${ID[@]}" --require-client --ca "$PKI/ca.pem" \
    -- "${O[@]}" -cert "$PKI/bad-unknownca.pem" -key "$PKI/bad-unknownca.key" \
    -cert_chain "$PKI/rogue-ca.pem"
  refused_by_serve openssl/KUZNYECHIK_CTR_OMAC/theirs-to-ours/refused/client-cert-missing \
    'alert handshake failure' 'no certificate.*alert handshake_failure' "${ID[@]}" \
    --require-client --ca "$PKI/ca.pem" -- "${O[@]}"
  refused_by_serve gnutls/28147_CNT_IMIT/theirs-to-ours/refused/serve-version-1.3 \
    'Received alert \[70\]' 'does not offer TLS 1.3.*alert protocol_version' \
    --cert "$PKI/chain-gt-256B.pem" --key "$PKI/leaf-gt-256B.key" --version 1.3 \
    -- gnutls-cli --priority "$GNUTLS_PRIO" --x509cafile "$PKI/ca.pem" -p @PORT@ 127.0.0.1
  # our client and a server whose certificate has expired
  local name=openssl/KUZNYECHIK_CTR_OMAC/ours-to-theirs/refused/server-cert-expired
  wanted "$name" || return 0
  local port sp rc
  rm -f "$T/fifo"
  mkfifo "$T/fifo"
  exec 8<>"$T/fifo" # s_server's stdin open: its end would end the connection
  if peer_server "$T/peer.log" "$T/fifo" openssl s_server -engine gost -accept 127.0.0.1:@PORT@ \
    -naccept 1 -tls1_2 -msg -cipher GOST2012-KUZNYECHIK-KUZNYECHIKOMAC \
    -cert "$PKI/bad-expired.pem" -key "$PKI/bad-expired.key" -cert_chain "$PKI/int.pem"; then
    echo hello | timeout 20 "$G" tls client "127.0.0.1:$port" --ca "$PKI/ca.pem" \
      --servername localhost >"$T/out" 2>"$T/err"
    rc=$?
  else
    rc="no server: $(tail -2 "$T/peer.log")"
  fi
  wait_for "$T/peer.log" 'fatal certificate_expired' $sp
  exec 8>&-
  kill $sp 2>/dev/null
  wait $sp 2>/dev/null
  if [ "$rc" = 1 ] && [ ! -s "$T/out" ] && grep -q 'fatal certificate_expired' "$T/peer.log" &&
    grep -q 'has expired.*alert certificate_expired' "$T/err"; then
    row_ok "$name"
  else
    row_bad "$name" "rc $rc; ours: $(tr '\n' ' ' <"$T/err");" \
      "peer: $(grep -iE 'alert|error' "$T/peer.log" | head -2 | tr '\n' ' ')"
  fi
}

for peer in openssl gnutls; do
  suites=(KUZNYECHIK_CTR_OMAC MAGMA_CTR_OMAC 28147_CNT_IMIT)
  [ $peer = gnutls ] && suites=(28147_CNT_IMIT)
  for suite in "${suites[@]}"; do
    for key in 256 512; do
      for cc in nocc cc; do
        ours_client $peer $suite $cc $key
        theirs_client $peer $suite $cc $key
      done
    done
    # our side on its defaults (both versions, every suite) against a 1.2 peer
    ours_client $peer $suite nocc 256 defaults
    theirs_client $peer $suite nocc 256 defaults
  done
done
reneg_theirs_client
reneg_ours_client
refusals
echo "rows passed: ${#PASSED[@]}, failed: ${#FAILED[@]}"
[ $((${#PASSED[@]} + ${#FAILED[@]})) -gt 0 ] || bad "TLS12_ROWS='$ROWS' matched no row"
finish
