#!/usr/bin/env bash
# gostx tls connect -> gostx tls serve -> an echo backend, full duplex
# (issue 56, item 6): a client sends 4 MiB while it reads the echo, 20 times
# per version (TLS 1.3, TLS 1.2); a transfer whose echo stalls (no byte for
# 10 s) fails the test. When a read waited for its own connection's output
# to leave, about half of these ended with both relays idle in epoll_wait,
# the TLS socket between them full both ways.
#
# In a network namespace of its own (unshare -n: loopback only, gone with
# its processes) whose TCP buffers are small (128 KiB at most), so that
# 4 MiB fills the sockets as 64 MiB does with the usual ones. Root
# (unshare, sysctl); skipped (77) without it or without openssl's
# gost-engine (the test PKI).
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${TLS_DUPLEX_NETNS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
  unshare -n true 2>/dev/null || { echo "SKIP: no network namespaces here (unshare -n)"; exit 77; }
  TLS_DUPLEX_NETNS=1 exec unshare -n bash "$0" "$@"
fi
. "$HERE/../cli_common.sh" tls_duplex
TLS_HERE=$HERE
. "$HERE/tls_common.sh"
command -v python3 >/dev/null || { echo "FAIL: python3 missing (.ci/run installs it)"; exit 1; }
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT
ip link set lo up || { bad "loopback up in the namespace"; finish; }
sysctl -qw net.ipv4.tcp_wmem="4096 16384 131072" net.ipv4.tcp_rmem="4096 65536 131072" 2>/dev/null ||
  { echo "SKIP: the namespace's TCP buffers cannot be set (net.ipv4.tcp_wmem)"; exit 77; }
tls_pki

python3 "$HERE/duplex.py" echo >"$T/echo.port" 2>"$T/echo.err" &
PIDS+=($!)
for _ in $(seq $(bound 200)); do [ -s "$T/echo.port" ] && break; sleep 0.05; done
[ -s "$T/echo.port" ] || { bad "the echo backend did not start: $(cat "$T/echo.err")"; finish; }

for v in 1.3 1.2; do
  if tls_start serve$v tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$(cat "$T/echo.port")" \
    --cert "$PKI/chain-256A.pem" --key "$PKI/leaf-256A.key" --threads 1 --version $v &&
    SPID=$PID && tls_start connect$v tls connect --listen 127.0.0.1:0 --upstream "127.0.0.1:$PORT" \
      --ca "$PKI/ca.pem" --servername localhost --threads 1 --version $v; then
    t0=$SECONDS
    if timeout 300 python3 "$HERE/duplex.py" send "$PORT" 20 $((4 << 20)) 10 >"$T/duplex$v" 2>&1; then
      echo "ok: TLS $v: $(cat "$T/duplex$v") ($((SECONDS - t0)) s)"
      ok
    else
      bad "TLS $v, connect -> serve -> echo: $(cat "$T/duplex$v")"
    fi
    kill "$PID" "$SPID"
    wait "$PID" "$SPID" 2>/dev/null
  else
    bad "TLS $v: serve or connect did not start"
  fi
done
finish
