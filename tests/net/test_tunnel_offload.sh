#!/usr/bin/env bash
# gostx tunnel with the UDP offloads (docs/TUNNEL.md, "UDP offloads"), in two
# network namespaces, one worker per side:
# 1. --status says udp_gso on, udp_gro on;
# 2. a file byte-exact over TCP, sent as GSO trains (tx_gso) and received
#    as GRO buffers (rx_gro), nothing refused;
# 3. a burst of mixed sizes (runs of one size, each ended by a shorter or a
#    longer one) queued in the TUN device while the sender is stopped, then
#    sent at once: every datagram arrives once, intact;
# 4. a GRO buffer of 9 ESP packets new to the receiver (8 of one size, a
#    shorter last one), one with a flipped ICV bit: that one counted in
#    rx_auth, the 8 others delivered, and the buffer counted in rx_gro;
# 5. a GSO send the kernel refuses (the sender's link MTU below the
#    segments: EMSGSIZE) after one it took: said once, the rest of the burst
#    sent again datagram by datagram, every one delivered once; the same for EIO (a route through
#    IPsec), refused by an LD_PRELOAD library as the kernel would: said once,
#    nothing lost, GSO not tried again (with two workers too: said once in
#    all); a kernel without UDP_SEGMENT and
#    UDP_GRO (the same library): both off, said once each, traffic whole
#    both ways;
# 6. udp_offload = off: both said off in --status, the file and the burst
#    still go through, nothing sent or received as a train.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
tunnel_test_begin gxo python3 timeout sha256sum

stop() { tunnel_stop "$@"; }
status() { tunnel_status "$@"; }
# counters NS SIDE: "tx_gso rx_gro rx_packets rx_auth rx_replay rx_malformed"
counters() { tunnel_counters $1 $2 tx_gso rx_gro rx_packets rx_auth rx_replay rx_malformed; }

# a random file byte-exact over TCP; FILE_OK set
MIB=20
head -c $((MIB << 20)) /dev/urandom >"$T/file"
file_through() { tunnel_tcp_through $NA $NB 10.232.0.2; }

# 40 UDP datagrams of mixed sizes (IP packets of 1400, 728, 128, 64, 1028,
# 528 bytes) queued in A's TUN device while A is stopped, so that A's worker
# reads them as one burst: runs of one size ended by a shorter datagram
# (GSO's last segment) or by a longer one (a new train)
SIZES=1372,1372,1372,700,1372,1372,100,36,36,36,1000,1000,1372,500
burst_through() { HOLD=$PID_a udp_through $NA $NB 10.232.0.2 udpsend 40 $SIZES; }

tunnel_up a $NA 10.232.0.1
tunnel_up b $NB 10.232.0.2

# 1. the offloads on
for side in a b; do
  ns=$NA; [ $side = b ] && ns=$NB
  g=$(status $ns $side udp_gso) r=$(status $ns $side udp_gro)
  [ "$g" = on ] && [ "$r" = on ] && ok "side $side --status: udp_gso $g, udp_gro $r" ||
    bad "side $side --status: udp_gso '$g', udp_gro '$r' (want on, on)"
done

# 2. TCP through GSO trains and GRO buffers
read -r gso0 _ rx0 auth0 rep0 mal0 < <(counters $NA a)
read -r _ gro0 _ _ _ _ < <(counters $NB b)
if file_through; then ok "$MIB MiB byte-exact over TCP"; else bad "file differs ($(stat -c %s "$T/file.got" 2>/dev/null) bytes arrived)"; fi
read -r gso1 _ _ _ _ _ < <(counters $NA a)
read -r _ gro1 _ auth1 rep1 mal1 < <(counters $NB b)
[ $((gso1 - gso0)) -gt 0 ] && [ $((gro1 - gro0)) -gt 0 ] &&
  ok "A sent $((gso1 - gso0)) GSO trains, B received $((gro1 - gro0)) GRO buffers" ||
  bad "no trains: A's tx_gso $gso0 -> $gso1, B's rx_gro $gro0 -> $gro1"
[ "$auth1 $rep1 $mal1" = "0 0 0" ] && ok "B refused nothing (rx_auth, rx_replay, rx_malformed 0)" ||
  bad "B refused packets: rx_auth $auth1, rx_replay $rep1, rx_malformed $mal1"

# 3. a burst of mixed sizes
read -r gso0 _ _ _ _ _ < <(counters $NA a)
got=$(burst_through)
read -r gso1 _ _ _ _ _ < <(counters $NA a)
[ "$got" = "received 40 distinct 40 bad 0" ] && ok "a burst of 40 datagrams of mixed sizes: each received once, intact" ||
  bad "mixed burst: $got of 40"
[ $((gso1 - gso0)) -ge 4 ] && ok "the burst left in $((gso1 - gso0)) GSO trains" ||
  bad "the burst: A's tx_gso grew by $((gso1 - gso0)), want at least 4"

# 4. one coalesced buffer with one corrupted datagram: 9 packets captured
# while B is down (new to it), 8 pings of 1028 bytes and one of 228, sent
# by the injector as one GSO send, the fourth one's ICV flipped
stop $PID_b
inject_bg "$T/capture.out" --count 9 --save "$T/train" || bad "capture: not capturing"
ip netns exec $NA ping -c 8 -s 1000 -i 0.1 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1
ip netns exec $NA ping -c 1 -s 200 -W $(bound 1) 10.232.0.2 >/dev/null 2>&1
wait $ipid || bad "capture: $(cat "$T/capture.out" "$T/inject.err")"
tunnel_up b $NB 10.232.0.2
read -r _ gro0 rx0 auth0 rep0 mal0 < <(counters $NB b)
ip netns exec $NA timeout 30 python3 "$HERE/inject.py" --dev $VA --to 10.231.0.2 \
  --gso "$T/train" --corrupt 3 >"$T/gso.out" 2>&1 || bad "injector: $(cat "$T/gso.out")"
read -r _ gro1 rx1 auth1 rep1 mal1 < <(counters $NB b)
d="rx_gro +$((gro1 - gro0)), rx_packets +$((rx1 - rx0)), rx_auth +$((auth1 - auth0)), rx_replay +$((rep1 - rep0)), rx_malformed +$((mal1 - mal0))"
[ "$d" = "rx_gro +1, rx_packets +8, rx_auth +1, rx_replay +0, rx_malformed +0" ] &&
  ok "a GRO buffer of 9 ($(cat "$T/gso.out")), one ICV flipped: $d" ||
  bad "the GRO buffer with one bad datagram: $d (want rx_gro +1, rx_packets +8, rx_auth +1)"

# 5. the kernel refuses GSO: A's link MTU (1300) below its 1460-byte
# segments (EMSGSIZE); each datagram then goes alone (fragmented by IP),
# said once. The first burst starts with a train of small datagrams,
# which the kernel takes before it refuses the next one: the rest is sent
# again from the first datagram not sent (none twice: B's rx_replay)
ip -n $NA link set $VA mtu 1300
read -r _ _ _ _ rep0 _ < <(counters $NB b)
got1=$(SIZES=36,36,36,$SIZES burst_through)
got2=$(burst_through)
read -r _ _ _ _ rep1 _ < <(counters $NB b)
ip -n $NA link set $VA mtu 1500
[ "$got1 / $got2 / $((rep1 - rep0))" = "received 40 distinct 40 bad 0 / received 40 distinct 40 bad 0 / 0" ] &&
  ok "GSO refused by the kernel after a train it took: two bursts each delivered whole, none sent twice" ||
  bad "GSO refused: $got1 / $got2 of 40, B's rx_replay +$((rep1 - rep0))"
n=$(grep -c 'UDP GSO refused' "$T/a.log")
g=$(status $NA a udp_gso)
[ "$n" = 1 ] && [ "${g%% *}" = off ] && ok "said once: $(grep 'UDP GSO refused' "$T/a.log"); --status: udp_gso $g" ||
  bad "the refusal said $n times, udp_gso '$g'"

# 5b. the kernel refuses GSO with EIO, as udp_send_skb does on a route
# through IPsec (and before Linux 6.10 for a device without checksum
# offload). No such route can be made here (kernels without ESP, AH or
# IPComp, 6.10+ devices), so A runs with an LD_PRELOAD library
# (tests/preload/refuse_offload.c) whose sendmmsg answers every GSO message as
# the kernel would: udp_gso on at start, the first train refused, the burst
# sent again datagram by datagram, said once, and no train tried again
lib=$(dirname "$G")/libgostx_refuse_offload.so
if [ -f "$lib" ]; then
  stop $PID_a
  lines=$(wc -l <"$T/a.log")
  refusing GOSTX_REFUSE_GSO=EIO GOSTX_REFUSE_LOG="$T/refusals" tunnel_up a $NA 10.232.0.1
  g0=$(status $NA a udp_gso)
  got1=$(burst_through)
  got2=$(burst_through)
  read -r gso1 _ _ _ _ _ < <(counters $NA a)
  err=$(tunnel_counters $NA a tx_errors)
  g1=$(status $NA a udp_gso)
  said=$(tail -n +$((lines + 1)) "$T/a.log" | grep -c 'UDP GSO refused (Input/output error)')
  [ "$got1 / $got2" = "received 40 distinct 40 bad 0 / received 40 distinct 40 bad 0" ] && [ "$err" = 0 ] &&
    ok "GSO refused with EIO: two bursts each delivered whole, tx_errors 0" ||
    bad "GSO refused with EIO: $got1 / $got2 of 40, tx_errors $err"
  [ "$g0 / $g1 / $said" = "on / off (Input/output error) / 1" ] &&
    ok "EIO said once; --status: udp_gso $g0 at start, then $g1" ||
    bad "EIO: udp_gso '$g0' at start, '$g1' after, said $said times"
  n=$(wc -l <"$T/refusals" 2>/dev/null)
  [ "${n:-0} $gso1" = "1 0" ] && ok "one GSO send refused, none tried after it (tx_gso 0)" ||
    bad "GSO sends refused: ${n:-0} (want 1), tx_gso $gso1 (want 0)"
  # 5c. a kernel that knows neither UDP_SEGMENT nor UDP_GRO (before 4.18
  # and 5.0: ENOPROTOOPT, made by the same library): both off from the
  # start, said once each, and everything still goes through both ways
  stop $PID_a
  lines=$(wc -l <"$T/a.log")
  rm -f "$T/refusals"
  refusing GOSTX_REFUSE_UDP_OPT=1 GOSTX_REFUSE_LOG="$T/refusals" tunnel_up a $NA 10.232.0.1
  g=$(status $NA a udp_gso) r=$(status $NA a udp_gro)
  said=$(tail -n +$((lines + 1)) "$T/a.log" | grep -c 'UDP G[SR]O not available (Protocol not available)')
  asked=$(echo $(sort -u "$T/refusals" 2>/dev/null))
  [ "$g / $r / $said / $asked" = "off (Protocol not available) / off (Protocol not available) / 2 / udp_gro udp_gso" ] &&
    ok "UDP_SEGMENT and UDP_GRO unknown to the kernel: udp_gso $g, udp_gro $r, each said once" ||
    bad "UDP_SEGMENT and UDP_GRO unknown: udp_gso '$g', udp_gro '$r', said $said times (want 2), refused: $asked"
  got=$(burst_through)
  [ "$got" = "received 40 distinct 40 bad 0" ] && ok "without UDP_SEGMENT: the mixed burst delivered whole" ||
    bad "without UDP_SEGMENT: mixed burst $got of 40"
  if tunnel_tcp_through $NB $NA 10.232.0.1; then ok "without UDP_GRO: $MIB MiB byte-exact B to A"; else bad "without UDP_GRO: file differs B to A"; fi
  read -r gso1 gro1 _ _ _ _ < <(counters $NA a)
  [ "$gso1 $gro1" = "0 0" ] && ok "without them: no GSO train sent, no GRO buffer received" ||
    bad "without UDP_SEGMENT / UDP_GRO: tx_gso $gso1, rx_gro $gro1"
  # 5d. EIO with two workers on A, both sending trains at once: 32 flows of
  # 4 datagrams queued in A's TUN (two queues, by flow) while A is
  # stopped; each worker's first train refused (one or both: the other may
  # have seen GSO off first), said once in all, every datagram delivered
  stop $PID_a
  sed -i 's/^threads = 1$/threads = 2/' "$T/a.conf"
  lines=$(wc -l <"$T/a.log")
  rm -f "$T/refusals"
  refusing GOSTX_REFUSE_GSO=EIO GOSTX_REFUSE_LOG="$T/refusals" tunnel_up a $NA 10.232.0.1
  read -r _ _ rx0 _ _ _ < <(counters $NB b)
  kill -STOP $PID_a
  ip netns exec $NA python3 -c '
import socket
for p in range(6000, 6032):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.232.0.1", p))
    for _ in range(4): s.sendto(b"x" * 500, ("10.232.0.2", 9))
    s.close()'
  kill -CONT $PID_a
  read -r _ _ rx1 _ _ _ < <(counters $NB b)
  read -r w0 w1 < <(ip netns exec $NA "$G" tunnel --status -c "$T/a.conf" | awk '$1 == "tx_packets_by_worker" {print $2, $3}')
  err=$(tunnel_counters $NA a tx_errors)
  said=$(tail -n +$((lines + 1)) "$T/a.log" | grep -c 'UDP GSO refused (Input/output error)')
  n=$(wc -l <"$T/refusals" 2>/dev/null)
  [ $((rx1 - rx0)) = 128 ] && [ "$err" = 0 ] && [ "${w0:-0}" -gt 0 ] && [ "${w1:-0}" -gt 0 ] &&
    [ "$said" = 1 ] && [ "${n:-0}" -ge 1 ] && [ "${n:-0}" -le 2 ] &&
    ok "EIO with two workers ($w0 + $w1 datagrams sent): $n trains refused, said once, all 128 delivered" ||
    bad "EIO with two workers: B got $((rx1 - rx0)) of 128, tx_errors $err, workers sent $w0 + $w1, refused ${n:-0}, said $said"
  sed -i 's/^threads = 2$/threads = 1/' "$T/a.conf"
else
  bad "$lib not built"
fi

# 6. udp_offload = off
stop $PID_a
stop $PID_b
echo 'udp_offload = off' >>"$T/a.conf"
echo 'udp_offload = off' >>"$T/b.conf"
tunnel_up a $NA 10.232.0.1
tunnel_up b $NB 10.232.0.2
g=$(status $NA a udp_gso) r=$(status $NB b udp_gro)
[ "$g" = "off (udp_offload = off)" ] && [ "$r" = "off (udp_offload = off)" ] &&
  ok "udp_offload = off: --status says udp_gso $g, udp_gro $r" || bad "udp_offload = off: udp_gso '$g', udp_gro '$r'"
if file_through; then ok "udp_offload = off: $MIB MiB byte-exact"; else bad "udp_offload = off: file differs"; fi
got=$(burst_through)
[ "$got" = "received 40 distinct 40 bad 0" ] && ok "udp_offload = off: the mixed burst delivered whole" ||
  bad "udp_offload = off: mixed burst $got of 40"
read -r gso1 _ _ _ _ _ < <(counters $NA a)
read -r _ gro1 _ _ _ _ < <(counters $NB b)
[ "$gso1 $gro1" = "0 0" ] && ok "udp_offload = off: no GSO train sent, no GRO buffer received" ||
  bad "udp_offload = off: tx_gso $gso1, rx_gro $gro1"

tunnel_test_end
