# Sourced by tests/net/test_tls.sh and bench/tls_speed.sh: the GOST test PKI,
# nginx on a free loopback port, gostx tls serve/connect in the background.
# Expects $G (the gostx binary), $T (scratch), $TLS_HERE (tests/net) and
# PIDS=() (the caller's EXIT trap ends them with pids_stop, tests/net/pids.sh).
# No fixed ports, no fixed sleeps: each start polls for readiness, bounded
# in time.

# The PKI of tests/support/gost_pki.sh in $PKI (kept beside the binary, so a
# second run does not make it again; made under a lock, as ctest -j runs
# test_tls_cli and net_test_tls side by side). Exit 77 without gost-engine.
tls_pki() {
  PKI=${GOSTX_TLS_PKI:-$(dirname "$G")/test-pki-tls}
  mkdir -p "$(dirname "$PKI")"
  flock "$PKI.lock" bash "$TLS_HERE/../support/gost_pki.sh" "$PKI"
  local rc=$?
  if [ $rc = 77 ]; then echo "SKIP: openssl with gost-engine is needed for the test PKI"; exit 77; fi
  [ $rc = 0 ] || { echo "FAIL: tests/support/gost_pki.sh failed ($rc)"; exit 1; }
}

# A TCP port free on 127.0.0.1 now (the caller retries when it is taken
# before it binds it).
tls_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx (master_process off: one process, ours, as the invoking user) serving
# $T/www over plain HTTP on 127.0.0.1:$NGINX_PORT, with its own prefix and
# config; retried on another port when the one picked is taken.
tls_nginx() {
  local nginx try pid
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$T/nginx"
  for try in 1 2 3 4 5; do
    NGINX_PORT=$(tls_free_port)
    cat >"$T/nginx.conf" <<EOF
daemon off;
master_process off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 2048; }
http {
  access_log off;
  sendfile on;
  client_body_temp_path $T/nginx/body;
  proxy_temp_path $T/nginx/proxy;
  fastcgi_temp_path $T/nginx/fastcgi;
  uwsgi_temp_path $T/nginx/uwsgi;
  scgi_temp_path $T/nginx/scgi;
  server { listen 127.0.0.1:$NGINX_PORT; root $T/www; keepalive_timeout 60; }
}
EOF
    "$nginx" -p "$T/nginx/" -e "$T/nginx/error.log" -c "$T/nginx.conf" </dev/null >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq $(bound 200)); do
      if curl -s -o /dev/null --max-time $(bound 2) "http://127.0.0.1:$NGINX_PORT/"; then
        PIDS+=($pid)
        return 0
      fi
      kill -0 $pid 2>/dev/null || break
      sleep 0.05
    done
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
  done
  echo "nginx did not start: $(tail -3 "$T/nginx/error.log" 2>/dev/null)"
  return 1
}

# An echo server on a free loopback port (it sends back what it reads, as
# it reads it), in the background: its port in $T/echo.port, its pid in
# PIDS and $ECHO_PID. 1 when it does not start within 5 s.
tls_echo() {
  python3 -c 'import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1024)
print(s.getsockname()[1], flush=True)
def echo(c):
    for b in iter(lambda: c.recv(4096), b""): c.sendall(b)
    c.close()
while True: threading.Thread(target=echo, args=(s.accept()[0],), daemon=True).start()' \
    >"$T/echo.port" 2>/dev/null &
  ECHO_PID=$!
  PIDS+=($ECHO_PID)
  for _ in $(seq $(bound 100)); do [ -s "$T/echo.port" ] && return 0; sleep 0.05; done
  echo "the echo server did not start"
  return 1
}

# tls_start NAME ARGS...: `gostx ARGS` in the background (stderr in
# $T/NAME.log), returning once it prints the address it listens on: the port
# in $PORT, the pid in $PID. 1 when it exits or is silent for 20 s.
tls_start() {
  local name=$1
  shift
  # a log left by an earlier start under NAME would give its port: the
  # child truncates the file only once it runs
  rm -f "$T/$name.log"
  "$G" "$@" 2>"$T/$name.log" </dev/null >/dev/null &
  PID=$!
  PIDS+=($PID)
  for _ in $(seq $(bound 400)); do
    PORT=$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\),.*/\1/p' "$T/$name.log" 2>/dev/null)
    [ -n "$PORT" ] && return 0
    kill -0 $PID 2>/dev/null || break
    sleep 0.05
  done
  echo "gostx $1 $2 did not start: $(cat "$T/$name.log")"
  return 1
}

. "$(dirname "${BASH_SOURCE[0]}")/pids.sh"
