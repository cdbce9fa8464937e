# Sourced by the tests/net/test_tunnel*.sh and bench/net_tunnel.sh: two network
# namespaces $NA and $NB joined by the veth pair $VA / $VB, addressed
# 10.231.0.1/30 and 10.231.0.2/30, IPv6 off (no router solicitations in the
# tunnels), loopback up. Returns 1 when namespaces cannot be made here.
netns_pair() {
  ip netns add $NA 2>/dev/null || return 1
  ip netns add $NB || return 1
  ip link add $VA netns $NA type veth peer name $VB netns $NB || return 1
  local ns
  for ns in $NA $NB; do
    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip -n $ns link set lo up
  done
  ip -n $NA addr add 10.231.0.1/30 dev $VA && ip -n $NA link set $VA up &&
    ip -n $NB addr add 10.231.0.2/30 dev $VB && ip -n $NB link set $VB up
}

. "$(dirname "${BASH_SOURCE[0]}")/pids.sh"

# For the tests: each check says ok or FAIL; finish exits 0 when none failed
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }

# For the tests (netns_test_begin TOOL...): skips (exit 77) without root,
# /dev/net/tun or namespaces; fails without ip or a TOOL; makes $T
# (scratch) and the pair; on exit kills the pids in PIDS (TERM, then KILL)
# and removes the namespaces and $T.
netns_test_begin() {
  [ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
  [ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
  local tool
  for tool in ip "$@"; do
    command -v $tool >/dev/null || { echo "FAIL: $tool missing (.ci/run installs it)"; exit 1; }
  done
  T=$(mktemp -d)
  PIDS=()
  trap netns_test_end EXIT
  trap 'exit 1' INT TERM
  if ! ip netns add $NA 2>/dev/null; then echo "SKIP: cannot create network namespaces here"; exit 77; fi
  ip netns del $NA
  netns_pair || { echo "FAIL: namespaces and veth pair"; exit 1; }
}
netns_test_end() {
  pids_stop
  local ns
  for ns in $NA $NB "${NETNS_SPOKES[@]}"; do ip netns del $ns 2>/dev/null; done
  rm -rf "$T"
}
# netns_spoke NS ADDR_A ADDR_NS: one more namespace (loopback up, IPv6 off;
# removed by netns_test_end) joined to $NA by a veth pair of its own, $NA's
# end addressed ADDR_A and NS's ADDR_NS (each with its prefix length: a
# gateway's users); SPOKE_DEV is NS's end. 1 when it cannot be made.
NETNS_SPOKES=()
netns_spoke() {
  local ns=$1 a=sp${#NETNS_SPOKES[@]}a$$ b=sp${#NETNS_SPOKES[@]}b$$
  ip netns add $ns || return 1
  NETNS_SPOKES+=($ns)
  SPOKE_DEV=$b
  ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
    ip -n $ns link set lo up &&
    ip link add $a netns $NA type veth peer name $b netns $ns &&
    ip -n $NA addr add $2 dev $a && ip -n $NA link set $a up &&
    ip -n $ns addr add $3 dev $b && ip -n $ns link set $b up
}

# The injector (inject.py) in the background, capturing what $VA sends
# (inject_bg OUT ARGS...; its pid in $ipid), returning once its capture
# socket is bound: the traffic it must capture starts only then, however
# late a loaded machine starts Python (with the pings first, a run beside
# two other tests once captured 8 of 10).
inject_bg() {
  local out=$1
  shift
  rm -f "$T/inject.ready"
  ip netns exec $NA timeout 30 python3 "$HERE/inject.py" --dev $VA --to 10.231.0.2 \
    --ready "$T/inject.ready" "$@" >"$out" 2>"$T/inject.err" &
  ipid=$!
  PIDS+=($ipid)
  ready_or_gone "$T/inject.ready" $ipid
}
# ready_or_gone FILE PID: 0 once FILE exists (a helper's socket bound,
# within 15 s), 1 if PID ends first or the time runs out
ready_or_gone() {
  for _ in $(seq $(bound 150)); do
    [ -e "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# refused NS NAME PATTERN WHAT: a tunnel with $T/NAME.conf (--new-keys)
# exits 1 with one stderr line matching PATTERN, within 10 s
refused() {
  ip netns exec $1 timeout 10 "$G" tunnel --new-keys -c "$T/$2.conf" >/dev/null 2>"$T/$2.err"
  local rc=$?
  [ $rc = 1 ] && [ "$(wc -l <"$T/$2.err")" = 1 ] && grep -q -- "$3" "$T/$2.err" &&
    ok "$4 refused: $(cat "$T/$2.err")" || bad "$4: exit $rc: $(cat "$T/$2.err")"
}

# tunnel_conf NAME LOCAL PEER SPI_OUT SPI_IN KEY_OUT KEY_IN: $T/NAME.conf, a
# tunnel on device $TUN, port 4500, MTU 1400, transform $TRANSFORM
# (Kuznyechik-MGM when unset), $THREADS workers (1 when unset), state
# $T/NAME.state, key files in $T
tunnel_conf() {
  cat >"$T/$1.conf" <<EOC
local = $2:4500
peer = $3:4500
tun = $TUN
mtu = 1400
transform = ${TRANSFORM:-kuznyechik-mgm-ktree}
spi_out = $4
spi_in = $5
key_out = $T/$6
key_in = $T/$7
state = $T/$1.state
threads = ${THREADS:-1}
EOC
}

# tunnel_start SIDE NS: the tunnel of $T/SIDE.conf in the background
# (--new-keys on its first start with static keys), logging to $T/SIDE.log, its pid in
# PID_SIDE (ip netns exec execs it: $! is the tunnel); returns once its "up"
# line is out, 1 when it exits or is not up within 5 s
tunnel_start() {
  local side=$1 ns=$2 n c new=
  n=$(grep -c ' up, ' "$T/$side.log" 2>/dev/null)
  [ -e "$T/$side.state" ] || grep -q '^keying = ikev2' "$T/$side.conf" || new=--new-keys
  ip netns exec $ns "$G" tunnel -c "$T/$side.conf" $new 2>>"$T/$side.log" </dev/null >/dev/null &
  eval "PID_$side=$!"
  PIDS+=($!)
  for _ in $(seq $(bound 100)); do
    c=$(grep -c ' up, ' "$T/$side.log" 2>/dev/null) # empty until the log exists
    [ "${c:-0}" -gt "${n:-0}" ] && return 0
    kill -0 $! 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# tunnel_stop PID: TERM, then KILL after 5 s
tunnel_stop() {
  local p=$1
  kill -TERM $p
  for _ in $(seq $(bound 50)); do kill -0 $p 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL $p
}
# tunnel_status NS SIDE KEY: the value (the rest of the line) of KEY in the
# --status of $T/SIDE.conf
tunnel_status() {
  status_value "$(ip netns exec $1 "$G" tunnel --status -c "$T/$2.conf")" "$3"
}
# status_fresh SIDE...: 1.2 s, then until each SIDE's status file
# ($T/SIDE.state.status, rewritten every second) was written 0.2 s or more
# after the call: late on a busy machine, so waited for within a bound
status_fresh() {
  local t0 side f
  t0=$(($(date +%s%N) + 200000000))
  sleep 1.2
  for side in "$@"; do
    f=$T/$side.state.status
    [ -e "$f" ] || continue
    for _ in $(seq $(bound 20)); do
      [ "$(date -r "$f" +%s%N 2>/dev/null || echo 0)" -ge $t0 ] && break
      sleep 0.1
    done
  done
}
# status_value TEXT KEY: KEY's value in TEXT, one --status read whole (the
# values of one moment: separate reads may straddle a rekey)
status_value() {
  awk -v k="$2" '$1 == k {$1 = ""; print substr($0, 2)}' <<<"$1"
}
# rx_counted NS SIDE N: until SIDE's status file counts N or more packets
# received (delivered, replayed or failing their ICV), polled and bounded:
# the file is rewritten each second and late on a loaded host. What the
# caller then checks (an exact count) is its own.
rx_counted() {
  local st
  for _ in $(seq $(bound 40)); do
    sleep 0.25
    st=$(ip netns exec $1 "$G" tunnel --status -c "$T/$2.conf")
    [ $(($(status_value "$st" rx_packets) + $(status_value "$st" rx_replay) +
      $(status_value "$st" rx_auth))) -ge $3 ] && return 0
  done
  return 1
}

# tunnel_pair_confs: new keys $T/a2b.key, $T/b2a.key and the configs
# $T/a.conf (10.231.0.1) and $T/b.conf (10.231.0.2) that use them
tunnel_pair_confs() {
  head -c 32 /dev/urandom >"$T/a2b.key"
  head -c 32 /dev/urandom >"$T/b2a.key"
  chmod 600 "$T"/*.key
  tunnel_conf a 10.231.0.1 10.231.0.2 0x1001 0x2002 a2b.key b2a.key
  tunnel_conf b 10.231.0.2 10.231.0.1 0x2002 0x1001 b2a.key a2b.key
}
# tunnel_tcp_through FROM_NS TO_NS ADDR: $T/file byte-exact over TCP to
# ADDR (port 5001) in TO_NS, within 60 s
tunnel_tcp_through() {
  rm -f "$T/file.got"
  ip netns exec $2 timeout 60 python3 "$HERE/xfer.py" recv $3 5001 "$T/file.got" 50 &
  local rpid=$!
  PIDS+=($rpid)
  ip netns exec $1 timeout 60 python3 "$HERE/xfer.py" send $3 5001 "$T/file" 50
  wait $rpid
  [ "$(sha256sum <"$T/file")" = "$(sha256sum <"$T/file.got" 2>/dev/null)" ]
}

# For the tests of one tunnel pair (tunnel_test_begin PREFIX TOOL...): names
# of their own from PREFIX and the pid (the other net tests may run beside
# this one: namespaces PREFIXa$$ and PREFIXb$$, veths PREFIXva$$ and
# PREFIXvb$$, TUN device PREFIX0), $G ($GOSTX, else build/gostx),
# netns_test_begin, $TRANSFORM ($TUNNEL_TRANSFORM, else Kuznyechik-MGM) and
# the configs of tunnel_pair_confs
tunnel_test_begin() {
  local p=$1
  shift
  NA=${p}a$$ NB=${p}b$$ VA=${p}va$$ VB=${p}vb$$ TUN=${p}0
  G=${GOSTX:-build/gostx}
  netns_test_begin "$@"
  TRANSFORM=${TUNNEL_TRANSFORM:-kuznyechik-mgm-ktree}
  tunnel_pair_confs
}
# tunnel_up SIDE NS ADDR [ADDR6]: the tunnel (tunnel_start), then its inner
# addresses on $TUN (IPv6 on the TUN device only, without router
# solicitations or DAD), a queue of 5000 there (a stopped tunnel's burst
# waits in it) and its first status file
tunnel_up() {
  tunnel_start $1 $2 || bad "tunnel $1 did not start: $(tail -3 "$T/$1.log")"
  ip -n $2 addr add $3/30 dev $TUN
  if [ -n "${4:-}" ]; then
    ip netns exec $2 sysctl -qw net.ipv6.conf.$TUN.router_solicitations=0 net.ipv6.conf.$TUN.disable_ipv6=0
    ip -n $2 addr add $4/64 dev $TUN nodad
  fi
  ip -n $2 link set $TUN txqueuelen 5000
  sleep 1.2
}
# refusing VAR=VALUE... COMMAND...: COMMAND (tunnel_up) run with the
# LD_PRELOAD library of tests/preload/refuse_offload.c (next to $G), which
# makes the kernel's offload refusals the test hosts cannot produce as the
# kernel makes them, and its VARs set
refusing() {
  while [[ $1 == *=* ]]; do
    local -x "$1"
    shift
  done
  local -x LD_PRELOAD="$(dirname "$G")/libgostx_refuse_offload.so"
  local -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
  "$@"
}
# tunnel_test_end: both tunnels (PID_a, PID_b) stopped, their logs checked
# for sanitizer reports, then finish
tunnel_test_end() {
  tunnel_stop $PID_a
  tunnel_stop $PID_b
  if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/a.log "$T"/b.log; then
    bad "sanitizer reports (above)"
  else
    ok "no sanitizer reports"
  fi
  finish
}
# tunnel_counters NS SIDE KEY...: the values of the KEYs in --status on one
# line (one read), once the status file (rewritten every second) is new
tunnel_counters() {
  local ns=$1 side=$2 k st
  shift 2
  status_fresh $side
  st=$(ip netns exec $ns "$G" tunnel --status -c "$T/$side.conf")
  echo $(for k in "$@"; do status_value "$st" $k; done)
}
# udp_recv_bg NS ADDR COUNT SIZES: xfer.py udprecv in the background
# (its pid in $rpid), returning once its socket is bound; udp_recv_got: what
# it got into $got, once it is done (not in a subshell: it waits for $rpid)
udp_recv_bg() {
  rm -f "$T/udp.ready"
  ip netns exec $1 timeout 30 python3 "$HERE/xfer.py" udprecv $2 5002 $3 $4 "$T/udp.ready" >"$T/udp.out" &
  rpid=$!
  PIDS+=($rpid)
  for _ in $(seq $(bound 150)); do [ -e "$T/udp.ready" ] && break; sleep 0.1; done # bound
}
udp_recv_got() {
  wait $rpid
  got=$(echo $(cat "$T/udp.out"))
}
# udp_through FROM_NS TO_NS ADDR MODE COUNT SIZES: xfer.py MODE (udpsend,
# udpgso) sends COUNT datagrams to ADDR port 5002 in TO_NS; prints what the
# receiver got. With HOLD set to a pid (a tunnel), that process is stopped
# while they are sent: they queue in its TUN device and it reads them as
# one burst.
udp_through() {
  udp_recv_bg $2 $3 $5 $6
  [ -n "${HOLD:-}" ] && kill -STOP $HOLD
  ip netns exec $1 timeout 20 python3 "$HERE/xfer.py" $4 $3 5002 $5 $6
  [ -n "${HOLD:-}" ] && kill -CONT $HOLD
  udp_recv_got
  echo "$got"
}
