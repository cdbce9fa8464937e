#!/usr/bin/env bash
# gostx tunnel with keying = ikev2, the SA lifetimes (docs/TUNNEL.md,
# "Keying with IKEv2"), PSK, a initiating:
# 1. the soak of issue 59: a rekeys the Child SA every 2 s
#    (rekey_seconds) and the IKE SA every 10 s (ike_rekey_seconds; b's
#    timers an hour and never: one initiator of rekeys, the crossing ones
#    are another test's) while numbered UDP datagrams go each way, one each
#    5 ms for 60 s: each arrives once, intact; about 30 Child and 6 IKE SA
#    rekeys logged on each side; --status shows the next rekeys, the
#    Child SA's age and bytes;
# 2. b stopped (SIGTERM): it deletes the IKE SA (INFORMATIONAL Delete,
#    answered) and exits within 2 s; a logs "deleted by the peer" and
#    starts a new IKE SA;
# 3. what an SA carried: a with rekey_bytes = 200000 sends 600 datagrams of
#    1000 bytes (a rekey logged for the bytes about every 195); b with
#    limit = 400 (its SA's last sequence number) sends 600 datagrams: the
#    Child SA is rekeyed at half its numbers, before the data path's hard
#    stop would drop the rest. 0 lost either way; ike_age still counts from
#    the IKE SA's keys. Then a stopped while b is frozen: its Delete
#    unanswered, a gone after 1 s.
# About 70 s. Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxs python3 timeout
# is_int VALUE: a non-negative decimal number
is_int() { [[ $1 =~ ^[0-9]+$ ]]; }

# 1. the soak
psk_pair "rekey_seconds = 2" "ike_rekey_seconds = 10" -- \
  "rekey_seconds = 3600" "ike_rekey_seconds = 0"
pair_up
N=12000
WAIT=()
ike_stream $NA $NB 10.232.0.2 "$T/ab.out" $N 64 0.005
ike_stream $NB $NA 10.232.0.1 "$T/ba.out" $N 64 0.005
# --status in the middle of it: a's next rekeys within their periods, the
# Child SA younger than its period and carrying the stream; b's timers
# (an hour, never). Each side's values from one read; a read just after a
# Child SA rekey shows the new SA before it carried anything (child_age 0,
# no bytes), so a's is read again, within a bound, until its SA carried
# bytes both ways (the checks stay as they are).
sleep 20
reads=0
for _ in $(seq $(bound 10)); do
  reads=$((reads + 1))
  st=$(ip netns exec $NA "$G" tunnel --status -c "$T/a.conf")
  cbi=$(status_value "$st" child_bytes_in) cbo=$(status_value "$st" child_bytes_out)
  is_int "$cbi" && is_int "$cbo" && [ "$cbi" -gt 0 ] && [ "$cbo" -gt 0 ] && break
  sleep 0.3
done
cn=$(status_value "$st" child_next_rekey) in=$(status_value "$st" ike_next_rekey)
ca=$(status_value "$st" child_age)
st=$(ip netns exec $NB "$G" tunnel --status -c "$T/b.conf")
bin=$(status_value "$st" ike_next_rekey) bcn=$(status_value "$st" child_next_rekey)
is_int "$cn" && [ "$cn" -le 2 ] && is_int "$in" && [ "$in" -le 10 ] && is_int "$ca" &&
  [ "$ca" -le 3 ] && is_int "$cbo" && [ "$cbo" -gt 0 ] && is_int "$cbi" && [ "$cbi" -gt 0 ] &&
  [ "$bin" = never ] && is_int "$bcn" && [ "$bcn" -gt 3000 ] &&
  ok "--status ($reads reads of a): a's next Child SA rekey in $cn s, IKE SA in $in s, Child SA $ca s old with $cbi bytes in, $cbo out; b's next rekeys: Child $bcn s, IKE $bin" ||
  bad "--status ($reads reads of a): a child_next_rekey '$cn' ike_next_rekey '$in' child_age '$ca' child_bytes_in '$cbi' child_bytes_out '$cbo'; b ike_next_rekey '$bin' child_next_rekey '$bcn'"
wait "${WAIT[@]}"
streams_ok "over 60 s of rekeys" $N ab ba
rekeys_logged 25 5

# 2. b stopped: its Delete of the IKE SA, answered; a drops the SA and starts anew
t0=$(date +%s%N)
tunnel_stop $PID_b
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q 'deleted: dropped (shutdown)' "$T/b.log" && [ $ms -le $(bound 2000) ] &&
  ok "b stopped in $ms ms, its Delete of the IKE SA answered" ||
  bad "b stopped in $ms ms: $(tail -2 "$T/b.log")"
for _ in $(seq $(bound 20)); do [ "$(grep -c 'IKE_SA_INIT to' "$T/a.log")" -ge 2 ] && break; sleep 0.1; done
grep -q 'deleted by the peer: dropped, a new one started' "$T/a.log" &&
  [ "$(grep -c 'IKE_SA_INIT to' "$T/a.log")" -ge 2 ] &&
  ok "a: $(grep -o 'IKE SA with .* deleted by the peer.*' "$T/a.log"), its new IKE_SA_INIT out" ||
  bad "a did not see b's Delete: $(tail -2 "$T/a.log")"
tunnel_stop $PID_a
cat "$T/a.log" "$T/b.log" >"$T/soak.log" # both_stop looks for sanitizer reports there

# 3. rekeys for what the SA carried: a's bytes, b's sequence numbers
psk_pair "rekey_seconds = 3600" "rekey_bytes = 200000" -- "rekey_seconds = 3600" "limit = 400"
pair_up
WAIT=()
ike_stream $NA $NB 10.232.0.2 "$T/ab.out" 600 1000 0.002
wait "${WAIT[@]}"
WAIT=()
ike_stream $NB $NA 10.232.0.1 "$T/ba.out" 600 64 0.005
wait "${WAIT[@]}"
streams_ok "under rekey_bytes (a) and a 400-packet SA (b)" 600 ab ba
# ike_age counts from the IKE SA's keys, not from the last Child SA rekey
ia=$(tunnel_status $NB b ike_age) ca=$(tunnel_status $NB b child_age)
is_int "$ia" && is_int "$ca" && [ "$ia" -gt "$ca" ] &&
  ok "b: the IKE SA $ia s old, its Child SA $ca s" || bad "b: ike_age '$ia', child_age '$ca'"
c=$(grep -c 'Child SA rekey started: .* bytes under it (rekey_bytes 200000)' "$T/a.log")
[ "$c" -ge 2 ] && ok "a: $c Child SA rekeys for rekey_bytes" ||
  bad "a: $c Child SA rekeys for bytes: $(grep ike: "$T/a.log" | tail -3)"
c=$(grep -c 'Child SA rekey started: .* packets sealed under it (half of its last sequence number 400)' "$T/b.log")
[ "$c" -ge 2 ] && ! grep -q 'reached its last sequence number' "$T/b.log" &&
  ok "b: $c Child SA rekeys at half its sequence numbers, none used up" ||
  bad "b: $c Child SA rekeys for packets: $(grep -E 'ike:|sequence' "$T/b.log" | tail -3)"
# a stopped while b cannot answer (SIGSTOP): a gives its Delete 1 s, no
# more (the least never scales; the most, 2.5 s, with the load)
kill -STOP $PID_b
t0=$(date +%s%N)
tunnel_stop $PID_a
ms=$((($(date +%s%N) - t0) / 1000000))
kill -CONT $PID_b
grep -q 'no answer to our Delete in 1000 ms at shutdown' "$T/a.log" && [ $ms -ge 900 ] &&
  [ $ms -le $(bound 2500) ] && ok "a stopped in $ms ms with its Delete unanswered" ||
  bad "a stopped in $ms ms: $(tail -2 "$T/a.log")"
cat "$T/soak.log" >>"$T/a.log"
both_stop
finish
