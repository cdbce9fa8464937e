#!/usr/bin/env bash
# gostx tunnel end to end: two network namespaces joined by a veth pair, a
# tunnel in each (Kuznyechik-MGM one way of keying, the other key form the
# other way), then: ping through, MTU-sized (1400-byte) and 64-byte pings,
# 64-byte UDP datagrams counted at the receiver, a random 100 MiB file
# byte-exact over TCP, iperf3 for 3 s, 32 flows spread over both workers of
# each side, a second tunnel on the port (or its workers' ports) refused,
# one side restarted and traffic resuming, an injector that replays,
# bit-flips, truncates and re-SPIs captured ESP packets (every one dropped
# and counted under its reason, none delivered) and one that reorders
# packets new to the receiver (each delivered once, the copies dropped).
# TUNNEL_QUICK=1 (the integrity-only transforms' runs): only the pings, a
# check of what goes on the wire (the inner packets in clear or not), and
# the clean stop.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
G=${GOSTX:-build/gostx}
HERE=$(cd "$(dirname "$0")" && pwd)
TRANSFORM=${TUNNEL_TRANSFORM:-kuznyechik-mgm-ktree}

NA=gxa$$ NB=gxb$$ VA=gxva$$ VB=gxvb$$ TUN=gxt0
. "$HERE/netns.sh"
netns_test_begin ping iperf3 python3 timeout sha256sum

# keys: A->B as 32 raw bytes (the salt derived), B->A as the RFC 9227 KEYMAT in hex
head -c 32 /dev/urandom >"$T/a2b.key"
salt=12; case $TRANSFORM in magma-*) salt=4 ;; esac
head -c $((32 + salt)) /dev/urandom | od -An -v -tx1 | tr -d ' \n' >"$T/b2a.key"
chmod 600 "$T"/*.key
THREADS=2
tunnel_conf a 10.231.0.1 10.231.0.2 0x1001 0x2002 a2b.key b2a.key
tunnel_conf b 10.231.0.2 10.231.0.1 0x2002 0x1001 b2a.key a2b.key
# A times its workers' phases (timing = yes: checked after iperf3), B not
echo "timing = yes" >>"$T/a.conf"

start() { # SIDE NS ADDR
  # --new-keys on the first start (the keys are new), never after it; through
  # sh's exec, so that the pid written is the tunnel's own
  local new=; [ -e "$T/$1.state" ] || new=--new-keys
  ip netns exec $2 sh -c 'echo $$ >"$1"; exec "$2" tunnel -c "$3" $4' sh "$T/$1.pid" "$G" \
    "$T/$1.conf" "$new" 2>>"$T/$1.log" </dev/null >/dev/null &
  for _ in $(seq $(bound 50)); do [ -s "$T/$1.pid" ] && break; sleep 0.1; done
  PIDS+=($(cat "$T/$1.pid"))
  eval "PID_$1=$(cat "$T/$1.pid")"
  rm -f "$T/$1.pid"
  for _ in $(seq $(bound 50)); do ip -n $2 link show $TUN >/dev/null 2>&1 && break; sleep 0.1; done
  ip -n $2 addr add $3/30 dev $TUN 2>/dev/null
  # 500 packets of TUN queue are 25 ms of the paced UDP test: a loaded CI
  # host can stall a worker that long, and the test counts tunnel losses
  ip -n $2 link set $TUN txqueuelen 5000
}
# Where lost datagrams went: each namespace's UDP and TUN drop counters and
# the tunnels' own, printed when a count comes up short.
udp_drops() {
  status_fresh a b
  local ns side
  for side in a b; do
    ns=$NA; [ $side = b ] && ns=$NB
    echo "  side $side: $(ip netns exec $ns nstat -saz 2>/dev/null |
      awk '$1 ~ /^Udp(InErrors|RcvbufErrors|SndbufErrors)$/ {printf "%s=%s ", $1, $2}')"
    echo "  side $side $TUN: $(ip -n $ns -s link show $TUN | awk 'f {print "tx packets", $2, "dropped", $4; f=0} /TX:/ {f=1}')"
    echo "  side $side tunnel: $(ip netns exec $ns "$G" tunnel --status -c "$T/$side.conf" 2>&1 | tr '\n' ' ')"
  done
}
status() { ip netns exec $1 "$G" tunnel --status -c "$T/$2.conf" | awk -v k="$3" '$1 == k {print $2}'; }

START_A=$(date +%s)
start a $NA 10.232.0.1
start b $NB 10.232.0.2

if ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) 10.232.0.2 >"$T/ping.log" 2>&1; then
  ok "ping through the tunnel"
else
  bad "ping through the tunnel: $(tail -3 "$T/ping.log")"; cat "$T"/*.log; finish
fi

# IP packets of the tunnel's MTU (1400 = 1372 + ICMP 8 + IP 20) and of 64
# bytes, both ways; one byte more than the MTU is refused by the kernel
ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) -M do -s 1372 10.232.0.2 >"$T/ping.log" 2>&1 &&
  ok "1400-byte (MTU) pings through the tunnel" || bad "MTU-sized ping: $(tail -2 "$T/ping.log")"
ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) -M do -s 1373 10.232.0.2 >/dev/null 2>&1 &&
  bad "a 1401-byte packet went through a 1400-byte MTU" || ok "1401 bytes refused by the MTU"
ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) -s 36 10.232.0.2 >"$T/ping.log" 2>&1 &&
  ok "64-byte pings through the tunnel" || bad "64-byte ping: $(tail -2 "$T/ping.log")"

# What goes on the wire: a ping's pattern is seen in the captured ESP
# packets with the integrity-only transforms (*-mac-ktree: the inner packet
# in clear, RFC 9227 4) and never with the others (encrypted)
inject_bg "$T/clear.out" --count 3 --save "$T/clear" || bad "capture: not capturing"
ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) -p 5a17c0de5a17c0de 10.232.0.2 >/dev/null 2>&1
wait $ipid || bad "capture: $(cat "$T/clear.out" "$T/inject.err")"
seen=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(bytes.fromhex("5a17c0de5a17c0de")) > 0)' "$T/clear")
case $TRANSFORM in
*-mac-ktree) [ "$seen" = True ] && ok "integrity only: the inner packets go in clear" ||
  bad "integrity only: the ping's pattern not in the captured packets" ;;
*) [ "$seen" = False ] && ok "the inner packets are encrypted (the ping's pattern not on the wire)" ||
  bad "the ping's pattern is on the wire" ;;
esac

if [ "${TUNNEL_QUICK:-0}" = 1 ]; then
  for p in $PID_a $PID_b; do kill -TERM $p; done
  for p in $PID_a $PID_b; do
    for _ in $(seq $(bound 50)); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
  done
  alive=0
  for p in $PID_a $PID_b; do kill -0 $p 2>/dev/null && alive=1; done
  [ $alive = 1 ] && bad "a tunnel ignored SIGTERM" || ok "SIGTERM stops both"
  finish
fi

# 64-byte UDP datagrams (paced): every one arrives once and intact
UDPN=5000
ip netns exec $NB timeout 40 python3 "$HERE/xfer.py" udprecv 10.232.0.2 5002 $UDPN 64 \
  "$T/udp.ready" >"$T/udp.out" &
rpid=$!
PIDS+=($rpid)
# sending starts once the receiver's socket is bound (on a loaded host a
# fixed 0.5 s once lost the first 480 datagrams to a port not yet open)
for _ in $(seq $(bound 150)); do [ -e "$T/udp.ready" ] && break; sleep 0.1; done
ip netns exec $NA timeout 30 python3 "$HERE/xfer.py" udpsend 10.232.0.2 5002 $UDPN 64
wait $rpid
if [ "$(cat "$T/udp.out")" = "received $UDPN distinct $UDPN bad 0" ]; then
  ok "$UDPN 64-byte UDP datagrams, each received once, intact"
else
  bad "64-byte UDP datagrams: $(cat "$T/udp.out") of $UDPN"
  udp_drops # where they went
fi

# a random file, byte-exact over TCP through the tunnel
MIB=100
head -c $((MIB << 20)) /dev/urandom >"$T/file"
ip netns exec $NB timeout 120 python3 "$HERE/xfer.py" recv 10.232.0.2 5001 "$T/file.got" 100 &
rpid=$!
PIDS+=($rpid)
t0=$(date +%s.%N)
ip netns exec $NA timeout 120 python3 "$HERE/xfer.py" send 10.232.0.2 5001 "$T/file" 100
wait $rpid
t1=$(date +%s.%N)
if [ "$(sha256sum <"$T/file")" = "$(sha256sum <"$T/file.got" 2>/dev/null)" ]; then
  ok "$MIB MiB byte-exact through the tunnel ($(awk -v a=$t0 -v b=$t1 -v m=$MIB 'BEGIN{printf "%.0f", m*8.388608/(b-a)}') Mbit/s)"
else
  bad "file through the tunnel differs ($(stat -c %s "$T/file.got" 2>/dev/null) bytes arrived)"
fi
rm -f "$T/file" "$T/file.got"

# iperf3, briefly
ip netns exec $NB timeout 30 iperf3 -s -1 -B 10.232.0.2 >/dev/null 2>&1 &
PIDS+=($!)
# the server listening (late on a loaded host: the client would be refused)
for _ in $(seq $(bound 100)); do
  ip netns exec $NB ss -Hltn 'sport = :5201' | grep -q . && break
  sleep 0.05
done
if ip netns exec $NA timeout 30 iperf3 -c 10.232.0.2 -t 3 -f m >"$T/iperf.log" 2>&1; then
  ok "iperf3: $(grep -E 'receiver' "$T/iperf.log" | awk '{print $(NF-2), $(NF-1)}')"
else
  bad "iperf3: $(tail -2 "$T/iperf.log")"
fi
# timing = yes: A's status has each phase's time and the workers' CPU time;
# A sealed what iperf3 sent, so its seal time is more than none and no more
# than the wall time the workers had; B (no timing) shows no such rows
status_fresh a b
ns_rows="ns_tun_read ns_seal ns_udp_send ns_udp_recv ns_open ns_tun_write ns_worker_cpu"
missing=
for k in $ns_rows; do [ -n "$(status $NA a $k)" ] || missing="$missing $k"; done
seal=$(status $NA a ns_seal) cpu=$(status $NA a ns_worker_cpu) up=$(( $(date +%s) - START_A ))
if [ -z "$missing" ] && [ "$seal" -gt 0 ] && [ "$cpu" -gt 0 ] &&
  [ "$seal" -lt $((up * THREADS * 1000000000)) ]; then
  ok "timing = yes: A's workers timed (seal $((seal / 1000000)) ms of $((cpu / 1000000)) ms of CPU)"
else
  bad "timing = yes: missing:${missing:- none}, ns_seal '$seal', ns_worker_cpu '$cpu'"
fi
[ -z "$(ip netns exec $NB "$G" tunnel --status -c "$T/b.conf" | grep '^ns_')" ] &&
  ok "timing off: B's status shows no phase times" || bad "B's status shows phase times without timing = yes"

# 32 UDP flows (source ports 6000..6031, 4 datagrams each): A's TUN hashes
# them over its two queues, A's worker k sends from port 4500 + k, and B
# picks its receiving socket by that port: both workers of each side carry
# some (the chance that all 32 flows hash to one queue is 2^-31), and
# worker k's port lands on B's worker k (the counts match one to one)
byworker() { ip netns exec $1 "$G" tunnel --status -c "$T/$2.conf" | awk -v k="$3" '$1 == k {print $2, $3}'; }
spread_check() { # SIDE_A SIDE_B FROM TO WHAT
  local tx0 tx1 rx0 rx1 tx0b tx1b rx0b rx1b spread
  status_fresh $1 $2
  read -r tx0 tx1 < <(byworker $NA $1 tx_packets_by_worker)
  read -r rx0 rx1 < <(byworker $NB $2 rx_packets_by_worker)
  ip netns exec $NA python3 -c '
import socket, sys
for p in range(6000, 6032):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((sys.argv[1], p))
    for _ in range(4): s.sendto(b"x" * 64, (sys.argv[2], 9))
    s.close()' $3 $4
  # the counters as both status files show them once every packet is in
  # (files rewritten each second, late on a loaded host: polled, bounded)
  for _ in $(seq $(bound 40)); do
    sleep 0.25
    read -r tx0b tx1b < <(byworker $NA $1 tx_packets_by_worker)
    read -r rx0b rx1b < <(byworker $NB $2 rx_packets_by_worker)
    [ $((tx0b - tx0 + tx1b - tx1)) -ge 128 ] && [ $((rx0b - rx0)) = $((tx0b - tx0)) ] &&
      [ $((rx1b - rx1)) = $((tx1b - tx1)) ] && break
  done
  spread="A sent $((tx0b - tx0)) + $((tx1b - tx1)), B received $((rx0b - rx0)) + $((rx1b - rx1))"
  [ $((tx0b - tx0)) -gt 0 ] && [ $((tx1b - tx1)) -gt 0 ] &&
    [ $((rx0b - rx0)) = $((tx0b - tx0)) ] && [ $((rx1b - rx1)) = $((tx1b - tx1)) ] &&
    ok "32 flows spread over both workers on each side ($5): $spread" ||
    bad "flows not spread over the workers ($5): $spread"
}
spread_check a b 10.232.0.1 10.232.0.2 "outer IPv4"
# a sender's ports: worker 1 of A holds 4501, so a tunnel there with
# threads = 2 is refused with one line that names the port
sed -e "s/^tun = .*/tun = gxt1/" -e "s#^state = .*#state = $T/a3.state#" -e "s/^local = \(.*\):4500/local = \1:4499/" \
  "$T/a.conf" >"$T/a3.conf"
refused $NA a3 'port 4500: address in use' "a tunnel whose second worker's port is taken"

# a second tunnel on A's address and port, A running: refused with one line
sed -e "s/^tun = .*/tun = gxt1/" -e "s#^state = .*#state = $T/a2.state#" "$T/a.conf" >"$T/a2.conf"
refused $NA a2 'address in use' "a second tunnel on the port in use"

# restart A: it continues from its saved sequence numbers, which B's window accepts
out_seq() { awk '$1 == "out" {print $3}' "$T/$1.state"; }
kill -TERM $PID_a
for _ in $(seq $(bound 50)); do kill -0 $PID_a 2>/dev/null || break; sleep 0.1; done
# the numbers used exactly, as a clean stop writes them (while it ran, the
# file held a reservation, which the main thread renews ahead of use and
# may lie a step above what the restart reserves)
seq_before=$(out_seq a)
start a $NA 10.232.0.1
if ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) 10.232.0.2 >"$T/ping2.log" 2>&1; then
  ok "traffic resumes after restarting one side"
else
  bad "no traffic after restart: $(tail -2 "$T/ping2.log")"
fi
[ "$(out_seq a)" -gt "$seq_before" ] && ok "sequence numbers continue after restart" ||
  bad "state file did not advance ($seq_before -> $(out_seq a))"

# the injector: bad copies of captured packets, every one dropped and counted
status_fresh b # B's status file as it stands after the traffic above
declare -A before after
keys="rx_packets rx_replay rx_auth rx_malformed rx_spi"
for k in $keys; do before[$k]=$(status $NB b $k); done
inject_bg "$T/inject.out" --count 20 || bad "injector not capturing: $(cat "$T/inject.err")"
ip netns exec $NA ping -c 30 -i 0.1 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1 &
ppid=$!
PIDS+=($ppid)
wait $ipid || bad "injector: $(cat "$T/inject.err")"
wait $ppid
sent() { awk -v k="$1" '$1 == k {print $2}' "$T/inject.out"; }
# every packet counted under some reason (the 30 pings, each injected copy)
# in B's status file, rewritten each second and late on a loaded host
want=$((30 + $(sent replay) + $(sent flip) + $(sent truncated) + $(sent spi)))
for _ in $(seq $(bound 40)); do
  sleep 0.25
  got=0
  for k in $keys; do after[$k]=$(status $NB b $k); got=$((got + after[$k] - before[$k])); done
  [ $got -ge $want ] && break
done
d() { echo $((after[$1] - before[$1])); }
[ "$(d rx_packets)" = 30 ] && ok "only the 30 genuine pings delivered meanwhile" ||
  bad "rx_packets grew by $(d rx_packets), want 30 (the pings)"
[ "$(d rx_replay)" = "$(sent replay)" ] && ok "$(sent replay) replays dropped as replays" ||
  bad "replays: counted $(d rx_replay), sent $(sent replay)"
[ "$(d rx_auth)" = "$(sent flip)" ] && ok "$(sent flip) bit-flipped packets dropped (ICV)" ||
  bad "bit flips: counted $(d rx_auth), sent $(sent flip)"
[ "$(d rx_malformed)" = "$(sent truncated)" ] && ok "$(sent truncated) truncated packets dropped" ||
  bad "truncated: counted $(d rx_malformed), sent $(sent truncated)"
[ "$(d rx_spi)" = "$(sent spi)" ] && ok "$(sent spi) unknown-SPI packets dropped" ||
  bad "unknown SPI: counted $(d rx_spi), sent $(sent spi)"

# restart B, the receiver: packets captured before cannot be replayed after;
# packets captured while it was down (new to it) are accepted out of order,
# each once
inject_bg "$T/capture.out" --count 10 --save "$T/captured" || bad "capture: not capturing"
ip netns exec $NA ping -c 25 -i 0.1 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1 &
ppid=$!
PIDS+=($ppid)
wait $ipid || bad "capture: $(cat "$T/capture.out" "$T/inject.err")"
wait $ppid
kill -TERM $PID_b # a clean stop: B saves its window's top as it is
for _ in $(seq $(bound 50)); do kill -0 $PID_b 2>/dev/null || break; sleep 0.1; done
inject_bg "$T/capture.out" --count 10 --save "$T/unseen" || bad "capture (B down): not capturing"
ip netns exec $NA ping -c 15 -i 0.1 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1 & # unanswered: B is down
ppid=$!
PIDS+=($ppid)
wait $ipid || bad "capture (B down): $(cat "$T/capture.out" "$T/inject.err")"
wait $ppid
start b $NB 10.232.0.2
ip netns exec $NA timeout 30 python3 "$HERE/inject.py" --dev $VA --to 10.231.0.2 \
  --replay "$T/captured" >/dev/null
rx_counted $NB b 10 || true
[ "$(status $NB b rx_replay)" = 10 ] && [ "$(status $NB b rx_packets)" = 0 ] &&
  ok "10 packets replayed across the receiver's restart: refused" ||
  bad "replay across restart: rx_replay $(status $NB b rx_replay), rx_packets $(status $NB b rx_packets)"
ip netns exec $NA timeout 30 python3 "$HERE/inject.py" --dev $VA --to 10.231.0.2 \
  --reorder "$T/unseen" >"$T/reorder.out"
rx_counted $NB b 30 || true
[ "$(status $NB b rx_packets)" = 10 ] && [ "$(status $NB b rx_replay)" = 20 ] &&
  [ "$(status $NB b rx_auth)" = 0 ] &&
  ok "10 new packets sent out of order: each delivered once, their 10 second copies dropped as replays" ||
  bad "reordered: rx_packets $(status $NB b rx_packets) (want 10), rx_replay $(status $NB b rx_replay) (want 20), rx_auth $(status $NB b rx_auth)"
if ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) 10.232.0.2 >"$T/ping3.log" 2>&1; then
  ok "traffic resumes after restarting the receiver"
else
  bad "no traffic after restarting the receiver"
fi

# SIGUSR1 prints the counters
kill -USR1 $PID_b
for _ in $(seq $(bound 20)); do sleep 0.1; grep -q '^rx_replay ' "$T/b.log" && break; done
grep -q '^rx_replay ' "$T/b.log" && ok "SIGUSR1 prints the counters" || bad "SIGUSR1: nothing printed"

# esn = off (32-bit sequence numbers, AAD SPI | SN): one side off and the
# other on, every packet fails its ICV; both off, traffic flows again
stop_side() { kill -TERM $1; for _ in $(seq $(bound 50)); do kill -0 $1 2>/dev/null || break; sleep 0.1; done; }
echo 'esn = off' >>"$T/a.conf"
stop_side $PID_a
start a $NA 10.232.0.1
auth0=$(status $NB b rx_auth)
ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1 &&
  bad "a ping went through with ESN off on one side only" || true
for _ in $(seq $(bound 40)); do sleep 0.25; [ "$(status $NB b rx_auth)" -gt "$auth0" ] && break; done
[ "$(status $NB b rx_auth)" -gt "$auth0" ] && ok "ESN off on one side only: packets fail their ICV" ||
  bad "ESN mismatch: rx_auth $auth0 -> $(status $NB b rx_auth)"
echo 'esn = off' >>"$T/b.conf"
stop_side $PID_b
start b $NB 10.232.0.2
if ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) 10.232.0.2 >"$T/ping4.log" 2>&1; then
  ok "esn = off on both sides: traffic flows"
else
  bad "esn = off on both sides: $(tail -2 "$T/ping4.log")"
fi

# The outer UDP over IPv6: a second pair of tunnels on the veth's IPv6
# addresses (IPv6 stays off on every other device): ping through, and the
# workers' ports spread over the receiver's sockets as over IPv4
ip netns exec $NA sysctl -qw net.ipv6.conf.$VA.disable_ipv6=0
ip netns exec $NB sysctl -qw net.ipv6.conf.$VB.disable_ipv6=0
ip -n $NA addr add fd00:231::1/64 dev $VA nodad
ip -n $NB addr add fd00:231::2/64 dev $VB nodad
head -c 32 /dev/urandom >"$T/a2b6.key"
head -c 32 /dev/urandom >"$T/b2a6.key"
chmod 600 "$T"/*.key
TUN=gxt6
tunnel_conf a6 "[fd00:231::1]" "[fd00:231::2]" 0x1003 0x2004 a2b6.key b2a6.key
tunnel_conf b6 "[fd00:231::2]" "[fd00:231::1]" 0x2004 0x1003 b2a6.key a2b6.key
start a6 $NA 10.233.0.1
start b6 $NB 10.233.0.2
if ip netns exec $NA ping -c 3 -i 0.2 -W $(bound 2) 10.233.0.2 >"$T/ping6.log" 2>&1; then
  ok "ping through a tunnel whose outer UDP is IPv6"
else
  bad "outer IPv6: $(tail -2 "$T/ping6.log"; cat "$T"/a6.log "$T"/b6.log)"
fi
spread_check a6 b6 10.233.0.1 10.233.0.2 "outer IPv6"

# a clean stop: both exit on SIGTERM, and (in sanitizer builds) with no report
for p in $PID_a $PID_b $PID_a6 $PID_b6; do kill -TERM $p; done
for p in $PID_a $PID_b $PID_a6 $PID_b6; do
  for _ in $(seq $(bound 50)); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
done
alive=0
for p in $PID_a $PID_b $PID_a6 $PID_b6; do kill -0 $p 2>/dev/null && alive=1; done
[ $alive = 1 ] && bad "a tunnel ignored SIGTERM" || ok "SIGTERM stops all four"
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/a.log "$T"/b.log "$T"/a6.log "$T"/b6.log; then
  bad "sanitizer reports (above)"
else
  ok "no sanitizer reports"
fi
finish
