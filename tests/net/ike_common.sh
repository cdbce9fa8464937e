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
  for _ in $(seq 500); do
    grep -q ' up, ' "$T/a.log" 2>/dev/null && grep -q ' up, ' "$T/b.log" 2>/dev/null && return 0
    sleep 0.01
  done
  return 1
}
both_stop() {
  tunnel_stop $PID_a
  tunnel_stop $PID_b
  if grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$T"/a.log "$T"/b.log; then
    bad "sanitizer reports (above)"
  fi
}

