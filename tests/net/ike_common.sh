# Sourced by the tests/net/test_tunnel_ike*.sh after netns.sh: configs
# with keying = ikev2 and a pair of tunnels started, up and stopped together.
# ike_conf NAME LOCAL PEER INITIATE [SETTING...]: $T/NAME.conf with keying = ikev2
ike_conf() {
  local name=$1 l=$2 p=$3 init=$4
  shift 4
  {
    printf '%s\n' "local = $l:4500" "peer = $p:4500" "tun = $TUN" "threads = 1" \
      "keying = ikev2" "state = $T/$name.state" "ike_initiate = $init" "$@"
  } >"$T/$name.conf"
}
psk_confs() { # PSK_OF_B [REMOTE_ID_OF_B]
  ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" \
    "local_id = a.gostx.test" "remote_id = b.gostx.test"
  ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/$1" \
    "local_id = b.gostx.test" "remote_id = ${2:-a.gostx.test}"
}
# both_start: both tunnels in the background (b first), logs $T/SIDE.log
# new, pids PID_a and PID_b
both_start() {
  local s ns
  for s in b a; do
    ns=$NB
    [ $s = a ] && ns=$NA
    rm -f "$T/$s.log"
    ip netns exec $ns "$G" tunnel -c "$T/$s.conf" 2>"$T/$s.log" </dev/null >/dev/null &
    eval "PID_$s=$!"
    PIDS+=($!)
  done
}
# both_up: within 5 s both "up" lines (1), else 0
both_up() {
  for _ in $(seq $(bound 500)); do
    grep -q ' up, ' "$T/a.log" 2>/dev/null && grep -q ' up, ' "$T/b.log" 2>/dev/null && return 0
    sleep 0.01
  done
  return 1
}
both_stop() { # (a side the test stopped already is passed over)
  tunnel_stop $PID_a 2>/dev/null
  tunnel_stop $PID_b 2>/dev/null
  if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/a.log "$T"/b.log; then
    bad "sanitizer reports (above)"
  fi
}

# ike_stream FROM_NS TO_NS TO_ADDR OUT COUNT SIZE GAP: COUNT numbered
# datagrams of SIZE bytes, one every GAP seconds, to TO_ADDR port 5002 in
# the background (the pids to wait for added to WAIT); xfer.py udprecv's
# line into OUT
ike_stream() {
  local secs=$(python3 -c "print(int($5 * $7) + 30)")
  rm -f "$4.ready" # an earlier stream's: the sender would not wait for this receiver
  ip netns exec $2 timeout $secs python3 "$HERE/xfer.py" udprecv $3 5002 $5 $6 "$4.ready" >"$4" &
  PIDS+=($!)
  for _ in $(seq $(bound 150)); do [ -e "$4.ready" ] && break; sleep 0.1; done
  XFER_GAP=$7 ip netns exec $1 timeout $secs python3 "$HERE/xfer.py" udpsend $3 5002 $5 $6 &
  PIDS+=($!)
  WAIT+=($! ${PIDS[-2]})
}
# logged SIDE PATTERN: within 3 s SIDE's log has PATTERN (0), else 1
logged() {
  for _ in $(seq $(bound 300)); do
    grep -q -- "$2" "$T/$1.log" 2>/dev/null && return 0
    sleep 0.01
  done
  return 1
}
# crl_of INDEX OUT [CERT]: the CA's CRL (over its index INDEX, CERT
# revoked in it first for keyCompromise) into OUT, written whole before it
# is renamed there (a reload never reads half of it)
crl_of() {
  [ -z "${3:-}" ] || "$G" ca -revoke "$3" -cert "$T/ca.pem" -index "$1" -crl_reason keyCompromise &&
    "$G" ca -gencrl -cert "$T/ca.pem" -keyfile "$T/ca.key" -index "$1" -out "$2.new" && mv "$2.new" "$2"
}
serial_of() { awk -F'\t' -v n="/C=RU/O=gostx test/CN=$2" '$6 == n {print $4}' "$1"; }
# streams_ok WHAT COUNT DIR...: each DIR's stream ($T/DIR.out, ike_stream)
# received whole: COUNT datagrams, each once, intact
streams_ok() {
  local what=$1 n=$2 d got
  shift 2
  for d in "$@"; do
    got=$(echo $(cat "$T/$d.out"))
    [ "$got" = "received $n distinct $n bad 0" ] &&
      ok "$d: $n datagrams $what: each received once, intact" ||
      bad "$d: $what: ${got:0:300}"
  done
}
# rekeys_logged CHILD IKE: each side logged at least CHILD Child SA and
# IKE IKE SA rekeys
rekeys_logged() {
  local s c i
  for s in a b; do
    c=$(grep -c 'Child SA rekeyed' "$T/$s.log")
    i=$(grep -c 'IKE SA rekeyed' "$T/$s.log")
    [ "$c" -ge $1 ] && [ "$i" -ge $2 ] && ok "$s: $c Child SA and $i IKE SA rekeys logged" ||
      bad "$s: $c Child SA rekeys, $i IKE SA rekeys: $(grep ike: "$T/$s.log" | tail -5)"
  done
}
# psk_pair A_SETTING... -- B_SETTING...: a new PSK ($T/psk) and the PSK
# configs of a (initiating) and b with these settings added
psk_pair() {
  local as=()
  while [ "$1" != -- ]; do as+=("$1"); shift; done
  shift
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
  chmod 600 "$T/psk"
  ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" \
    "local_id = a.gostx.test" "remote_id = b.gostx.test" "${as[@]}"
  ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" \
    "local_id = b.gostx.test" "remote_id = a.gostx.test" "$@"
}
# pair_up: both started and up (else FAIL, finish), the inner addresses
# 10.232.0.1 and .2 on their TUN devices
pair_up() {
  both_start
  both_up || { bad "not up: a: $(tail -3 "$T/a.log") b: $(tail -3 "$T/b.log")"; finish; }
  ip -n $NA addr add 10.232.0.1/30 dev $TUN
  ip -n $NB addr add 10.232.0.2/30 dev $TUN
}
# capture_init FILE: the IKE_SA_INIT request a's tunnel ($T/a.conf) sends
# at its start, caught on b's port 500 (nothing listening there but the
# catcher) into FILE; a stopped after. 1 when none came within 5 s.
capture_init() {
  rm -f "$1" "$T/cap.ready"
  ip netns exec $NB timeout 5 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.231.0.2", 500))
open(sys.argv[2], "w").close()
open(sys.argv[1], "wb").write(s.recvfrom(65535)[0])' "$1" "$T/cap.ready" &
  local cap=$!
  for _ in $(seq $(bound 100)); do [ -e "$T/cap.ready" ] && break; sleep 0.05; done
  ip netns exec $NA "$G" tunnel -c "$T/a.conf" 2>/dev/null </dev/null >/dev/null &
  local apid=$!
  wait $cap
  tunnel_stop $apid
  [ -s "$1" ]
}
# replay_init FILE N: FILE (an IKE_SA_INIT request) sent N times from a's
# namespace to b's port 500, each under a new SPIi, 5 ms apart
replay_init() {
  ip netns exec $NA python3 -c '
import os, socket, sys, time
m = open(sys.argv[1], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[2])):
    s.sendto(os.urandom(8) + m[8:], ("10.231.0.2", 500))
    time.sleep(0.005)' "$1" "$2"
}
# pki NAME CURVE SUBJ ISSUER [VALIDITY...]: $T/NAME.key and $T/NAME.pem, a
# key of CURVE and its certificate, self-signed (ISSUER self: a CA) or
# issued by $T/ISSUER's (x509 -req's options; -days 2)
pki() {
  local validity=("${@:5}")
  [ ${#validity[@]} = 0 ] && validity=(-days 2)
  "$G" genpkey -c $2 -o "$T/$1.key" || return 1
  if [ "$4" = self ]; then
    "$G" req -x509 -ca -key "$T/$1.key" -subj "$3" -days 2 -out "$T/$1.pem"
  else
    "$G" req -new -key "$T/$1.key" -subj "$3" -out "$T/$1.csr" &&
      "$G" x509 -req -in "$T/$1.csr" -CA "$T/$4.pem" -CAkey "$T/$4.key" "${validity[@]}" -out "$T/$1.pem"
  fi
}
# gw_conf_head TUN: the head of a gateway's config: port 4500 on TUN, one
# worker, its state file $T/gw.state
gw_conf_head() {
  printf 'local = 0.0.0.0:4500\ntun = %s\nstate = %s\nthreads = 1\n\n' "$1" "$T/gw.state"
}
# pool_gateway TUN POOL: the test CA ($T/ca.*) and the gateway's certificate
# ($T/gw.*), and $T/gw.conf: a gateway on TUN (port 4500, one worker) whose
# [pool users] hands out POOL's addresses to CN=*.users.gostx.test
pool_gateway() {
  pki ca 256A "/C=RU/O=gostx test/CN=test CA" self && pki gw 256A "/C=RU/O=gostx test/CN=gw" ca ||
    return 1
  gw_conf_head "$1" >"$T/gw.conf"
  cat >>"$T/gw.conf" <<EOC
[pool users]
pool = $2
remote_id = CN=*.users.gostx.test
cert = $T/gw.pem
key = $T/gw.key
ca = $T/ca.pem
EOC
}
