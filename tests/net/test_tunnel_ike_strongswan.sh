#!/usr/bin/env bash
# gostx tunnel's IKEv2 against strongSwan (Debian's 5.9.8: charon-cmd and
# charon), an implementation we did not write. strongSwan has no GOST
# transform (it prints RFC 9385's by number), so no IKE SA can come up
# between the two; what this checks is each side's IKE_SA_INIT read by the
# other's parser, and the refusals and COOKIEs that follow:
# 1. charon-cmd initiating to gostx (b): its IKE_SA_INIT (38 transforms in
#    its first proposal; NAT detection, fragmentation, hash algorithms and
#    redirect notifies) answered NO_PROPOSAL_CHOSEN, which charon-cmd reads
#    ("received NO_PROPOSAL_CHOSEN notify error"); b logs why, keeps
#    nothing. (gostx answered INVALID_SYNTAX here until 2026-11-28: its SA
#    reader refused proposals of more than 16 transforms.)
# 2. the same with 2 IKE SAs half open at b (a's captured IKE_SA_INIT
#    replayed under new SPIs): b asks charon-cmd for a COOKIE, charon-cmd
#    sends its IKE_SA_INIT again with it, b takes it (no second COOKIE) and
#    answers NO_PROPOSAL_CHOSEN.
# 3. gostx (a) initiating to charon: charon parses a's IKE_SA_INIT (SA KE
#    No and the NAT and fragmentation notifies), lists a's proposal by
#    RFC 9385's numbers (ENCR 32, 33, PRF 9, KE 34, 33) and answers
#    NO_PROPOSAL_CHOSEN, which a logs (unprotected: noted, RFC 7296 2.21.1).
# 4. charon with cookie_threshold = 2 and 2 IKE SAs half open (crafted
#    AES/MODP-2048 IKE_SA_INITs it accepts, from a's address): charon asks a
#    for a COOKIE, a sends IKE_SA_INIT again with it, charon verifies it
#    and answers NO_PROPOSAL_CHOSEN.
# Needs root, /dev/net/tun (exit 77, skipped, without them), charon-cmd,
# charon (strongswan-charon), swanctl, unshare and openssl. charon runs with
# a configuration and a /run of its own: nothing of the system's strongSwan
# is read or touched, and one running beside it is no obstacle.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxw python3 timeout charon-cmd swanctl openssl unshare
CHARON=${CHARON:-/usr/lib/ipsec/charon}
[ -x "$CHARON" ] || { bad "no $CHARON (strongswan-charon)"; finish; }
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
chmod 600 "$T/psk"
psk_confs psk
# charon-cmd's ikev2-pub profile wants a key and certificate before it
# starts; IKE_SA_INIT carries neither
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/rsa.key" -out "$T/rsa.pem" \
  -subj "/CN=a.gostx.test" -days 2 2>/dev/null || { bad "openssl: an RSA certificate"; finish; }

b_start() {
  rm -f "$T/b.log"
  ip netns exec $NB "$G" tunnel -c "$T/b.conf" 2>"$T/b.log" </dev/null >/dev/null &
  PID_b=$!
  PIDS+=($PID_b)
  for _ in $(seq $(bound 100)); do grep -q listening "$T/b.log" 2>/dev/null && break; sleep 0.05; done
}
# charon_cmd OUT: charon-cmd from a's namespace to b, its log into OUT
charon_cmd() {
  ip netns exec $NA timeout 10 charon-cmd --debug 1 --host 10.231.0.2 \
    --identity a.gostx.test --remote-identity b.gostx.test --profile ikev2-pub \
    --cert "$T/rsa.pem" --rsa "$T/rsa.key" >"$1" 2>&1
}
# no_sa SIDE: SIDE logged no IKE SA up and no Child SA
no_sa() {
  ! grep -q ' up, \|Child SA' "$T/$1.log"
}

# 1. charon-cmd to gostx
b_start
charon_cmd "$T/cc1.out"
if grep -q 'parsed IKE_SA_INIT response 0 \[ N(NO_PROP) \]' "$T/cc1.out" &&
  grep -q 'received NO_PROPOSAL_CHOSEN notify error' "$T/cc1.out" &&
  grep -q 'failed (responder): NO_PROPOSAL_CHOSEN: no proposal of the peer.s is ours' "$T/b.log" &&
  no_sa b; then
  ok "charon-cmd's IKE_SA_INIT ($(grep -o 'generating IKE_SA_INIT request 0 \[.*\]' "$T/cc1.out" |
    sed 's/generating IKE_SA_INIT request 0 //')): NO_PROPOSAL_CHOSEN, read by charon-cmd; b: $(
    grep -m1 'failed (responder)' "$T/b.log" | sed 's/.*ike: //')"
else
  bad "charon-cmd to gostx: charon-cmd: $(grep -v 'LIB\]' "$T/cc1.out" | tail -6) b: $(cat "$T/b.log")"
fi
tunnel_stop $PID_b

# 2. the same, b asking for a COOKIE: a's own IKE_SA_INIT captured (as
# test_tunnel_ike.sh's flood does) and replayed twice under new SPIs
capture_init "$T/init.bin" || bad "no IKE_SA_INIT of a's captured"
b_start
replay_init "$T/init.bin" 2
sleep 0.3 # (no wait needed: b reads its one IKE socket in order, the replays ahead)
charon_cmd "$T/cc2.out"
if [ "$(grep -c 'COOKIE asked' "$T/b.log")" = 1 ] &&
  grep -q 'parsed IKE_SA_INIT response 0 \[ N(COOKIE) \]' "$T/cc2.out" &&
  grep -q 'received NO_PROPOSAL_CHOSEN notify error' "$T/cc2.out" &&
  grep -q 'failed (responder): NO_PROPOSAL_CHOSEN' "$T/b.log"; then
  ok "b asked charon-cmd for a COOKIE ($(grep -m1 'COOKIE asked' "$T/b.log" | sed 's/.*ike: //'));" \
    "charon-cmd came again with it and was answered NO_PROPOSAL_CHOSEN"
else
  bad "COOKIE to charon-cmd: charon-cmd: $(grep -v 'LIB\]' "$T/cc2.out" | tail -8) b: $(cat "$T/b.log")"
fi
tunnel_stop $PID_b

# 3. and 4. charon as b's peer, in b's namespace, with a configuration of
# its own (STRONGSWAN_CONF: no file of the system's is read or written)
# charon_start COOKIE_THRESHOLD
charon_start() {
  mkdir -p "$T/sw"
  rm -f "$T/sw/charon.log" "$T/sw/charon.vici"
  cat >"$T/sw/strongswan.conf" <<EOF
charon {
  load_modular = yes
  plugins {
    include /etc/strongswan.d/charon/*.conf
    vici {
      socket = unix://$T/sw/charon.vici
    }
  }
  filelog {
    test {
      path = $T/sw/charon.log
      flush_line = yes
      default = 1
      ike = 2
      cfg = 2
    }
  }
  cookie_threshold = $1
  install_routes = no
}
EOF
  cat >"$T/sw/swanctl.conf" <<EOF
connections {
  gw {
    version = 2
    proposals = aes256-sha256-modp2048
    local {
      auth = psk
      id = b.gostx.test
    }
    remote {
      auth = psk
      id = a.gostx.test
    }
    children {
      net {
        esp_proposals = aes256gcm16
      }
    }
  }
}
EOF
  # /run of its own: its pid file and stroke socket live there, and a
  # system charon (strongswan-starter's service) holds /run/charon.pid
  STRONGSWAN_CONF=$T/sw/strongswan.conf ip netns exec $NB unshare --mount --propagation private \
    sh -c 'mount -t tmpfs gxw-run /run && exec "$0"' "$CHARON" >"$T/sw/charon.out" 2>&1 &
  CHARON_PID=$!
  PIDS+=($CHARON_PID)
  for _ in $(seq $(bound 100)); do [ -S "$T/sw/charon.vici" ] && break; sleep 0.05; done
  STRONGSWAN_CONF=$T/sw/strongswan.conf swanctl --load-all --uri "unix://$T/sw/charon.vici" \
    --file "$T/sw/swanctl.conf" >"$T/sw/swanctl.out" 2>&1
}
charon_stop() {
  kill $CHARON_PID 2>/dev/null
  wait $CHARON_PID 2>/dev/null
}
# a_against PATTERN: a started, within 5 s its log has PATTERN; stopped
a_against() {
  rm -f "$T/a.log"
  ip netns exec $NA "$G" tunnel -c "$T/a.conf" 2>"$T/a.log" </dev/null >/dev/null &
  PID_a=$!
  PIDS+=($PID_a)
  local found=1
  for _ in $(seq $(bound 100)); do grep -q -- "$1" "$T/a.log" 2>/dev/null && { found=0; break; }; sleep 0.05; done
  tunnel_stop $PID_a
  return $found
}

# 3. gostx to charon
if charon_start 30; then
  if a_against 'IKE_SA_INIT answered NO_PROPOSAL_CHOSEN' &&
    grep -q 'parsed IKE_SA_INIT request 0 \[ SA KE No N(NATD_S_IP) N(NATD_D_IP) N(FRAG_SUP) \]' "$T/sw/charon.log" &&
    grep -q 'received proposals: IKE:(32)/(33)/(9)/(34)/(33)$' "$T/sw/charon.log" &&
    no_sa a; then
    ok "charon parsed a's IKE_SA_INIT: $(grep -m1 'received proposals' "$T/sw/charon.log" |
      sed 's/.*received/received/'); a: $(grep -m1 'answered NO_PROP' "$T/a.log" | sed 's/.*ike: //')"
  else
    bad "gostx to charon: a: $(cat "$T/a.log") charon: $(grep -v 'LIB\]' "$T/sw/charon.log" | tail -8)"
  fi
  charon_stop
else
  bad "charon did not start: $(tail -n 3 "$T/sw/charon.out" "$T/sw/swanctl.out")"
fi

# 4. charon asking a for a COOKIE: two IKE SAs half open at charon first,
# from IKE_SA_INITs it accepts (AES-CBC-256, HMAC-SHA2-256, MODP-2048 with a
# real g^x), sent from a's address
modp_init() {
  ip netns exec $NA python3 - <<'EOF'
import os, socket, struct
from gostx_test_time import bound
# RFC 3526 group 14: the 2048-bit MODP prime, generator 2
P = int("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
        "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
        "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
        "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
        "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
        "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)
def tr(last, t, i, attrs=b""):
    return struct.pack("!BBHBBH", 0 if last else 3, 0, 8 + len(attrs), t, 0, i) + attrs
def pl(nxt, body):
    return struct.pack("!BBH", nxt, 0, 4 + len(body)) + body
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.231.0.1", 0))
for _ in range(2):
    ts = (tr(0, 1, 12, struct.pack("!HH", 0x800E, 256)) + tr(0, 3, 12) + tr(0, 2, 5)
          + tr(1, 4, 14))  # AES-CBC 256, HMAC-SHA2-256-128, PRF-HMAC-SHA2-256, MODP 2048
    prop = struct.pack("!BBHBBBB", 0, 0, 8 + len(ts), 1, 1, 0, 4) + ts
    ke = pow(2, int.from_bytes(os.urandom(32), "big"), P).to_bytes(256, "big")
    body = pl(34, prop) + pl(40, struct.pack("!HH", 14, 0) + ke) + pl(0, os.urandom(32))
    m = os.urandom(8) + bytes(8) + struct.pack("!BBBBII", 33, 0x20, 34, 0x08, 0, 28 + len(body)) + body
    s.sendto(m, ("10.231.0.2", 500))
    s.settimeout(bound(3))
    r = s.recv(65535)
    print("answered" if r[16] == 33 else "notify")  # SA first: accepted, half open
EOF
}
if charon_start 2; then
  half=$(echo $(modp_init))
  if [ "$half" = "answered answered" ] &&
    a_against 'IKE_SA_INIT answered NO_PROPOSAL_CHOSEN' &&
    grep -q 'the peer asks for a COOKIE' "$T/a.log" &&
    grep -q 'generating IKE_SA_INIT response 0 \[ N(COOKIE) \]' "$T/sw/charon.log" &&
    grep -q 'parsed IKE_SA_INIT request 0 \[ N(COOKIE) SA KE No' "$T/sw/charon.log" &&
    grep -q 'received proposals: IKE:(32)/(33)/(9)/(34)/(33)$' "$T/sw/charon.log"; then
    ok "charon (2 half open) asked a for a COOKIE; a came again with it, charon took it: $(
      grep -m1 'parsed IKE_SA_INIT request 0 \[ N(COOKIE)' "$T/sw/charon.log" | sed 's/.*parsed/parsed/')"
  else
    bad "COOKIE from charon: half-open: $half; a: $(cat "$T/a.log") charon: $(
      grep -v "LIB\]" "$T/sw/charon.log" | grep -i "cookie\|IKE_SA_INIT\|proposal\|half" | tail -20)"
  fi
  charon_stop
else
  bad "charon did not start: $(tail -n 3 "$T/sw/charon.out" "$T/sw/swanctl.out")"
fi
finish
