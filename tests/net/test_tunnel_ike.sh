#!/usr/bin/env bash
# gostx tunnel with keying = ikev2 (docs/TUNNEL.md, "Keying with IKEv2"),
# gostx to gostx in two network namespaces:
# 1. PSK, Kuznyechik-MGM (the default offer, 512-bit KE), a initiating: the
#    tunnel up from nothing within 1 s (both "up" lines, measured and
#    printed), 300 numbered UDP datagrams through it, --status showing the
#    IKE SA and the Child SA on both sides, their SPIs crossed; started
#    without a state file (nor --new-keys), and none written;
# 2. certificates from a test CA made here with gostx (a 256-bit and a
#    512-bit end entity, DN IDs as strongSwan writes them), Magma-MGM with
#    the 256-bit KE, both sides initiating at once (one SA kept): the same;
#    then the same again with a's key on gostx's PKCS#11 token (key = a
#    pkcs11: URI, its PIN from a file), signed through C_Sign;
# 3. a responder started 1 s after the initiator: up by retransmission;
#    a flood of IKE_SA_INIT: COOKIEs asked from 2 half-open IKE SAs on,
#    nothing kept for them, the real peer connecting through it (IP
#    IDs, local_id's default);
# 4. refusals, nothing installed (no "up", no Child SA in --status) and a
#    log line naming why: a wrong PSK, a certificate from another CA, an
#    expired certificate, a wrong remote_id (PSK and certificates), an ID
#    the peer's certificate does not name;
# 5. revocation (crl lines, revocation = require by default with them): a
#    pair whose CRLs revoke neither is up; a CRL revoking b put in a's crl
#    folder and a SIGHUP'd: a's reload logged, the IKE SA up with b deleted
#    at once (the line naming b's serial and the reason; b told by the
#    Delete; a's --status with no SA left to seal or open with), and b's
#    next IKE SA refused the same way; b with a crl file revoking a
#    refuses a, the responder, the same way;
# 6. crafted IKE_SA_INITs (ike_init.py): a proposal without a GOST
#    transform (NO_PROPOSAL_CHOSEN), a KE off the curve and one of small
#    order (INVALID_SYNTAX), a payload of unknown type with the critical
#    bit (UNSUPPORTED_CRITICAL_PAYLOAD), answered unencrypted, logged,
#    nothing kept; one whose SPIi is zero dropped unanswered.
# Needs root and /dev/net/tun (exit 77, skipped, without them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"
. "$HERE/ike_common.sh"
tunnel_test_begin gxi python3 timeout

# The test PKI: a CA, a (256) and b (512) issued by it, a "b" of it that
# expired in 2021 (xb), and a rogue CA of the same name with its own "b" (rb)
pki ca 512C "/C=RU/O=gostx test/CN=test CA" self &&
  pki a 256A "/C=RU/O=gostx test/CN=a" ca && pki b 512A "/C=RU/O=gostx test/CN=b" ca &&
  pki xb 512A "/C=RU/O=gostx test/CN=b" ca -not_before 20200101000000Z -not_after 20210101000000Z &&
  pki rogue 512C "/C=RU/O=gostx test/CN=test CA" self &&
  pki rb 512A "/C=RU/O=gostx test/CN=b" rogue || { bad "test PKI"; finish; }
chmod 600 "$T"/*.key
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/psk2"
chmod 600 "$T"/psk*

cert_confs() { # CERT_OF_B (KEY the same name)
  ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = cert" "cert = $T/a.pem" "key = $T/a.key" \
    "ca = $T/ca.pem" "remote_id = C=RU, O=gostx test, CN=b" \
    "transforms = magma-mgm-ktree, gost3410-2012-256"
  ike_conf b 10.231.0.2 10.231.0.1 yes "ike_auth = cert" "cert = $T/$1.pem" "key = $T/$1.key" \
    "ca = $T/ca.pem" "remote_id = C=RU, O=gostx test, CN=a" \
    "transforms = magma-mgm-ktree, gost3410-2012-256"
}

# established WHAT: the pair up within 1 s of the start (times the load
# scale), --status showing
# the SAs (the Child SA SPIs crossed), a numbered UDP stream through it
established() {
  local t0 ms
  t0=$(date +%s%N)
  both_start
  if ! both_up; then
    bad "$1: not up: a: $(tail -3 "$T/a.log") b: $(tail -3 "$T/b.log")"
    both_stop
    return
  fi
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ $ms -le $(bound 1000) ] && ok "$1: up from nothing in $ms ms" || bad "$1: up in $ms ms (over $(bound 1000) ms)"
  ip -n $NA addr add 10.232.0.1/30 dev $TUN
  ip -n $NB addr add 10.232.0.2/30 dev $TUN
  local got
  got=$(udp_through $NA $NB 10.232.0.2 udpsend 300 1000)
  [ "$got" = "received 300 distinct 300 bad 0" ] && ok "$1: UDP through: $got" || bad "$1: UDP: $got"
  status_fresh a b # a status file of the established SA
  local ai ao bi bo
  ai=$(tunnel_status $NA a child_spi_in)
  ao=$(tunnel_status $NA a child_spi_out)
  bi=$(tunnel_status $NB b child_spi_in)
  bo=$(tunnel_status $NB b child_spi_out)
  [ "$(tunnel_status $NA a ike_sa)" = established ] && [ "$(tunnel_status $NB b ike_sa)" = established ] &&
    [ -n "$ai" ] && [ "$ai" = "$bo" ] && [ "$ao" = "$bi" ] &&
    [ "$(tunnel_status $NA a ike_spi_i)" = "$(tunnel_status $NB b ike_spi_i)" ] &&
    [ "$(tunnel_status $NA a child_sa)" = "esp $2" ] &&
    ok "$1: --status: IKE SA $(tunnel_status $NA a ike_transforms), Child SA in $ai out $ao" ||
    bad "$1: --status: $(ip netns exec $NA "$G" tunnel --status -c "$T/a.conf")"
  both_stop
  # fresh keys at every SA: no state file is needed, read or written
  [ ! -e "$T/a.state" ] && [ ! -e "$T/b.state" ] && ok "$1: no state file written" ||
    bad "$1: a state file was written"
}

# refused WHAT SIDE PATTERN: within 3 s SIDE logs PATTERN; neither is up
# nor shows a Child SA
refusal() {
  both_start
  local found=0
  for _ in $(seq $(bound 300)); do
    grep -q -- "$3" "$T/$2.log" 2>/dev/null && { found=1; break; }
    sleep 0.01
  done
  status_fresh a b
  if [ $found = 1 ] && ! grep -q ' up, \|Child SA ESP' "$T/a.log" "$T/b.log" &&
    [ -z "$(tunnel_status $NA a child_spi_in)$(tunnel_status $NB b child_spi_in)" ] &&
    [ "$(tunnel_status $NB b ike_sa)" != established ]; then
    ok "$1 refused: $(grep -- "$3" "$T/$2.log" | head -1)"
  else
    bad "$1: a: $(cat "$T/a.log") b: $(cat "$T/b.log")"
  fi
  both_stop
}

psk_confs psk
established "PSK, Kuznyechik-MGM" kuznyechik-mgm-ktree
cert_confs b
established "certificates, Magma-MGM, both initiating" magma-mgm-ktree
grep -q 'both sides initiate' "$T/a.log" "$T/b.log" && ok "the collision was seen and settled" ||
  bad "no collision: $(cat "$T/a.log" "$T/b.log")"

# The same with a's key on gostx's PKCS#11 token (docs/PKCS11.md): a.key
# imported as a non-extractable object and the config naming only its
# pkcs11: URI (PIN from a file), so a's IKE_AUTH signature is the token's C_Sign
MOD=$(dirname "$G")/libgostx-pkcs11.so
if [ -f "$MOD" ]; then
  export GOSTX_PKCS11_DIR=$T/tokens GOSTX_PKCS11_KDF_ITER=2000 # a short PIN KDF for this test token
  mkdir -p "$GOSTX_PKCS11_DIR"
  echo 1234 >"$T/pin"
  chmod 600 "$T/pin"
  if "$G" p11 init --module "$MOD" --label ike -sopin pass:87654321 -pin "file:$T/pin" >/dev/null 2>"$T/p11.err" &&
    "$G" p11 import --module "$MOD" -k "$T/a.key" -cert "$T/a.pem" --label a -pin "file:$T/pin" \
      >/dev/null 2>>"$T/p11.err"; then
    cert_confs b
    ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = cert" "cert = $T/a.pem" \
      "key = pkcs11:token=ike;object=a;type=private?module-path=$MOD&pin-source=$T/pin" \
      "ca = $T/ca.pem" "remote_id = C=RU, O=gostx test, CN=b" \
      "transforms = magma-mgm-ktree, gost3410-2012-256"
    established "a's key on a PKCS#11 token" magma-mgm-ktree
  else
    bad "a's key onto gostx's token: $(cat "$T/p11.err")"
  fi
  unset GOSTX_PKCS11_DIR GOSTX_PKCS11_KDF_ITER
else
  echo "skip: $MOD not built: no tunnel with a token key"
fi

# The responder started 1 s after the initiator: the engine's timer resends
# the request (0.5 s, then 1 s later), and the pair comes up
late_responder() {
  rm -f "$T/a.log" "$T/b.log"
  ip netns exec $NA "$G" tunnel -c "$T/a.conf" 2>"$T/a.log" </dev/null >/dev/null &
  PID_a=$!
  PIDS+=($PID_a)
  sleep 1
  ip netns exec $NB "$G" tunnel -c "$T/b.conf" 2>"$T/b.log" </dev/null >/dev/null &
  PID_b=$!
  PIDS+=($PID_b)
  both_up && [ "$(grep -c 'IKE_SA_INIT to' "$T/a.log")" = 1 ] &&
    ok "a responder started late: the request resent, up" || bad "late responder: $(cat "$T/a.log")"
  both_stop
}
psk_confs psk
late_responder

# A flood of IKE_SA_INIT (a's real request, captured, replayed from a's
# address under 12 new SPIs) before a starts: cookies engage after 2
# half-open SAs (nothing kept for the rest), and a still connects
cookie_flood() {
  capture_init "$T/init.bin" || { bad "cookies: no IKE_SA_INIT captured"; return; }
  ip netns exec $NB "$G" tunnel -c "$T/b.conf" 2>"$T/b.log" </dev/null >/dev/null &
  PID_b=$!
  PIDS+=($PID_b)
  for _ in $(seq $(bound 100)); do grep -q listening "$T/b.log" && break; sleep 0.02; done
  replay_init "$T/init.bin" 12
  sleep 0.3 # (no wait needed: b reads its one IKE socket in order, the flood ahead of a)
  ip netns exec $NA "$G" tunnel -c "$T/a.conf" 2>"$T/a.log" </dev/null >/dev/null &
  PID_a=$!
  PIDS+=($PID_a)
  local opened cookies
  if both_up; then ok "cookies: a connects through the flood"; else bad "cookies: not up: $(cat "$T/b.log")"; fi
  opened=$(grep -c 'IKE_SA_INIT from .* (responder)' "$T/b.log")
  cookies=$(grep -c 'COOKIE asked' "$T/b.log")
  # the flood's first 2 kept, its other 10 and a's first try (and a resend of
  # it on a slow host) asked for a cookie
  [ "$opened" = 3 ] && [ "$cookies" -ge 11 ] && ok "cookies: $opened IKE SAs opened, $cookies COOKIEs asked" ||
    bad "cookies: $opened opened, $cookies COOKIEs: $(cat "$T/b.log")"
  both_stop
}
# here the IDs are the default ones, the local IP addresses (ID_IPV4_ADDR)
ike_conf a 10.231.0.1 10.231.0.2 yes "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.2"
ike_conf b 10.231.0.2 10.231.0.1 no "ike_auth = psk" "psk = $T/psk" "remote_id = 10.231.0.1"
cookie_flood

psk_confs psk2
refusal "a wrong PSK" b "AUTHENTICATION_FAILED: the peer's AUTH does not verify (another PSK)"
# b, the higher address, leads: a, the responder, refuses its certificate
# (the initiator refusing the responder's would leave the responder's
# Child SA installed until INFORMATIONAL exists: docs/TUNNEL.md)
cert_confs rb
refusal "a certificate from another CA" a "AUTHENTICATION_FAILED: issuer: no trusted issuer found (unknown CA)"
cert_confs xb
refusal "an expired certificate" a "AUTHENTICATION_FAILED: validity: certificate has expired"
psk_confs psk other.gostx.test
refusal "a wrong remote_id" b "AUTHENTICATION_FAILED: the peer's ID is not the one configured"
# with certificates, a (the responder) refuses b's ID: not its remote_id;
# then b's ID (an FQDN) a's remote_id but not a name its certificate has
cert_confs b
sed -i 's/^remote_id = .*/remote_id = C=RU, O=gostx test, CN=c/' "$T/a.conf"
refusal "certificates, a wrong remote_id" a "AUTHENTICATION_FAILED: the peer's ID is not the one configured"
cert_confs b
sed -i 's/^remote_id = .*/remote_id = b.gostx.test/' "$T/a.conf"
echo "local_id = b.gostx.test" >>"$T/b.conf"
refusal "certificates, an ID the certificate does not name" a \
  "AUTHENTICATION_FAILED: subjectAltName: hostname or IP address mismatch"

mkdir -p "$T/crl.d"
: >"$T/index.b"
: >"$T/index.a"
crl_of "$T/index.b" "$T/crl.d/ca.crl" || bad "a CRL revoking nothing"
cert_confs b
echo "crl = $T/crl.d" >>"$T/a.conf"
both_start
if both_up && grep -q 'revocation = require: the peer.s certificates looked up in 1 CRLs' "$T/a.log"; then
  ok "revocation = require, a CRL revoking neither: up"
else
  bad "revocation, neither revoked: a: $(cat "$T/a.log") b: $(tail -3 "$T/b.log")"
fi
crl_of "$T/index.b" "$T/crl.d/ca.crl" "$T/b.pem" || bad "a CRL revoking b"
kill -HUP $PID_a
logged a "SIGHUP: 1 CRLs read again" || bad "SIGHUP: no reload logged: $(cat "$T/a.log")"
want="certificate revoked: depth 0, serial 0x$(serial_of "$T/index.b" b), reason keyCompromise"
# b's IKE SA, up, deleted by a at once: a's line, b told, nothing left in
# a's data path (its status file, rewritten each second: polled)
cut_off() {
  for _ in $(seq $(bound 40)); do
    [ "$(tunnel_status $NA a sa_out)" = 0x00000000 ] && [ -z "$(tunnel_status $NA a sa_in)" ] && return 0
    sleep 0.1
  done
  return 1
}
if logged a "CN=b deleted: revocation: $want (new CRLs)" && logged b "deleted by the peer" && cut_off; then
  ok "after SIGHUP, b revoked: its IKE SA deleted: $(grep -- "CN=b deleted: " "$T/a.log" | head -1)"
else
  bad "after SIGHUP, b revoked, b's IKE SA stays: a: $(cat "$T/a.log") b: $(cat "$T/b.log")" \
    "a --status: $(ip netns exec $NA "$G" tunnel --status -c "$T/a.conf")"
fi
# b starts a new IKE SA at once (it initiates too): refused
logged a "AUTHENTICATION_FAILED: revocation: $want" &&
  ok "after SIGHUP, b revoked: a refuses its new IKE SA: $(grep -- "AUTHENTICATION_FAILED: revocation: $want" "$T/a.log" | head -1)" ||
  bad "after SIGHUP, b revoked: a: $(cat "$T/a.log")"
both_stop
crl_of "$T/index.a" "$T/a.crl" "$T/a.pem" || bad "a CRL revoking a"
cert_confs b
echo "crl = $T/a.crl" >>"$T/b.conf"
both_start
want="certificate revoked: depth 0, serial 0x$(serial_of "$T/index.a" a), reason keyCompromise"
logged b "$want" && ok "a revoked: b, the initiator, refuses the responder: $(grep -- "$want" "$T/b.log" | head -1)" ||
  bad "a revoked: b: $(cat "$T/b.log")"
both_stop

# Offers gostx never makes (tests/net/ike_init.py, from a's address, b
# alone): answered unencrypted with the notify RFC 7296 and RFC 9385 6.1
# name, logged with why, nothing kept: afterwards a connects with no
# COOKIE asked (it would be from 2 half-open SAs on)
crafted() { # WHAT OFFER NOTIFY PATTERN: two tries, each answered and logged
  local got i n0 n
  n0=$(grep -c -- "$4" "$T/b.log")
  for i in 1 2; do
    got=$(ip netns exec $NA timeout 10 python3 "$HERE/ike_init.py" 10.231.0.1 10.231.0.2 $2)
    [ "$got" = "notify $3" ] || { bad "$1 (try $i): answered '$got': $(cat "$T/b.log")"; return; }
  done
  for _ in $(seq $(bound 100)); do # the log line comes just after the answer
    n=$(grep -c -- "$4" "$T/b.log")
    [ $((n - n0)) = 2 ] && break
    sleep 0.01
  done
  [ $((n - n0)) = 2 ] && ok "$1 refused: notify $3, $(grep -- "$4" "$T/b.log" | tail -1)" ||
    bad "$1: $((n - n0)) log lines, not 2: $(cat "$T/b.log")"
}
psk_confs psk
rm -f "$T/b.log"
ip netns exec $NB "$G" tunnel -c "$T/b.conf" 2>"$T/b.log" </dev/null >/dev/null &
PID_b=$!
PIDS+=($PID_b)
for _ in $(seq $(bound 100)); do grep -q listening "$T/b.log" 2>/dev/null && break; sleep 0.05; done
crafted "a proposal without a GOST transform (AES-GCM, SHA2-256, group 19)" aes 14 \
  "failed (responder): NO_PROPOSAL_CHOSEN: no proposal of the peer's is ours"
crafted "a KE of group 34 off the curve" offcurve 7 \
  "failed (responder): INVALID_SYNTAX: the peer's KE is not a point of its group's curve"
crafted "a KE of group 34 of order 2" order2 7 \
  "failed (responder): INVALID_SYNTAX: the peer's KE is not a point of its group's curve"
crafted "a payload of unknown type 99, critical (RFC 7296 2.5)" critical 1 \
  "failed (responder): UNSUPPORTED_CRITICAL_PAYLOAD: the peer's IKE_SA_INIT has a critical payload"
# SPIi zero (3.1): dropped, unanswered (the same request with another SPIi
# is answered INVALID_SYNTAX above)
got=$(ip netns exec $NA timeout 10 python3 "$HERE/ike_init.py" 10.231.0.1 10.231.0.2 zerospi 1)
[ "$got" = "no answer" ] && ok "an IKE_SA_INIT with SPIi zero dropped" ||
  bad "an IKE_SA_INIT with SPIi zero answered '$got': $(cat "$T/b.log")"
ip netns exec $NA "$G" tunnel -c "$T/a.conf" 2>"$T/a.log" </dev/null >/dev/null &
PID_a=$!
PIDS+=($PID_a)
if both_up && ! grep -q 'COOKIE asked' "$T/b.log"; then
  ok "after 6 refused offers nothing was kept: a connects, no COOKIE asked"
else
  bad "after the refused offers: a: $(cat "$T/a.log") b: $(cat "$T/b.log")"
fi
both_stop
finish
