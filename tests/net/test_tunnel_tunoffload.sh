#!/usr/bin/env bash
# gostx tunnel with the TUN offloads (docs/TUNNEL.md, "TUN offloads"), in two
# network namespaces, one worker per side, IPv4 and IPv6 inside:
# 1. --status says tun_csum on, tun_tso on, and tun_uso on where the kernel
#    has it (6.2+; else off, with why);
# 2. a file byte-exact over TCP, inner IPv4 and inner IPv6: the sender's
#    kernel hands over TSO super-packets (tun_gso_in grows), which the
#    tunnel cuts into segments; the receiving tunnel joins them again into
#    GSO writes (tun_gso_out grows); again over IPv6 with a destination
#    options header in every packet (an extension header: cut, none
#    dropped, and joined again by B);
# 3. UDP datagrams sent with UDP_SEGMENT in runs of 5 of 1000 bytes and a
#    shorter last one (123): with USO they reach the tunnel as one
#    super-packet a run (tun_gso_in), the receiving tunnel joins them again
#    into one USO write (tun_gso_out), and every datagram arrives once,
#    intact, over IPv4 and IPv6;
# 4. small UDP datagrams leave the kernel checksum-partial: completed by the
#    tunnel (tun_csum_in), every one arrives intact;
# 5. one segment of a super-packet corrupted in flight, IPv4 and IPv6
#    inside: a UDP_SEGMENT run of 5 x 1000 bytes and a shorter 123 (one USO
#    super-packet, which A cuts into 6 ESP packets) captured while B is down
#    (new to it), then sent to B as one GSO train with the third packet's
#    ICV flipped: B counts that one in rx_auth and delivers the 5 others
#    (the shorter last one among them), each once, intact;
# 5b. kernels that take part of TUNSETOFFLOAD (refused by an LD_PRELOAD
#    library as they refuse): without USO, without TSO, without anything:
#    --status says so (and the log where it should), UDP_SEGMENT runs and
#    TCP byte-exact, read as super-packets, checksum-partial or whole
#    packets as the offloads taken allow, nothing dropped;
# 6. tun_offload = off on the sender only (the other end keeps its
#    offloads): --status says off, TCP and UDP still byte-exact both ways,
#    nothing read as a super-packet or joined by A; B still joins A's
#    packets. Packets the tunnel does not join it writes with flags 0: the
#    receiving kernel checks their checksums.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
tunnel_test_begin gxt python3 timeout sha256sum

# counters NS SIDE: "tun_gso_in tun_csum_in rx_auth rx_malformed tx_dropped
# tun_gso_out"
counters() { tunnel_counters $1 $2 tun_gso_in tun_csum_in rx_auth rx_malformed tx_dropped tun_gso_out; }

MIB=8
head -c $((MIB << 20)) /dev/urandom >"$T/file"
RUN=1000,1000,1000,1000,1000,123

tunnel_up a $NA 10.232.0.1 fd00:232::1
tunnel_up b $NB 10.232.0.2 fd00:232::2

# 1. the offloads on
uso_want=on
[ "$(printf '%s\n' "$(uname -r)" 6.2 | sort -V | head -1)" = 6.2 ] || uso_want="off (not in this kernel: Linux 6.2+)"
for side in a b; do
  ns=$NA; [ $side = b ] && ns=$NB
  c=$(tunnel_status $ns $side tun_csum) s=$(tunnel_status $ns $side tun_tso) u=$(tunnel_status $ns $side tun_uso)
  [ "$c/$s/$u" = "on/on/$uso_want" ] && ok "side $side --status: tun_csum $c, tun_tso $s, tun_uso $u" ||
    bad "side $side --status: tun_csum '$c', tun_tso '$s', tun_uso '$u' (want on, on, $uso_want)"
done

# 2. TCP, IPv4 and IPv6 inside, from super-packets
# tcp_gso WHAT ADDR: $MIB MiB over TCP from A to ADDR byte-exact (with
# XFER_DSTOPTS as set), A cutting TSO super-packets (none dropped), B
# joining the segments into GSO writes
tcp_gso() {
  local what=$1 addr=$2 gso0 drop0 out0 gso1 drop1 out1
  read -r gso0 _ _ _ drop0 _ < <(counters $NA a)
  read -r _ _ _ _ _ out0 < <(counters $NB b)
  if tunnel_tcp_through $NA $NB $addr; then ok "$MIB MiB byte-exact over $what"; else
    bad "$what: file differs ($(stat -c %s "$T/file.got" 2>/dev/null) bytes arrived)"; fi
  read -r gso1 _ _ _ drop1 _ < <(counters $NA a)
  read -r _ _ _ _ _ out1 < <(counters $NB b)
  [ $((gso1 - gso0)) -gt 0 ] && [ $drop1 = $drop0 ] &&
    ok "$what: A read $((gso1 - gso0)) TSO super-packets and cut them, none dropped" ||
    bad "$what: A's tun_gso_in $gso0 -> $gso1, tx_dropped $drop0 -> $drop1"
  [ $((out1 - out0)) -gt 0 ] && ok "$what: B joined the segments into $((out1 - out0)) GSO writes" ||
    bad "$what: B's tun_gso_out $out0 -> $out1"
}
for addr in 10.232.0.2 fd00:232::2; do tcp_gso "TCP to $addr" $addr; done
# ... and over IPv6 with a destination options header in every segment:
# cut by A with the header in each segment, joined by B with it
XFER_DSTOPTS=1 tcp_gso "TCP to fd00:232::2 with a destination options header" fd00:232::2
read -r _ _ auth mal _ _ < <(counters $NB b)
[ "$auth $mal" = "0 0" ] && ok "B refused nothing (rx_auth, rx_malformed 0)" ||
  bad "B refused packets: rx_auth $auth, rx_malformed $mal"

# 3. UDP runs with a shorter last datagram (USO)
for addr in 10.232.0.2 fd00:232::2; do
  read -r gso0 _ _ _ _ _ < <(counters $NA a)
  read -r _ _ _ _ _ out0 < <(counters $NB b)
  got=$(udp_through $NA $NB $addr udpgso 60 $RUN)
  read -r gso1 _ _ _ _ _ < <(counters $NA a)
  read -r _ _ _ _ _ out1 < <(counters $NB b)
  [ "$got" = "received 60 distinct 60 bad 0" ] && ok "UDP_SEGMENT runs to $addr: 60 datagrams each once, intact" ||
    bad "UDP_SEGMENT runs to $addr: $got of 60"
  if [ "$uso_want" = on ]; then
    [ $((gso1 - gso0)) -ge 10 ] && ok "A read $((gso1 - gso0)) USO super-packets (10 runs)" ||
      bad "USO: A's tun_gso_in grew by $((gso1 - gso0)), want at least 10"
    # each run arrives as one GSO train, opened as one burst: joined again
    [ $((out1 - out0)) -ge 5 ] && ok "B joined the datagrams into $((out1 - out0)) USO writes (10 runs)" ||
      bad "USO: B's tun_gso_out grew by $((out1 - out0)), want at least 5"
  fi
done

# 4. checksum-partial datagrams completed
read -r _ cs0 _ _ _ _ < <(counters $NA a)
got=$(udp_through $NA $NB 10.232.0.2 udpsend 100 1372,700,64)
got6=$(udp_through $NA $NB fd00:232::2 udpsend 100 1352,701,64)
read -r _ cs1 _ _ _ _ < <(counters $NA a)
[ "$got / $got6" = "received 100 distinct 100 bad 0 / received 100 distinct 100 bad 0" ] &&
  [ $((cs1 - cs0)) -ge 200 ] && ok "200 checksum-partial UDP datagrams (IPv4, IPv6) completed (tun_csum_in +$((cs1 - cs0))) and delivered intact" ||
  bad "checksum-partial datagrams: $got / $got6, tun_csum_in +$((cs1 - cs0)) (want 200)"

# 5. a flipped bit in one segment of a super-packet
for addr in 10.232.0.2 fd00:232::2; do
  tunnel_stop $PID_b
  read -r gso0 _ _ _ _ _ < <(counters $NA a)
  inject_bg "$T/capture.out" --count 6 --save "$T/run" || bad "capture: not capturing"
  ip netns exec $NA timeout 20 python3 "$HERE/xfer.py" udpgso $addr 5002 6 $RUN
  wait $ipid || bad "capture to $addr: $(cat "$T/capture.out" "$T/inject.err")"
  read -r gso1 _ _ _ _ _ < <(counters $NA a)
  [ "$uso_want" != on ] || [ $((gso1 - gso0)) = 1 ] || bad "the run to $addr: A's tun_gso_in +$((gso1 - gso0)), want +1 (one super-packet)"
  tunnel_up b $NB 10.232.0.2 fd00:232::2
  read -r _ _ auth0 mal0 _ _ < <(counters $NB b)
  udp_recv_bg $NB $addr 6 $RUN
  ip netns exec $NA timeout 30 python3 "$HERE/inject.py" --dev $VA --to 10.231.0.2 \
    --gso "$T/run" --corrupt 2 >"$T/gso.out" 2>&1 || bad "injector: $(cat "$T/gso.out")"
  udp_recv_got
  read -r _ _ auth1 mal1 _ _ < <(counters $NB b)
  d="rx_auth +$((auth1 - auth0)), rx_malformed +$((mal1 - mal0))"
  [ "$got / $d" = "received 5 distinct 5 bad 0 missing 2 / rx_auth +1, rx_malformed +0" ] &&
    ok "a super-packet to $addr cut into 6 ($(cat "$T/gso.out")), the third's ICV flipped: the 5 others delivered, $d" ||
    bad "a super-packet to $addr with one bad segment: $got, $d (want 5 delivered, the third missing, rx_auth +1)"
done

# 5b. kernels that take part of TUNSETOFFLOAD, made by an LD_PRELOAD
# library (tests/preload/refuse_offload.c) that refuses as such a kernel
# does (EINVAL for a flag it lacks): without USO (before 6.2), UDP_SEGMENT
# runs are cut by the sending kernel before the TUN device (no super-packet
# read) and TCP still comes as TSO super-packets; without TSO either
# (checksums only, said in one line), TCP comes as checksum-partial
# packets and no super-packet; with nothing taken (said), packets come
# whole. Each time byte-exact, nothing dropped.
lib=$(dirname "$G")/libgostx_refuse_offload.so
[ -f "$lib" ] || bad "$lib not built"
uso_off="off (not in this kernel: Linux 6.2+)"
for mode in uso tso all; do
  [ -f "$lib" ] || break
  tunnel_stop $PID_a
  lines=$(wc -l <"$T/a.log")
  refusing GOSTX_REFUSE_TUN=$mode tunnel_up a $NA 10.232.0.1 fd00:232::1
  st="$(tunnel_status $NA a tun_csum)/$(tunnel_status $NA a tun_tso)/$(tunnel_status $NA a tun_uso)"
  said=$(tail -n +$((lines + 1)) "$T/a.log" | grep -E 'TUN (offloads|USO) refused')
  up=$(tail -n +$((lines + 1)) "$T/a.log" | grep -o 'TUN TSO .*')
  case $mode in
  uso) want="on/on/$uso_off" want_said= want_up="TUN TSO on, USO off, checksum offload on" ;;
  tso) want="on/off (Invalid argument)/$uso_off" want_up="TUN TSO off, USO off, checksum offload on"
       want_said="gostx tunnel: TUN offloads refused (Invalid argument): checksums only, no TSO" ;;
  all) want="off (Invalid argument)/off (Invalid argument)/$uso_off" want_up="TUN TSO off, USO off, checksum offload off"
       want_said="gostx tunnel: TUN offloads refused (Invalid argument): packets read one by one, checksums complete" ;;
  esac
  [ "$st" = "$want" ] && [ "$said" = "$want_said" ] && [ "$up" = "$want_up" ] &&
    ok "TUNSETOFFLOAD without $mode: --status $st${said:+, said: $said}; up line: $up" ||
    bad "TUNSETOFFLOAD without $mode: --status '$st' (want '$want'), said '$said', up line '$up' (want '$want_up')"
  got=$(udp_through $NA $NB 10.232.0.2 udpgso 60 $RUN)
  read -r gso_u _ _ _ _ _ < <(counters $NA a)
  tunnel_tcp_through $NA $NB fd00:232::2 && tcp=ok || tcp=differs
  read -r gso_t cs_t _ _ drop _ < <(counters $NA a)
  # what A must have read: super-packets (tun_gso_in), checksum-partial
  # ones (tun_csum_in) after the UDP runs and after TCP
  case $mode in
  uso) r="$gso_u $((gso_t > 0)) $drop" w="0 1 0" ;;
  tso) r="$gso_t $((cs_t > 0)) $drop" w="0 1 0" ;;
  all) r="$gso_t $cs_t $drop" w="0 0 0" ;;
  esac
  [ "$got / $tcp / $r" = "received 60 distinct 60 bad 0 / ok / $w" ] &&
    ok "without $mode: UDP_SEGMENT runs and $MIB MiB over TCP intact (tun_gso_in $gso_u after UDP, $gso_t after TCP; tun_csum_in $cs_t; tx_dropped $drop)" ||
    bad "without $mode: UDP $got, TCP $tcp, tun_gso_in $gso_u / $gso_t, tun_csum_in $cs_t, tx_dropped $drop (want $w)"
done

# 6. tun_offload = off on A only
tunnel_stop $PID_a
echo 'tun_offload = off' >>"$T/a.conf"
tunnel_up a $NA 10.232.0.1 fd00:232::1
s=$(tunnel_status $NA a tun_tso) c=$(tunnel_status $NA a tun_csum)
[ "$s/$c" = "off (tun_offload = off)/off (tun_offload = off)" ] && ok "tun_offload = off: --status says tun_tso $s, tun_csum $c" ||
  bad "tun_offload = off: tun_tso '$s', tun_csum '$c'"
read -r _ _ _ _ _ out0 < <(counters $NB b)
for addr in 10.232.0.2 fd00:232::2; do
  if tunnel_tcp_through $NA $NB $addr; then ok "tun_offload = off: $MIB MiB byte-exact A to $addr"; else bad "tun_offload = off: file differs to $addr"; fi
done
read -r _ _ _ _ _ out1 < <(counters $NB b)
[ $((out1 - out0)) -gt 0 ] && ok "B (offloads on) joined A's packets into $((out1 - out0)) GSO writes" ||
  bad "tun_offload = off on A: B's tun_gso_out $out0 -> $out1"
if tunnel_tcp_through $NB $NA fd00:232::1; then ok "tun_offload = off: $MIB MiB byte-exact B (offloads on) to A over IPv6"; else bad "tun_offload = off: file differs B to A"; fi
got=$(udp_through $NA $NB 10.232.0.2 udpgso 60 $RUN)
[ "$got" = "received 60 distinct 60 bad 0" ] && ok "tun_offload = off: UDP_SEGMENT runs intact" || bad "tun_offload = off: UDP runs $got of 60"
read -r gso1 cs1 _ _ _ out1 < <(counters $NA a)
[ "$gso1 $cs1 $out1" = "0 0 0" ] && ok "tun_offload = off: nothing read as a super-packet or checksum-partial, nothing joined" ||
  bad "tun_offload = off: tun_gso_in $gso1, tun_csum_in $cs1, tun_gso_out $out1"

tunnel_test_end
