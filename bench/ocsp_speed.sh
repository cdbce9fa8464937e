#!/usr/bin/env bash
# OCSP responder speed (issue 70's target: signed responses per CPU-second
# on one core >= 3x `openssl ocsp -engine gost -port`): `gostx ocsp -port
# -threads 1` and `openssl ocsp -port` (gost-engine), each pinned to CPU 0
# (taskset), on the same index.txt (N entries), CA, delegated responder
# (256-bit paramSetA key) and requests (R distinct ones, each for one
# certificate with a nonce: every response is signed afresh), loaded by
# build/bench/ocsp_load (bench/ocsp_load.c: one thread on epoll, 32
# connections at once; LOADGEN=python takes bench/ocsp_load.py, 8 threads)
# on the other CPUs, one connection per request, as openssl's responder
# serves them. The load must keep the server's accept queue full: the Python
# one could not keep up with gostx, which then slept and woke for nearly
# every request (~0.96 voluntary context switches a response, about 20 % of
# its CPU), work a responder under load does not do. The figure is responses answered per
# second of the server's CPU time (/proc/PID/stat utime + stime), so the
# load generator's own cost and the wall clock do not count. On loopback the
# kernel's TCP work (connect, accept, close, and the receive path of what
# the server sends, run on the sender's CPU) is a fixed cost per connection
# that both pay: about half of gostx's time per response.
# The servers take turns ROUNDS times (default 5) and each one's median
# counts: the machine's other load comes and goes. GOSTX_BASE=BINARY adds
# another gostx build to the turns (a before/after in one run).
# LOAD=keep-alive offers HTTP/1.1 persistent connections instead (what OCSP
# clients that ask many questions do); a server that closes each one after
# its reply pays the connection as before, one that keeps it does not.
#   usage: bench/ocsp_speed.sh [REQUESTS] [INDEX_ENTRIES]   (default 3000, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GOSTX:-$PWD/build/gostx}
base=${GOSTX_BASE:-}
rounds=${ROUNDS:-5}
load_mode=${LOAD:-close}
case $load_mode in close) load_opt=() ;; keep-alive) load_opt=(--keep-alive) ;;
  *) echo "ocsp_speed: LOAD is close or keep-alive"; exit 2 ;; esac
n=${1:-3000}
entries=${2:-1000}
export OPENSSL_CONF=$PWD/tests/support/gost_engine.cnf
openssl engine gost >/dev/null 2>&1 || { echo "ocsp_speed: openssl's gost engine is needed"; exit 1; }
T=$(mktemp -d /tmp/ocsp-speed.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$T"' EXIT
cpus=$(nproc)
load_cpus=1-$((cpus - 1))
loadgen=${LOADGEN:-c}
L=$(dirname "$G")/bench/ocsp_load
if [ "$loadgen" = c ] && [ -x "$L" ]; then load=("$L") conc=32
else loadgen=python load=(python3 "$PWD/bench/ocsp_load.py") conc=8; fi
[ "$cpus" -ge 2 ] || { echo "ocsp_speed: needs 2 CPUs (server on 0, load on the rest)"; exit 1; }

cd "$T"
"$G" genpkey -c 512A -o ca.key 2>/dev/null
"$G" req -x509 -ca -key ca.key -subj "/CN=bench CA" -days 30 -set_serial 1 -out ca.pem
"$G" genpkey -c 256A -o rsp.key 2>/dev/null
"$G" req -new -key rsp.key -subj /CN=responder -out rsp.csr
printf 'extendedKeyUsage = OCSPSigning\n' > rsp.ext
"$G" x509 -req -in rsp.csr -CA ca.pem -CAkey ca.key -set_serial 2 -extfile rsp.ext -out rsp.pem
"$G" genpkey -c 256A -o leaf.key 2>/dev/null
"$G" req -new -key leaf.key -subj /CN=leaf -out leaf.csr
# the index: every other entry revoked; the leaves asked are serials 0x1000..
: > index.txt
for ((i = 0; i < entries; i++)); do
  s=$(printf '%X' $((0x1000 + i)))
  if ((i % 2)); then printf 'R\t301231000000Z\t250101000000Z,keyCompromise\t%s\tunknown\t/CN=l%d\n' "$s" $i
  else printf 'V\t301231000000Z\t\t%s\tunknown\t/CN=l%d\n' "$s" $i; fi
done >> index.txt
reqs=()
for ((i = 0; i < 16; i++)); do
  "$G" x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -set_serial $((0x1000 + i * 7)) -out l$i.pem
  "$G" ocsp -issuer ca.pem -cert l$i.pem -reqout r$i.der
  reqs+=(r$i.der)
done

# the server's CPU time in ns, every thread (schedstat: nanoseconds; stat's
# ticks are too coarse for a few seconds of work)
cpu_ns() { cat /proc/$1/task/*/schedstat | awk '{ t += $1 } END { printf "%.0f\n", t }'; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
run() { # run NAME ROUND: after the server ($pid) listens on $port
  local t0 t1 ok
  # warm up, then measure
  taskset -c "$load_cpus" "${load[@]}" "${load_opt[@]}" "$port" 50 4 "${reqs[@]}" > /dev/null
  t0=$(cpu_ns $pid)
  ok=$(taskset -c "$load_cpus" "${load[@]}" "${load_opt[@]}" "$port" "$n" $conc "${reqs[@]}")
  t1=$(cpu_ns $pid)
  awk -v ok="$ok" -v t="$((t1 - t0))" -v name="$1" -v r="$2" \
    'BEGIN { printf "%-10s round %d: %6d responses, %7.3f CPU s: %8.0f responses per CPU-second\n", name, r, ok, t / 1e9, ok / (t / 1e9) }'
  awk -v ok="$ok" -v t="$((t1 - t0))" 'BEGIN { printf "%.0f\n", ok / (t / 1e9) }' >> "$1.fig"
}
wait_for() { # wait_for FILE TEXT
  local i
  for ((i = 0; i < 100; i++)); do grep -q "$2" "$1" && break; sleep 0.05; done
}
gostx_turn() { # gostx_turn NAME BINARY ROUND
  port=$(free_port)
  taskset -c 0 "$2" ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -port "$port" \
    -bind 127.0.0.1 -threads 1 -nmin 5 2> g.err &
  pid=$!
  wait_for g.err "on port"
  run "$1" "$3"
  kill $pid; wait $pid 2>/dev/null || true; pid=
}
openssl_turn() { # openssl_turn ROUND
  port=$(free_port)
  taskset -c 0 openssl ocsp -index index.txt -CA ca.pem -rsigner rsp.pem -rkey rsp.key -port "$port" \
    -nmin 5 > o.err 2>&1 &
  pid=$!
  wait_for o.err "[Ww]aiting for OCSP"
  run openssl "$1"
  kill $pid; wait $pid 2>/dev/null || true; pid=
}
median() { sort -n "$1.fig" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for ((r = 1; r <= rounds; r++)); do
  gostx_turn gostx "$G" $r
  [ -z "$base" ] || gostx_turn gostx-base "$base" $r
  openssl_turn $r
done
g=$(median gostx) o=$(median openssl)
echo "medians of $rounds rounds (responses per CPU-second): gostx $g, openssl $o"
[ -z "$base" ] || { b=$(median gostx-base); echo "gostx-base (\$GOSTX_BASE) $b: gostx / gostx-base $(awk -v a="$g" -v b="$b" 'BEGIN { printf "%.2fx", a / b }')"; }
awk -v a="$g" -v b="$o" -v m="$load_mode" \
  -v l="$loadgen" 'BEGIN { printf "gostx / openssl: %.2fx responses per CPU-second, load: %s, %s (target >= 3x)\n", a / b, m, l }'
[ -z "$base" ] || awk -v a="$b" -v b="$o" 'BEGIN { printf "gostx-base / openssl: %.2fx\n", a / b }'
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
