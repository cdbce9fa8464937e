#!/usr/bin/env bash
# gostx tunnel rekeyed at run time (SIGHUP, docs/TUNNEL.md "Reloading
# keys"), two workers each end:
# 1. under a steady stream of numbered UDP datagrams, both ends get new key
#    files and SPIs and a SIGHUP: every datagram arrives once (none lost to
#    the switch), neither end counts a packet of an unknown SPI, a failed
#    ICV or a replay, and each says it switched and retired its old SAs;
# 2. the state file moved to the new keys: both ends restart without
#    --new-keys and carry pings;
# 3. a reload that would use a current key again (the same key and salt:
#    its numbers would start at 1 again), that keeps an SPI, or that
#    changes more than the keys is refused, said in one line, and the
#    tunnel carries on with its keys.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
THREADS=2
tunnel_test_begin gxk python3 timeout ping

tunnel_up a $NA 10.232.0.1
tunnel_up b $NB 10.232.0.2

log_has() { # SIDE PATTERN: within 10 s
  for _ in $(seq $(bound 100)); do
    grep -q -- "$2" "$T/$1.log" && return 0
    sleep 0.1
  done
  return 1
}
pings() { # COUNT: answered of COUNT pings A -> B
  ip netns exec $NA timeout 30 ping -q -c $1 -i 0.1 -W $(bound 1) 10.232.0.2 2>/dev/null |
    awk '/received/ {print $4}'
}

# 1. 2000 datagrams, one each 5 ms (10 s and more), the reload 2 s in; the
# new keys with their salts (44 bytes: 32 and a salt of 12), which a reload
# with new SPIs does not change
N=2000
udp_recv_bg $NB 10.232.0.2 $N 64
XFER_GAP=0.005 ip netns exec $NA timeout 60 python3 "$HERE/xfer.py" udpsend 10.232.0.2 5002 $N 64 &
spid=$!
PIDS+=($spid)
sleep 2
head -c 44 /dev/urandom >"$T/a2b.2.key"
head -c 44 /dev/urandom >"$T/b2a.2.key"
chmod 600 "$T"/*.key
tunnel_conf a 10.231.0.1 10.231.0.2 0x1003 0x2004 a2b.2.key b2a.2.key
tunnel_conf b 10.231.0.2 10.231.0.1 0x2004 0x1003 b2a.2.key a2b.2.key
kill -HUP $PID_a
sleep 0.3 # (a window: the two ends reloaded apart, as an operator's would be)
kill -HUP $PID_b
wait $spid
udp_recv_got
[ "$got" = "received $N distinct $N bad 0" ] &&
  ok "rekeyed under a stream of $N datagrams: each received once, intact" ||
  bad "rekey under the stream: $got"
for s in a b; do
  log_has $s 'reload: sealing under spi_out' && log_has $s 'reload: the old inbound SA .* retired' &&
    ok "$s switched and retired its old SAs: $(grep -c 'reload:' "$T/$s.log") lines" ||
    bad "$s: no switch or retirement said: $(grep reload: "$T/$s.log")"
done
status_fresh a b
for s in a b; do
  ns=$NA
  [ $s = b ] && ns=$NB
  c="$(tunnel_status $ns $s rx_spi) $(tunnel_status $ns $s rx_auth) $(tunnel_status $ns $s rx_replay)"
  [ "$c" = "0 0 0" ] && ok "$s: rx_spi, rx_auth, rx_replay 0" || bad "$s: rx_spi rx_auth rx_replay $c"
  sas="$(tunnel_status $ns $s sa_out) / $(tunnel_status $ns $s sa_in)"
  want="0x00001003 / 0x00002004"
  [ $s = b ] && want="0x00002004 / 0x00001003"
  [ "$sas" = "$want" ] && ok "$s: only the new SAs live (sa_out / sa_in $sas)" ||
    bad "$s: sa_out / sa_in $sas, not $want"
done

# 2. a restart of both, without --new-keys: the state files are the new keys'
tunnel_stop $PID_a
tunnel_stop $PID_b
tunnel_up a $NA 10.232.0.1
tunnel_up b $NB 10.232.0.2
got=$(pings 5)
[ "$got" = 5 ] && ok "restarted on the new keys' state files: 5 of 5 pings" ||
  bad "after the restart: $got of 5 pings: $(tail -2 "$T/a.log") $(tail -2 "$T/b.log")"

# 3. refusals: the current keys again (new SPIs), new keys under an SPI in
# use, another MTU
refused_reload() { # WHAT PATTERN
  local n
  n=$(grep -c 'reload refused' "$T/a.log")
  kill -HUP $PID_a
  log_has a "reload refused: $2" && [ "$(grep -c 'reload refused' "$T/a.log")" = $((n + 1)) ] &&
    ok "$1 refused: $(grep 'reload refused' "$T/a.log" | tail -1)" ||
    bad "$1 not refused: $(tail -2 "$T/a.log")"
}
tunnel_conf a 10.231.0.1 10.231.0.2 0x1005 0x2006 a2b.2.key b2a.2.key
refused_reload "a reload with the keys in use" "key_out or key_in is a key this tunnel uses now"
tunnel_conf a 10.231.0.1 10.231.0.2 0x1003 0x2006 a2b.key b2a.key
refused_reload "a reload that keeps spi_out" "spi_out and spi_in must both be new"
tunnel_conf a 10.231.0.1 10.231.0.2 0x1005 0x2006 a2b.key b2a.key
sed -i 's/^mtu = 1400/mtu = 1300/' "$T/a.conf"
refused_reload "a reload that changes the MTU" ".*changed more than"
got=$(pings 5)
[ "$got" = 5 ] && ok "after the refusals the tunnel carries on: 5 of 5 pings" ||
  bad "after the refusals: $got of 5 pings"
tunnel_test_end
