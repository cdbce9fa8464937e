#!/usr/bin/env bash
# A gateway's soak, short (issue 81: hundreds of remote users keeping SAs
# with rekeys; bench/gateway_soak.sh is the long one): SOAK_USERS (200)
# users of one process (ike_swarm, tests/net/ike_swarm.c: a lib/ike
# manager each, one address, a port each) in $NB against a `gostx tunnel`
# gateway with a [pool] in $NA, each with a certificate of the test CA,
# its Child SA rekeyed every 3-4 s and its IKE SA every 6-9 s, a ping
# through its Child SA every 2 s. Half of them come first, then the other
# half, and all stay for SOAK_SECONDS (7) more. Checked:
# 1. every user up, a distinct pool address each; rekeys of both kinds
#    at every user's end and counted by the gateway, none failing, every
#    ping answered, every IKE SA deleted at the end, and nothing the
#    gateway logs says a failure;
# 2. the gateway's heap (heap_bytes) grows linearly with its users: its
#    growth over the baseline a user at N/2 and at N users within a factor
#    of 1.25, at most 16 KiB each. Users mid-rekey hold a second SA pair
#    or IKE SA a while, more of them on a loaded machine: sampled every
#    quarter second the growth a user at 200 moved by 3 % (12,075-12,476
#    B); growth that gets worse with the number of users (a table that
#    grows faster than they do, a search that keeps copies) shows as
#    more;
# 3. once all are gone, no user left (remote_users 0, every slot free) and
#    the heap back within 2 KiB of where it stood before them (measured
#    after one user came and went: the tables made once, at the first key
#    exchange, left in the baseline; lib/ike's table of IKE SAs gives back
#    the arrays it grew to once it is empty: until 2026-11-30 it kept them,
#    224 B a user of the peak, 44,800 B after 200);
# 4. the same users again, all at once, up and gone: the heap within 2 KiB
#    of where the first visit left it (the table's arrays big enough
#    already: a byte kept a user would show).
# About 27 s; label scale, not in make asan (net_test_tunnel_gateway_ra
# runs these paths sanitized). Needs root and /dev/net/tun (77 without).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
NA=gxkg$$ NB=gxku$$ VA=gxkv0$$ VB=gxkv1$$
G=${GOSTX:-build/gostx}
SWARM=${SWARM:-$(dirname "$G")/ike_swarm}
USERS=${SOAK_USERS:-200}
HALF=$((USERS / 2))
SECONDS_MORE=${SOAK_SECONDS:-7}
netns_test_begin python3
[ -x "$SWARM" ] || { bad "no $SWARM (built with the tests: cmake --build build)"; finish; }
ip netns exec $NA sysctl -qw net.ipv4.conf.all.rp_filter=0

pool_gateway gxkg$$ 10.200.0.0/22 || { bad "test PKI"; finish; }
# glibc's per-thread cache off: a chunk freed counts as free in heap_bytes
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 tunnel_start gw $NA ||
  { bad "gateway not up: $(tail -3 "$T/gw.log")"; finish; }
ip -n $NA addr add 10.99.0.1/32 dev gxkg$$ && ip -n $NA link set gxkg$$ up &&
  ip -n $NA route add 10.200.0.0/22 dev gxkg$$ src 10.99.0.1 || { bad "the gateway's device"; finish; }

# swarm NAME FIRST COUNT [OPTION...]: COUNT users from FIRST in the
# background (pid SW_NAME), their lines in $T/NAME.out, errors $T/NAME.err
swarm() {
  local name=$1 first=$2 n=$3
  shift 3
  ip netns exec $NB "$SWARM" --users $n --first $first --from 10.231.0.2 --port $((5000 + first)) \
    --gw 10.231.0.1:4500 --ca "$T/ca.pem" --ca-key "$T/ca.key" --gw-cert "$T/gw.pem" \
    --every 0 --rate 50 --hold $(($(bound 3) * 1000)) --bye-ms $(($(bound 5) * 1000)) "$@" \
    >"$T/$name.out" 2>"$T/$name.err" &
  eval "SW_$name=$!"
  PIDS+=($!)
}
# all_up NAME: its "all up" line within the bound (the users come 50 a second)
all_up() {
  for _ in $(seq $(bound $((100 + USERS / 5)))); do
    grep -q '^swarm all up' "$T/$1.out" && return 0
    kill -0 $(eval echo \$SW_$1) 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# swarm_end NAME: TERM, its end line awaited; into END
swarm_end() {
  local p
  p=$(eval echo \$SW_$1)
  kill -TERM $p
  for _ in $(seq $(bound 100)); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
  END=$(grep '^swarm end' "$T/$1.out")
}
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$1"; }
# users_gone: the gateway's remote_users 0 within the bound
users_gone() {
  local n=
  for _ in $(seq $(bound 10)); do
    status_fresh gw
    n=$(tunnel_status $NA gw remote_users)
    [ "$n" = 0 ] && return 0
  done
  return 1
}
heap() { status_fresh gw && tunnel_status $NA gw heap_bytes; }

# the baseline: one user up and gone (the one-time tables made)
slots=$(tunnel_status $NA gw remote_user_slots)
swarm w $((USERS + 10)) 1
all_up w || bad "the first user: $(tail -3 "$T/w.err")"
swarm_end w
users_gone || bad "the first user not gone at the gateway"
h0=$(heap)
[ -n "$h0" ] || { echo "SKIP: no heap_bytes (not glibc)"; exit 77; }

# half, then all; the heap at each
REKEY=(--rekey 3 --ike-rekey 6 --ping 10.99.0.1 --ping-every 2)
swarm a 0 $HALF "${REKEY[@]}"
all_up a || bad "the first $HALF: $(tail -3 "$T/a.err")"
h1=$(heap)
swarm b $HALF $((USERS - HALF)) "${REKEY[@]}"
all_up b || bad "the other $((USERS - HALF)): $(tail -3 "$T/b.err")"
h2=$(heap)
sleep $SECONDS_MORE # SAs kept, rekeyed and pinged through
status_fresh gw
st=$(ip netns exec $NA "$G" tunnel --status -c "$T/gw.conf")
up=$(status_value "$st" remote_users)
rk=$(awk '$1 == "peer" { for (i = 3; i < NF; i++) if ($i == "rekeys" && $(i + 1) > 0) n++ } END { print n + 0 }' <<<"$st")
json=$(ip netns exec $NA "$G" tunnel --status --json -c "$T/gw.conf" | python3 -c '
import json, sys
def once(pairs):  # each name once in an object (RFC 8259 4)
    assert len({k for k, _ in pairs}) == len(pairs), "a name twice"
    return dict(pairs)
j = json.load(sys.stdin, object_pairs_hook=once)
print(j["remote_users"], len({p["id"] for p in j["peers"] if p["keying"] == "ikev2"}))' 2>&1)
swarm_end a
ea=$END
swarm_end b
eb=$END
echo "$ea"
echo "$eb"

# 1. up, distinct, rekeyed, pinged, deleted; nothing failed
[ "$up" = $USERS ] && [ "$json" = "$USERS $USERS" ] &&
  ok "the gateway held $USERS users at once (--status --json: each its own ID)" ||
  bad "remote_users $up of $USERS; --status --json: $json"
sum() { echo $(($(field "$ea" $1) + $(field "$eb" $1))); }
[ "$(sum up)" = $USERS ] && [ "$(sum deleted)" = $USERS ] &&
  ok "every user up to the end and its IKE SA deleted" || bad "up $(sum up), deleted $(sum deleted) of $USERS"
# the two swarms' addresses: distinct within each, and none shared (the
# gateway's status, read while all were up, lists each user's inner address)
inner=$(awk '$1 == "peer" { for (i = 3; i < NF; i++) if ($i == "inner") print $(i + 1) }' <<<"$st" | sort -u | grep -c '^10\.200\.')
[ "$(field "$ea" distinct)" = $HALF ] && [ "$inner" = $USERS ] &&
  ok "$USERS distinct pool addresses" || bad "distinct: swarm a $(field "$ea" distinct), gateway $inner"
cr=$(sum child_rekeys) ir=$(sum ike_rekeys)
[ "$cr" -ge $USERS ] && [ "$ir" -ge $HALF ] && [ "$rk" -ge $HALF ] &&
  ok "$cr Child SA and $ir IKE SA rekeys; the gateway counted rekeys of $rk users" ||
  bad "rekeys: $cr Child SA, $ir IKE SA (swarms), $rk users (gateway)"
[ "$(sum failures)" = 0 ] && ok "no failure at the users' end" ||
  bad "failures at the users' end: $(head -5 "$T/a.err" "$T/b.err")"
[ "$(sum pings)" -ge $USERS ] && [ "$(sum lost)" = 0 ] &&
  ok "$(sum pings) pings through the Child SAs, $(sum answered) answered, none lost" ||
  bad "pings $(sum pings), answered $(sum answered), lost $(sum lost)"
if grep -E 'failed|refused|could not|cannot|dropped|INVALID|warning|did not answer' "$T/gw.log" |
  grep -v -e 'COOKIE' -e 'deleted by the peer: dropped, waiting for the peer' | head -5 | grep .; then
  bad "the gateway logged failures (above)"
else
  ok "nothing the gateway logged says a failure"
fi

# 2. linear growth
perA=$(((h1 - h0) / HALF)) perB=$(((h2 - h0) / USERS))
awk -v a=$perA -v b=$perB 'BEGIN { r = a > b ? a / b : b / a; exit !(a > 0 && b > 0 && r <= 1.25) }' &&
  [ $perA -le 16384 ] && [ $perB -le 16384 ] &&
  ok "the gateway's heap: $h0 B, $h1 B with $HALF users, $h2 B with $USERS: $perA and $perB B a user over $h0" ||
  bad "the gateway's heap not linear: $h0, $h1, $h2 B: $perA and $perB B a user"

# 3. all gone: the slots free, the heap back
users_gone && [ "$(tunnel_status $NA gw remote_user_slots)" = "$slots" ] &&
  ! ip netns exec $NA "$G" tunnel --status -c "$T/gw.conf" | grep -q '^peer ' &&
  ok "every user gone: remote_users 0, $slots slots free, no peer line" ||
  bad "users left: $(tunnel_status $NA gw remote_users)"
h3=$(heap)
[ $((h3 - h0)) -le 2048 ] && [ $((h0 - h3)) -le 2048 ] && ok "the heap back: $h3 B (baseline $h0 B)" ||
  bad "the heap not back: $h3 B (baseline $h0 B: $((h3 - h0)) B more)"
# 4. the same users again, all at once and gone: not a byte more
swarm c 0 $USERS --rate 100
all_up c || bad "the users' second visit: $(tail -3 "$T/c.err")"
swarm_end c
[ "$(field "$END" up)" = $USERS ] && [ "$(field "$END" failures)" = 0 ] && users_gone ||
  bad "the second visit: $END; remote_users $(tunnel_status $NA gw remote_users)"
h4=$(heap)
[ $((h4 - h3)) -le 2048 ] && [ $((h3 - h4)) -le 2048 ] &&
  ok "$USERS users again, up and gone: the heap at $h4 B (after the first $h3 B)" ||
  bad "the heap after a second visit: $h4 B (after the first $h3 B: $((h4 - h3)) B more)"
tunnel_stop $PID_gw
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/*.log "$T"/*.err; then
  bad "sanitizer reports (above)"
fi
finish
