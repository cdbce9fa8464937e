#!/usr/bin/env bash
# gostx tunnel across restarts and crashes (kill -9) of either end, and what
# a crash costs (docs/TUNNEL.md, "The state file"):
# 1. the sequence of issue 56: pings, the sender killed and restarted (its
#    numbers jump up to 2^20), pings, the receiver killed and restarted: the
#    receiver drops at most a margin of the sender's next packets as
#    replays, then pings pass (it dropped the next 2^20: the jump had been
#    taken for a second of traffic, and reserved ahead);
# 2. a slow link, 10 pings a second (Magma), across a sender restart, a
#    receiver restart and both: each time at most a margin dropped, and the
#    pings pass again;
# 3. a one-number state file of an older gostx: with --new-keys refused
#    and left as it is (the SA restarted at 1, silently), without it taken
#    as these keys' (sending goes on above its number).
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
tunnel_test_begin gxr ping python3 timeout

# What a receiver's crash may cost: its margin, a second of the packets it
# accepts, at least TUNNEL_IN_MARGIN_MIN (16, cli/tunnel/tunnel.h). Before each
# crash here the pings come at most 10 a second; twice the floor, for a
# main thread whose second runs late on a loaded host.
MAX_COST=32

up() { # SIDE NS ADDR: the tunnel started, its inner address on $TUN
  tunnel_start $1 $2 || bad "tunnel $1 did not start: $(tail -3 "$T/$1.log")"
  ip -n $2 addr add $3/30 dev $TUN
}
crash() { # SIDE: kill -9, and wait for the exit
  local p
  p=$(eval echo "\$PID_$1")
  kill -KILL $p
  wait $p 2>/dev/null
}
restart() { # SIDE...: each killed (-9), then each started again
  local s
  for s in "$@"; do crash $s; done
  for s in "$@"; do
    case $s in
    a) up a $NA 10.232.0.1 ;;
    b) up b $NB 10.232.0.2 ;;
    esac
  done
}
# pings COUNT GAP: pings from A to B's inner address; prints how many were
# answered
pings() {
  ip netns exec $NA timeout 30 ping -q -c $1 -i $2 -W $(bound 1) 10.232.0.2 2>/dev/null |
    awk '/received/ {print $4}'
}
replays() { # SIDE: its rx_replay, once its status file is new
  local ns=$NA
  [ $1 = b ] && ns=$NB
  status_fresh $1
  tunnel_status $ns $1 rx_replay
}

# 1. The sequence of issue 56, Kuznyechik-MGM.
up a $NA 10.232.0.1
up b $NB 10.232.0.2
got=$(pings 10 0.1)
[ "$got" = 10 ] || bad "before the restarts: $got of 10 pings answered"
# A is the receiver of the replies: its crash costs at most a margin of them
restart a
pings 20 0.1 >/dev/null # 2 s: B's main thread measures its rate after A's jump
rep=$(replays a)
[ "$rep" -le $MAX_COST ] || bad "after A's crash: A's rx_replay $rep (at most $MAX_COST)"
restart b
got=$(pings 40 0.02)
rep=$(replays b)
last=$(pings 5 0.1)
[ "$rep" -le $MAX_COST ] && [ "$got" -ge $((40 - MAX_COST)) ] && [ "$last" = 5 ] &&
  ok "sender restarted, then receiver crashed: $rep of the sender's packets dropped as replays, $got of 40 pings and $last of 5 answered" ||
  bad "receiver crash after a sender restart: rx_replay $rep (at most $MAX_COST), $got of 40 pings answered (at least $((40 - MAX_COST))), then $last of 5"

# 2. A slow link (10 pings a second), Magma-MGM, new keys and state files:
# pings across each kind of restart, started after both ends have measured
# the rate (and, after the first, the other's jump); the last 6 pings all
# answered, at most a margin dropped as replays by each end (A receives the
# replies).
tunnel_stop $PID_a
tunnel_stop $PID_b
rm -f "$T"/a.state "$T"/b.state
TRANSFORM=magma-mgm-ktree
tunnel_pair_confs
up a $NA 10.232.0.1
up b $NB 10.232.0.2
for kind in sender receiver both; do
  ip netns exec $NA timeout 30 ping -c 60 -i 0.1 -W $(bound 1) 10.232.0.2 >"$T/slow.log" 2>&1 &
  pp=$!
  PIDS+=($pp)
  sleep 1.5 # (a window: the restart comes in the middle of the pings)
  # the counters of an end not restarted go on: what they had before
  was_a=$(tunnel_status $NA a rx_replay) was_b=$(tunnel_status $NB b rx_replay)
  case $kind in
  sender) restart a; was_a=0 ;;
  receiver) restart b; was_b=0 ;;
  both) restart a b; was_a=0 was_b=0 ;;
  esac
  wait $pp
  answered=$(grep -cE 'icmp_seq=(5[5-9]|60) ' "$T/slow.log")
  rep_a=$(($(replays a) - was_a)) rep_b=$(($(tunnel_status $NB b rx_replay) - was_b))
  [ $rep_a -le $MAX_COST ] && [ $rep_b -le $MAX_COST ] && [ "$answered" = 6 ] &&
    ok "10 pings a second across a $kind restart: $rep_b requests and $rep_a replies dropped as replays, the last 6 answered" ||
    bad "10 pings a second across a $kind restart: rx_replay $rep_b at B, $rep_a at A (at most $MAX_COST each), $answered of the last 6 answered"
done

# 3. A one-number state file of gostx before 2026-11-26 (no fingerprints).
tunnel_stop $PID_a
echo 5000000 >"$T/a.state"
refused $NA a "a.state: written by an older gostx (no key fingerprints): with --new-keys it cannot tell" \
  "an old one-number state file with --new-keys"
[ "$(cat "$T/a.state")" = 5000000 ] && ok "the old state file left as it was" ||
  bad "the old state file changed: $(cat "$T/a.state")"
: >"$T/a.log"
up a $NA 10.232.0.1 # without --new-keys: the file is there
got=$(pings 3 0.2)
seq=$(tunnel_counters $NA a seq_used)
[ "$got" = 3 ] && [ "$seq" -gt 5000000 ] &&
  grep -q 'written by an older gostx (no key fingerprints): taken as the state of key_out and key_in' "$T/a.log" &&
  ok "without --new-keys the old file taken as these keys' (said), sending above its number: seq_used $seq" ||
  bad "old state file without --new-keys: $got of 3 pings answered, seq_used $seq: $(cat "$T/a.log")"

tunnel_test_end
