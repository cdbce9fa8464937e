#!/usr/bin/env bash
# gostx tunnel across crashes and restarts, in two network namespaces: a
# receiver killed (-9) and restarted while ESP pours in does not crash at
# start. Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
G=${GOSTX:-build/gostx}
HERE=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
for tool in ip python3 timeout; do
  command -v $tool >/dev/null || { echo "FAIL: $tool missing (.ci/run installs it)"; exit 1; }
done

# names of their own: test_tunnel.sh may run beside this one
NA=gxsa$$ NB=gxsb$$ VA=gxsva$$ VB=gxsvb$$ TUN=gxs0
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  ip netns del $NA 2>/dev/null
  ip netns del $NB 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$HERE/netns.sh"
if ! ip netns add $NA 2>/dev/null; then echo "SKIP: cannot create network namespaces here"; exit 77; fi
ip netns del $NA
netns_pair || { echo "FAIL: namespaces and veth pair"; exit 1; }

head -c 32 /dev/urandom >"$T/a2b.key"
head -c 32 /dev/urandom >"$T/b2a.key"
chmod 600 "$T"/*.key
conf() { # NAME LOCAL PEER SPI_OUT SPI_IN KEY_OUT KEY_IN
  cat >"$T/$1.conf" <<EOC
local = $2:4500
peer = $3:4500
tun = $TUN
transform = kuznyechik-mgm-ktree
spi_out = $4
spi_in = $5
key_out = $T/$6
key_in = $T/$7
state = $T/$1.state
threads = 4
EOC
}
conf a 10.231.0.1 10.231.0.2 0x1001 0x2002 a2b.key b2a.key
conf b 10.231.0.2 10.231.0.1 0x2002 0x1001 b2a.key a2b.key

# start SIDE NS [ARGS...]: the tunnel in the background, its pid in PID_SIDE
# (ip netns exec execs it: $! is the tunnel), once its "up" line is out
start() {
  local side=$1 ns=$2 n
  shift 2
  n=$(grep -c ' up, ' "$T/$side.log" 2>/dev/null)
  ip netns exec $ns "$G" tunnel -c "$T/$side.conf" "$@" 2>>"$T/$side.log" </dev/null >/dev/null &
  eval "PID_$side=$!"
  PIDS+=($!)
  for _ in $(seq 100); do
    [ "$(grep -c ' up, ' "$T/$side.log" 2>/dev/null)" -gt "${n:-0}" ] && return 0
    kill -0 $! 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
# flows SECONDS: UDP datagrams from A through the tunnel, 32 flows (all of
# A's queues, so all of B's workers), about 3000 a second
flows() {
  ip netns exec $NA timeout $(($1 + 5)) python3 -c '
import socket, sys, time
end = time.time() + float(sys.argv[1])
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(32)]
while time.time() < end:
    for i, s in enumerate(socks):
        try: s.sendto(b"x" * 64, ("10.232.0.2", 7000 + i))
        except OSError: pass
    time.sleep(0.01)' $1 &
  PIDS+=($!)
}

start a $NA || { bad "tunnel A did not start: $(cat "$T/a.log")"; finish; }
ip -n $NA addr add 10.232.0.1/30 dev $TUN

# 1. Start-up under traffic: ESP waits in B's sockets while B starts, and
# each worker opens it at once. Every worker's buffers are set before its
# thread starts (one was set after: a write at 0x800, 6 of 80 restarts
# crashed under 2500 packets a second). Each cycle: start B, let it run,
# kill -9; B must be alive until then (exit 137: our signal).
CYCLES=${STATE_CYCLES:-30}
flows $((CYCLES / 2 + 10))
sleep 0.3
crashed=0 notup=0
for i in $(seq $CYCLES); do
  start b $NB || { kill -0 $PID_b 2>/dev/null && notup=$((notup + 1)); }
  sleep 0.1
  kill -KILL $PID_b 2>/dev/null
  wait $PID_b 2>/dev/null
  rc=$?
  [ $rc = 137 ] || { crashed=$((crashed + 1)); echo "  cycle $i: the receiver exited $rc by itself"; }
done
[ $crashed = 0 ] && [ $notup = 0 ] && ok "$CYCLES starts of the receiver under incoming ESP: none crashed" ||
  bad "$crashed of $CYCLES starts under incoming ESP crashed, $notup did not come up: $(grep -v ' up, ' "$T/b.log" | tail -3)"
finish
