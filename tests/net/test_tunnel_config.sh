#!/usr/bin/env bash
# gostx tunnel refuses bad configurations with one clear line: exit 2 for
# what the user wrote wrong (missing, unknown or repeated setting, unknown
# transform, bad SPI, key of the wrong length, an over-long line, a NUL),
# exit 1 for what the system refuses (port in use, key file unreadable, not
# a regular file or open to group and others; a state file missing, of
# other keys, damaged or at the end of the SA). --check checks all of it as
# a start would. Runs without root: everything here is checked before the
# TUN device is opened.
. "$(dirname "$0")/../cli_common.sh" tunnel-config

head -c 32 /dev/urandom >"$T/k32"
head -c 44 /dev/urandom >"$T/k44"
head -c 36 /dev/urandom >"$T/k36"
head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n' >"$T/khex"
echo >>"$T/khex"
head -c 31 /dev/urandom >"$T/k31"
head -c 33 /dev/urandom >"$T/k33"
printf 'zz%.0s' $(seq 32) >"$T/kbadhex"
chmod 600 "$T"/k*

base() { # the settings of a good config, one per line
  cat <<EOF2
local = 127.0.0.1:${PORT:-45999}
peer = 127.0.0.1:46000
tun = gxcfg0
transform = ${TRANSFORM:-kuznyechik-mgm-ktree}
spi_out = 0x1001
spi_in = 4098
key_out = $T/${KOUT:-k32}
key_in = $T/${KIN:-k44}
state = $T/seq
EOF2
}
# expect CODE PATTERN CONFIG-TEXT: --check exits CODE with one stderr line
# matching PATTERN (none for 0). CONFIG-TEXT "-": c.conf as it is. $ARGS:
# more options, --new-keys unless set (no state file here yet). Bounded: a
# check that hangs fails.
expect() {
  [ "$3" = "-" ] || printf '%s\n' "$3" >"$T/c.conf"
  # shellcheck disable=SC2086
  timeout 10 "$G" tunnel --check -c "$T/c.conf" ${ARGS---new-keys} >"$T/out" 2>"$T/err"
  local rc=$? lines
  lines=$(wc -l <"$T/err")
  if [ $rc != "$1" ] || [ "$lines" != "$(($1 == 0 ? 0 : 1))" ] ||
    { [ "$1" != 0 ] && ! grep -q -- "$2" "$T/err"; }; then
    bad "want exit $1 and one line like '$2'; got exit $rc: $(cat "$T/err")"
  else
    ok
  fi
}

expect 0 '' "$(base)"
expect 0 '' "$(KOUT=khex KIN=k32 base)"
expect 0 '' "$(TRANSFORM=magma-mgm-ktree KIN=k36 base)"
expect 2 "missing setting 'key_in'" "$(base | grep -v '^key_in')"
expect 2 "missing setting 'state'" "$(base | grep -v '^state')"
expect 2 "unknown setting 'colour'" "$(base; echo 'colour = blue')"
expect 2 "unknown transform 'aes-gcm'" "$(TRANSFORM=aes-gcm base)"
expect 2 "spi_out must be a number from 256" "$(base | sed 's/^spi_out.*/spi_out = 12/')"
expect 2 "spi_in and spi_out must differ" "$(base | sed 's/^spi_in.*/spi_in = 0x1001/')"
expect 2 "bad value for local" "$(base | sed 's/^local.*/local = nowhere/')"
expect 2 "expected KEY = VALUE" "$(base; echo 'just words')"
expect 2 "k31: a key file holds 32 bytes (or 44 with the salt)" "$(KOUT=k31 base)"
expect 2 "k33: a key file holds 32 bytes" "$(KIN=k33 base)"
expect 2 "k44: a key file holds 32 bytes (or 36 with the salt)" "$(TRANSFORM=magma-mgm-ktree KIN=k44 base)"
expect 2 "kbadhex: a key file holds 32 bytes" "$(KIN=kbadhex base)"
expect 1 "nokey: No such file" "$(KIN=nokey base)"
expect 2 "bad value for mtu" "$(base; echo 'mtu = 99999')"
expect 2 "bad value for esn: 'yes'" "$(base; echo 'esn = yes')"
expect 2 "bad value for udp_offload: 'no'" "$(base; echo 'udp_offload = no')"
expect 2 "bad value for tun_offload: 'yes'" "$(base; echo 'tun_offload = yes')"
expect 2 "bad value for timing: 'on'" "$(base; echo 'timing = on')"

# Lines: one over 1023 bytes is refused, not cut (the tail of a long
# comment was read as `peer = ...`); 1023 bytes are fine. A setting given
# twice, and a NUL byte (what followed it was ignored), are refused.
pad=$(head -c 1022 /dev/zero | tr '\0' x)
expect 2 "c.conf:9: line longer than 1023 bytes" "$(base | grep -v '^peer'; echo "#${pad}peer = 127.0.0.9:46000")"
expect 0 "" "$(base; echo "#${pad}")"
expect 2 "c.conf:10: tun given twice (first on line 3)" "$(base; echo 'tun = gxcfg1')"
{ base | grep -v '^tun'; printf 'tun = gxcfg0\0limit = 5\n'; } >"$T/c.conf"
expect 2 "c.conf:9: a NUL byte in the line" -

# Key files: a FIFO (or anything but a regular file) is refused at once
# (it hung the start); one that group or others can access is refused as
# the disk filter refuses it, unless insecure_key_file = true says so.
mkfifo "$T/kfifo"
expect 1 "kfifo: not a regular file (a FIFO)" "$(KIN=kfifo base)"
"$G" tunnel --check -c "$T" 2>"$T/err"
[ $? = 2 ] && grep -q "$T: not a regular file (a directory)" "$T/err" && ok || bad "config a directory: $(cat "$T/err")"
cp "$T/k32" "$T/kopen" && chmod 640 "$T/kopen"
expect 1 "kopen: key file has mode 0640: group or others can access it; chmod go= it, or set insecure_key_file = true" \
  "$(KOUT=kopen base)"
printf '%s\n' "$(KOUT=kopen base; echo 'insecure_key_file = true')" >"$T/c.conf"
"$G" tunnel --check --new-keys -c "$T/c.conf" 2>"$T/err"
[ $? = 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'warning: key file .*kopen has mode 0640.*insecure_key_file = true' "$T/err" &&
  ok || bad "insecure_key_file = true: $(cat "$T/err")"
expect 2 "bad value for insecure_key_file: 'yes'" "$(base; echo 'insecure_key_file = yes')"

# The state file (docs/TUNNEL.md): which keys it belongs to, by their
# fingerprints KDF_256(K, "gostx tunnel state: key fingerprint", transform
# id | salt), recomputed here with `gostx kdf`; the salt of a 32-byte key
# file is KDF_256(K, "gostx tunnel salt", SPI)'s first bytes.
hexof() { od -An -v -tx1 | tr -d ' \n'; }
kdf() { "$G" kdf kdf256 -k "$1" --label "$(printf %s "$2" | hexof)" --seed "$3" | tr -d '\n'; }
fp() { # KEYFILE SPI_HEX8: the fingerprint of a Kuznyechik SA
  local k salt
  k=$(head -c 32 "$1" | hexof)
  if [ "$(stat -c %s "$1")" = 44 ]; then salt=$(tail -c 12 "$1" | hexof)
  else salt=$(kdf "$k" "gostx tunnel salt" "$2" | cut -c1-24); fi
  kdf "$k" "gostx tunnel state: key fingerprint" "20$salt"
}
FP_OUT=$(fp "$T/k32" 00001001)
FP_IN=$(fp "$T/k44" 00001002)
RANDFP=$(head -c 32 /dev/urandom | hexof)
state() { printf 'gostx tunnel state 1\nout %s %s\nin %s %s\n' "$1" "$2" "$3" "$4" >"$T/seq"; }
base >"$T/c.conf"
rm -f "$T/seq"
ARGS= expect 1 "seq: no state file: if key_out and key_in are new (never used by a tunnel), start once with --new-keys" -
state "$FP_OUT" 5 "$FP_IN" 7
ARGS= expect 0 "" -
expect 1 "seq: holds the state of these very keys (outbound numbers used up to 5): they are not new; start without --new-keys" -
state "$RANDFP" 5 "$RANDFP" 7
ARGS= expect 1 "seq: the state of other keys (key_out and key_in differ): if key_out and key_in are new, start once with --new-keys" -
expect 0 "" -
state "$FP_OUT" 5 "$RANDFP" 7
ARGS= expect 1 "seq: the state of other keys (key_in differs): if key_in is new" -
# the end of the SA: nothing more may be sent, so the start is refused
state "$FP_OUT" 18446744073709551615 "$FP_IN" 0
ARGS= expect 1 "seq: the outbound SA's sequence numbers are used up (18446744073709551615, the limit is 18446744073709551615): new keys and SPIs needed" -
state "$FP_OUT" 18446744073709551614 "$FP_IN" 0
ARGS= expect 0 "" -
base >"$T/c.conf"; echo 'limit = 1000' >>"$T/c.conf"
state "$FP_OUT" 1000 "$FP_IN" 0
ARGS= expect 1 "used up (1000, the limit is 1000)" -
state "$FP_OUT" 999 "$FP_IN" 0
ARGS= expect 0 "" -
base >"$T/c.conf"; echo 'esn = off' >>"$T/c.conf"
state "$FP_OUT" 4294967295 "$FP_IN" 0
ARGS= expect 1 "used up (4294967295, the limit is 4294967295)" -
# read strictly: 5abc is no number, nor is a state file with more in it
base >"$T/c.conf"
for bad_state in '5abc' '5 6' '-1' '18446744073709551616' '' \
  "$(printf 'gostx tunnel state 1\nout %s 5\nin %s 7x' "$FP_OUT" "$FP_IN")" \
  "$(printf 'gostx tunnel state 1\nout %s 5\nin %s 7\nextra' "$FP_OUT" "$FP_IN")"; do
  printf '%s\n' "$bad_state" >"$T/seq"
  ARGS= expect 1 "seq: not a gostx tunnel state file (or damaged)" -
done
mkfifo "$T/seq.fifo"
sed -i "s#^state = .*#state = $T/seq.fifo#" "$T/c.conf"
ARGS= expect 1 "seq.fifo: not a regular file" -
# the one-number file of gostx before 2026-11-26: taken as these keys'
# (one line says so), at the end refused as well
base >"$T/c.conf"
echo 5 >"$T/seq"
"$G" tunnel --check -c "$T/c.conf" 2>"$T/err"
[ $? = 0 ] && grep -q 'written by an older gostx (no key fingerprints): taken as the state of key_out and key_in' "$T/err" &&
  ok || bad "legacy state file: $(cat "$T/err")"
echo 18446744073709551615 >"$T/seq"
ARGS= expect 1 "used up" -
# with --new-keys it cannot tell whose it is: refused, not restarted at 1
# (the keys may have been kept over the upgrade: nonces reused)
echo 5000000 >"$T/seq"
expect 1 "seq: written by an older gostx (no key fingerprints): with --new-keys it cannot tell whether these keys are new" -
rm -f "$T/seq"

# the port in use: refused before anything else is set up (no root needed).
# The holder takes a port the kernel picks (a fixed one may be another
# run's) and writes it once bound; the tunnel is bounded in time, so a start
# that was not refused fails the test instead of running on.
python3 - "$T/ready" <<'EOF2' &
import os, socket, sys, time
from gostx_test_time import bound
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(bound(20))
EOF2
holder=$!
for _ in $(seq $(bound 100)); do [ -e "$T/ready" ] && break; sleep 0.1; done
port=$(cat "$T/ready" 2>/dev/null)
base | sed "s/^local.*/local = 127.0.0.1:${port:-0}/" >"$T/c.conf"
timeout 15 "$G" tunnel --new-keys -c "$T/c.conf" 2>"$T/err"
rc=$?
kill $holder 2>/dev/null
wait $holder 2>/dev/null
if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'address in use' "$T/err"; then ok; else
  bad "port in use: exit $rc: $(cat "$T/err")"; fi

# usage errors
"$G" tunnel 2>"$T/err"; [ $? = 2 ] && grep -q -- '-c CONFIG is required' "$T/err" && ok || bad "no -c"
"$G" tunnel --status -c "$T/none.conf" 2>"$T/err"; [ $? = 2 ] && ok || bad "missing config file"
base >"$T/c.conf"
"$G" tunnel --status -c "$T/c.conf" 2>"$T/err"; [ $? = 1 ] && grep -q 'is not running' "$T/err" && ok ||
  bad "status without a tunnel: $(cat "$T/err")"
# a dead tunnel's status file (and its lock file) left behind: its last
# counters are not shown as if it ran
printf 'pid 999999\ntx_packets 5\n' >"$T/seq.status"
: >"$T/seq.lock"
"$G" tunnel --status -c "$T/c.conf" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] && [ ! -s "$T/out" ] && grep -q "tunnel of $T/c.conf is not running" "$T/err" && ok ||
  bad "status of a dead tunnel: exit $rc: $(cat "$T/out" "$T/err")"
# held (flock, as the running tunnel holds it): the counters are shown
if command -v flock >/dev/null; then
  flock "$T/seq.lock" "$G" tunnel --status -c "$T/c.conf" >"$T/out" 2>"$T/err"
  rc=$?
  [ $rc = 0 ] && grep -q '^tx_packets 5$' "$T/out" && ok || bad "status of a running tunnel: exit $rc: $(cat "$T/err")"
fi
# keying = ikev2 (docs/TUNNEL.md, "Keying with IKEv2"): its settings read
# and checked by --check as a start would (the PSK file as key files are,
# the key, certificate and CA loaded); a config mixing static key settings
# with ikev2 refused naming the line; static configs unchanged (above).
printf 'a PSK of thirty-two bytes, here\n' >"$T/psk"
printf 'too short\n' >"$T/pskshort"
cp "$T/psk" "$T/pskopen"
chmod 600 "$T/psk" "$T/pskshort"
chmod 644 "$T/pskopen"
ike() { # the settings of a good ikev2 PSK config
  cat <<EOF2
local = 127.0.0.1:45999
peer = 127.0.0.1:46000
tun = gxcfg0
keying = ikev2
state = $T/ike
ike_auth = psk
psk = $T/${PSK:-psk}
remote_id = C=RU, O=gostx test, CN=peer
EOF2
}
ARGS= # no state file to make with ikev2: --new-keys is refused
expect 0 '' "$(ike)"
ARGS=--new-keys expect 0 '' "$(base; echo 'keying = static')"
expect 0 '' "$(ike; printf '%s\n' 'local_id = 10.0.0.1' 'transforms = magma-mgm-ktree, gost3410-2012-256' \
  'ike_initiate = yes' 'ike_port = 1500' 'rekey_seconds = 3600' 'rekey_bytes = 1000000000' 'ike_rekey_seconds = 14400' 'dpd_seconds = 30' \
  'encap = yes' 'nat_keepalive_seconds = 20' 'fragmentation = no' 'fragment_size = 1500')"
expect 2 "c.conf:9: key_out is a setting of keying = static: with keying = ikev2 IKE negotiates" "$(ike; echo "key_out = $T/k32")"
expect 2 "c.conf:9: spi_in is a setting of keying = static" "$(ike; echo 'spi_in = 4098')"
expect 2 "c.conf:10: psk is a setting of keying = ikev2 (this config's keying is static)" "$(base; echo "psk = $T/psk")"
expect 2 "missing setting 'remote_id'" "$(ike | grep -v '^remote_id')"
expect 2 "missing setting 'ike_auth'" "$(ike | grep -v '^ike_auth')"
expect 2 "ike_auth = psk needs psk = FILE" "$(ike | grep -v '^psk')"
expect 2 "ike_auth = cert needs cert, key and ca" "$(ike | grep -v '^psk' | sed 's/^ike_auth.*/ike_auth = cert/')"
expect 2 "bad value for keying: 'ike'" "$(ike | sed 's/^keying.*/keying = ike/')"
expect 2 "bad remote_id 'C=RU, , CN=x'" "$(ike | sed 's/^remote_id.*/remote_id = C=RU, , CN=x/')"
expect 2 "bad transforms 'aes-gcm'" "$(ike; echo 'transforms = aes-gcm')"
expect 2 "bad transforms 'kuznyechik-mgm-mac-ktree'" "$(ike; echo 'transforms = kuznyechik-mgm-mac-ktree')"
expect 2 "bad value for ike_initiate: 'maybe'" "$(ike; echo 'ike_initiate = maybe')"
expect 0 '' "$(ike; echo 'ike_port = 45999')" # local's port: IKE on the data port only
expect 2 "bad value for dpd_seconds: '-1'" "$(ike; echo 'dpd_seconds = -1')"
expect 2 "bad value for ike_rekey_seconds: '4h'" "$(ike; echo 'ike_rekey_seconds = 4h')"
expect 2 "bad value for encap: 'on'" "$(ike; echo 'encap = on')"
expect 2 "bad value for nat_keepalive_seconds: '20s'" "$(ike; echo 'nat_keepalive_seconds = 20s')"
expect 2 "encap is a setting of keying = ikev2 (this config's keying is static)" "$(base; echo 'encap = yes')"
expect 2 "bad value for fragmentation: 'accept'" "$(ike; echo 'fragmentation = accept')"
expect 2 "bad value for fragment_size: '575'" "$(ike; echo 'fragment_size = 575')" # IPv4's least
expect 2 "bad value for fragment_size: '65536'" "$(ike; echo 'fragment_size = 65536')"
expect 0 '' "$(ike; echo 'fragment_size = 576')"
expect 2 "pskshort: a PSK of 16 to" "$(PSK=pskshort ike)"
expect 1 "pskopen: key file has mode 0644: group or others can access it" "$(PSK=pskopen ike)"
ARGS=--new-keys expect 2 "--new-keys is for keying = static" "$(ike)"
# ike_auth = cert: the key (encrypted: key_pass as -passin), its
# certificate (the key's: checked) and the CA, loaded by --check
"$G" genpkey -c 256A -pass pass:sesame --iter 1000 -o "$T/ike.key" &&
  "$G" req -x509 -key "$T/ike.key" -passin pass:sesame -subj "/C=RU/CN=ike" -out "$T/ike.pem" &&
  "$G" genpkey -c 256A -o "$T/other.key" &&
  "$G" req -x509 -key "$T/other.key" -subj "/C=RU/CN=other" -out "$T/other.pem" || bad "PKI"
chmod 600 "$T/ike.key" "$T/other.key"
cert() { # the settings of a good ikev2 certificate config
  ike | grep -v '^psk\|^ike_auth'
  printf '%s\n' "ike_auth = cert" "cert = $T/${CERT:-ike}.pem" "key = $T/ike.key" \
    "key_pass = ${PASS:-pass:sesame}" "ca = $T/other.pem"
}
expect 0 '' "$(cert)"
expect 1 "wrong password" "$(PASS=pass:open cert)"
expect 2 "other.pem: the first certificate is not of the key" "$(CERT=other cert)"
expect 2 "cert, key, key_pass and ca are for ike_auth = cert" "$(ike; echo "ca = $T/other.pem")"
# crl lines (files or folders of CRLs) loaded by --check, a file that is
# no CRL named; revocation = require | warn | off, with crl lines or not
: >"$T/index"
mkdir -p "$T/crls" "$T/crls_bad"
"$G" ca -gencrl -cert "$T/other.pem" -keyfile "$T/other.key" -index "$T/index" -out "$T/crls/other.crl" &&
  cp "$T/crls/other.crl" "$T/crls_bad/a.crl" && echo junk >"$T/crls_bad/b.crl" || bad "CRL"
touch "$T/crls/.hidden" # dot files are passed over
expect 0 '' "$(cert; echo "crl = $T/crls/other.crl")"
expect 0 '' "$(cert; printf '%s\n' "crl = $T/crls" "crl = $T/crls/other.crl" "revocation = warn")"
expect 1 "crls_bad/b.crl: CRL 1: " "$(cert; echo "crl = $T/crls_bad")"
expect 1 "nothing.crl: No such file" "$(cert; echo "crl = $T/nothing.crl")"
expect 2 "revocation = require needs crl lines" "$(cert; echo 'revocation = require')"
expect 2 "revocation = warn needs crl lines" "$(cert; echo 'revocation = warn')"
expect 2 "crl lines with revocation = off" "$(cert; printf '%s\n' "crl = $T/crls" 'revocation = off')"
expect 0 '' "$(cert; echo 'revocation = off')"
expect 2 "bad revocation 'sometimes': require, warn or off" "$(cert; printf '%s\n' "crl = $T/crls" 'revocation = sometimes')"
expect 2 "crl and revocation are for ike_auth = cert" "$(ike; echo "crl = $T/crls")"
expect 2 "c.conf:20: bad crl .*at most 8 crl lines" "$(cert; for _ in $(seq 9); do echo "crl = $T/crls"; done)"
expect 2 "crl is a setting of keying = ikev2" "$(base; echo "crl = $T/crls")"
# A gateway (docs/TUNNEL.md, "Gateway (many peers)"): [peer NAME] sections,
# each with its address, SA pair and remote_ts. Refused: a peer's settings
# outside its section, or the gateway's inside one; two peers of one name,
# SPI, key or inner address; a peer without remote_ts; bad headers and
# prefixes; keying = ikev2 at the top level (IKEv2 sites below).
for k in ga gb gc gd ge gf; do head -c 32 /dev/urandom >"$T/$k"; done
chmod 600 "$T"/g?
gw_peer() { # NAME N [PREFIXES]: a peer section, its SPIs and keys by N
  printf '%s\n' "[peer $1]" "peer = 127.0.0.$((10 + $2)):4500" "transform = kuznyechik-mgm-ktree" \
    "spi_out = $((0x3000 + $2))" "spi_in = $((0x4000 + $2))" \
    "key_out = $T/$(echo abcdef | cut -c$((2 * $2 - 1)))" "key_in = $T/$(echo abcdef | cut -c$((2 * $2)))" |
    sed "s|$T/\([a-f]\)$|$T/g\1|"
  [ -n "${3-10.$2.0.0/16}" ] && echo "remote_ts = ${3-10.$2.0.0/16}"
}
gw() { # a good gateway of three peers
  printf '%s\n' "local = 127.0.0.1:${PORT:-45999}" "tun = gxgw0" "state = $T/gwseq"
  gw_peer a 1 "10.1.0.0/16, fd00:1::/48"
  gw_peer b 2
  gw_peer c 3 "192.168.7.0/24,10.3.0.0/16"
}
ARGS=--new-keys expect 0 '' "$(gw)"
expect 2 "c.conf:19: \[peer b\]: remote_ts 10.1.5.0/24 overlaps peer a's 10.1.0.0/16" \
  "$(gw | sed 's|^remote_ts = 10.2.0.0/16|remote_ts = 10.1.5.0/24|')"
expect 2 "\[peer c\]: remote_ts fd00:1:0:8000::/49 overlaps peer a's fd00:1::/48" \
  "$(gw | sed 's|^remote_ts = 192.168.7.0/24.*|remote_ts = fd00:1:0:8000::/49|')"
expect 2 "c.conf:12: \[peer b\]: spi_in 0x00004001 is peer a's spi_in too" \
  "$(gw | sed 's|^spi_in = 16386|spi_in = 16385|')"
expect 2 "\[peer c\]: spi_out 0x00004002 is peer b's spi_in too" \
  "$(gw | sed 's|^spi_out = 12291|spi_out = 16386|')"
expect 2 "c.conf:20: \[peer a\] given twice (first on line 4)" "$(gw | sed 's|^\[peer c\]|[peer a]|')"
expect 2 "c.conf:12: \[peer b\]: missing setting 'remote_ts'" "$(gw | grep -v '^remote_ts = 10.2')"
expect 2 "c.conf:12: \[peer b\]: missing setting 'key_in'" "$(gw | grep -v "^key_in = $T/gd")"
expect 2 "c.conf:4: spi_out is a setting of a \[peer\] section" "$(gw | sed '3a spi_out = 0x9999')"
expect 2 "c.conf:11: tun is a setting of the whole gateway" "$(gw | sed '10a tun = gxgw1')"
expect 2 "c.conf:4: expected \[peer NAME\]" "$(gw | sed 's|^\[peer a\]|[peer a b]|')"
expect 2 "c.conf:4: expected \[peer NAME\]" "$(gw | sed 's|^\[peer a\]|[site a]|')"
expect 2 "c.conf:19: bad remote_ts '10.2.0.1/16'" "$(gw | sed 's|^remote_ts = 10.2.0.0/16|remote_ts = 10.2.0.1/16|')"
expect 2 "c.conf:19: bad remote_ts ''" "$(gw | sed 's|^remote_ts = 10.2.0.0/16|remote_ts =|')"
ARGS=--new-keys expect 2 "\[peer c\]: its key_in is the key of peer a's key_out" "$(gw | sed "s|^key_in = $T/gf|key_in = $T/ga|")"
expect 2 "\[peer\] and \[pool\] sections are for a gateway, whose top level is keying = static" \
  "$(gw | sed '3a keying = ikev2')"
# A gateway's remote users (docs/TUNNEL.md, "Remote users"): one [pool NAME]
# section with its pool, patterns and certificate, beside the static peers
# or alone. Refused: a pool that overlaps a peer's remote_ts, a second
# [pool], a missing certificate, settings on the wrong side, bad values.
pool() { # a [pool] section of the IKE PKI above
  printf '%s\n' "[pool ${1:-users}]" "pool = ${POOL:-10.200.0.0/24}" "dns = 10.99.0.53, 10.99.0.54" \
    "remote_id = CN=*.users.example.ru" "remote_id = *.users.example.ru" "cert = $T/ike.pem" \
    "key = $T/ike.key" "key_pass = pass:sesame" "ca = $T/other.pem"
}
ARGS=--new-keys expect 0 '' "$(gw; pool)"
expect 0 '' "$(gw | head -3; pool)"
expect 2 "c.conf:28: \[pool users\]: pool 10.1.0.0/24 overlaps peer a's remote_ts 10.1.0.0/16" \
  "$(gw; POOL=10.1.0.0/24 pool)"
expect 2 "c.conf:37: \[pool more\]: one \[pool\] section per gateway (the first: \[pool users\] on line 28)" \
  "$(gw; pool; pool more)"
expect 2 "c.conf:28: \[pool users\]: missing setting 'cert'" "$(gw; pool | grep -v '^cert')"
expect 2 "c.conf:4: pool is a setting of a \[pool NAME\] section" "$(gw | sed '3a pool = 10.200.0.0/24')"
expect 2 "c.conf:29: tun is no setting of a \[pool\] section" "$(gw; pool | sed '1a tun = gxgw1')"
expect 2 "c.conf:29: bad pool '10.200.0.0/31'" "$(gw; POOL=10.200.0.0/31 pool)"
expect 2 "c.conf:30: bad dns '10.99.0.53, x'" "$(gw; pool | sed 's|^dns = .*|dns = 10.99.0.53, x|')"
expect 2 "request_address is a setting of keying = ikev2" "$(base; echo 'request_address = yes')"
# inner_routes: IPv4 prefixes into the device with the gateway's address
# (request_address = yes), refused without it and when not IPv4 prefixes
expect 0 '' "$(ike; echo 'request_address = yes'; echo 'inner_routes = 10.0.0.0/8, 192.168.5.0/24')"
expect 2 "c.conf:9: inner_routes go into the device with the address the gateway gives: request_address = yes" \
  "$(ike; echo 'inner_routes = 10.0.0.0/8')"
expect 2 "c.conf:10: bad inner_routes '10.0.0.0/8, fd00::/8': IPv4 prefixes" \
  "$(ike; echo 'request_address = yes'; echo 'inner_routes = 10.0.0.0/8, fd00::/8')"
expect 2 "c.conf:10: bad inner_routes '10.1.2.3/16'" "$(ike; echo 'request_address = yes'; echo 'inner_routes = 10.1.2.3/16')"
expect 2 "inner_routes is a setting of keying = ikev2" "$(base; echo 'inner_routes = 10.0.0.0/8')"
# psk lines: users of a PSK each, by their ID exactly (alone: no certificate)
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/kiosk.psk"
chmod 600 "$T/kiosk.psk"
psk_pool() { printf '%s\n' "[pool k]" "pool = 10.201.0.0/24" "psk = kiosk@example.ru $T/kiosk.psk" "$@"; }
ARGS=--new-keys expect 0 '' "$(gw; psk_pool)"
ARGS=--new-keys expect 0 '' "$(gw; pool; echo "psk = C=RU, O=Org, CN=kiosk $T/kiosk.psk")"
expect 2 "c.conf:30: bad psk 'kiosk@example.ru'" "$(gw; psk_pool | sed 's|^psk = .*|psk = kiosk@example.ru|')"
expect 2 "c.conf:31: bad psk 'kiosk@example.ru .*each ID once" "$(gw; psk_pool "psk = kiosk@example.ru $T/kiosk.psk")"
expect 1 "nothing.psk: No such file" "$(gw; psk_pool | sed "s|$T/kiosk.psk|$T/nothing.psk|")"
expect 2 "c.conf:28: \[pool k\]: no users: remote_id patterns (certificates) or psk lines" \
  "$(gw; psk_pool | grep -v '^psk')"
expect 2 "c.conf:28: \[pool k\]: missing setting 'cert' (its remote_id patterns are of certificates)" \
  "$(gw; psk_pool 'remote_id = *.example.ru')"
# address lines: a user's own inner address, outside the pool and the peers'
ARGS=--new-keys expect 0 '' "$(gw; psk_pool 'address = kiosk@example.ru 10.202.0.9')"
expect 2 "c.conf:31: bad address 'kiosk@example.ru 10.202.0'" "$(gw; psk_pool 'address = kiosk@example.ru 10.202.0')"
expect 2 "c.conf:32: bad address 'x@example.ru 10.202.0.9'" \
  "$(gw; psk_pool 'address = kiosk@example.ru 10.202.0.9' 'address = x@example.ru 10.202.0.9')"
expect 2 "c.conf:31: \[pool k\]: address 10.201.0.9 is in the pool" "$(gw; psk_pool 'address = kiosk@example.ru 10.201.0.9')"
expect 2 "c.conf:31: \[pool k\]: address 10.2.0.9 is in peer b's remote_ts 10.2.0.0/16" \
  "$(gw; psk_pool 'address = kiosk@example.ru 10.2.0.9')"
expect 2 "c.conf:10: remote_ts is a setting of a \[peer NAME\] section" "$(base; echo 'remote_ts = 10.0.0.0/8')"
# An IKEv2 site (docs/TUNNEL.md, "An IKEv2 site"): a [peer NAME] section of
# keying = ikev2 with its address, remote_id, remote_ts and its own psk (or
# cert, key and ca), beside static peers, a [pool], or alone. Refused: one
# without remote_id, remote_ts or authentication; a static peer's settings
# in it, an IKEv2 one's in a static peer; its remote_ts over another
# peer's or the pool.
site() { # NAME N: an IKEv2 site at 127.0.0.N, remote_ts $TS (10.9.0.0/16)
  printf '%s\n' "[peer ${1:-s}]" "keying = ikev2" "peer = 127.0.0.${2:-20}:4500" \
    "remote_id = ${1:-s}.example.ru" "psk = $T/kiosk.psk" "remote_ts = ${TS:-10.9.0.0/16}"
}
ARGS=--new-keys expect 0 '' "$(gw; site)"
ARGS=--new-keys expect 0 '' "$(gw; site; TS=10.8.0.0/16 site t 21; psk_pool)"
expect 0 '' "$(gw | head -3; site)"
# by certificate: its cert, key and ca in the section (here the pool's files)
ARGS=--new-keys expect 0 '' "$(gw; site | sed "s|^psk = .*|cert = $T/ike.pem\nkey = $T/ike.key\nkey_pass = pass:sesame\nca = $T/other.pem|"; pool)"
expect 2 "ike_auth = cert needs cert, key and ca" "$(gw; site | sed "s|^psk = .*|cert = $T/ike.pem\nkey = $T/ike.key|")"
expect 2 "c.conf:33: \[peer s\]: psk and cert both given: an IKEv2 peer authenticates by one of them" "$(gw; site | sed "s|^psk = .*|&\ncert = $T/ike.pem\nkey = $T/ike.key\nca = $T/other.pem|")"
expect 2 "c.conf:28: \[peer s\]: missing setting 'remote_id' (an IKEv2 peer)" "$(gw; site | grep -v '^remote_id')"
expect 2 "c.conf:28: \[peer s\]: missing setting 'remote_ts' (an IKEv2 peer)" "$(gw; site | grep -v '^remote_ts')"
expect 2 "c.conf:28: \[peer s\]: an IKEv2 peer authenticates by psk = FILE, or by cert, key and ca: none given" \
  "$(gw; site | grep -v '^psk')"
expect 2 "c.conf:34: \[peer s\]: spi_in is a setting of a static peer" "$(gw; site; echo 'spi_in = 999')"
expect 2 "c.conf:34: \[peer s\]: key_out is a setting of a static peer" "$(gw; site; echo "key_out = $T/ga")"
expect 2 "c.conf:34: \[peer s\]: transform is a setting of a static peer" "$(gw; site; echo 'transform = magma-mgm-ktree')"
expect 2 "c.conf:12: \[peer a\]: psk is a setting of an IKEv2 peer" "$(gw | sed "11a psk = $T/kiosk.psk")"
expect 2 "c.conf:33: \[peer s\]: remote_ts 10.2.128.0/17 overlaps peer b's 10.2.0.0/16" "$(gw; TS=10.2.128.0/17 site)"
expect 2 "c.conf:39: \[peer t\]: remote_ts 10.9.1.0/24 overlaps peer s's 10.9.0.0/16" \
  "$(gw; site; TS=10.9.1.0/24 site t 21)"
expect 2 "\[pool k\]: pool 10.201.0.0/24 overlaps peer s's remote_ts 10.201.0.0/16" \
  "$(gw; TS=10.201.0.0/16 site; psk_pool)"
expect 2 "c.conf:4: \[peer s\]: an IKEv2 peer needs IPv4 addresses" \
  "$(gw | sed 's|^local = .*|local = [::1]:45999|; /^\[peer a\]/,$d'; site | sed 's|^peer = .*|peer = [::1]:4500|')"
# ike_initiate = yes in a site's section: the gateway starts its IKE SA
# too (refused before 2026-11-30, "ike_initiate is no setting of a [peer]
# section"); what stays the gateway's own (its IKE on the data port) refused
ARGS=--new-keys expect 0 '' "$(gw; site | sed '1a ike_initiate = yes')"
ARGS=--new-keys expect 0 '' "$(gw; site | sed '1a ike_initiate = no'; TS=10.8.0.0/16 site t 21 | sed '1a ike_initiate = yes')"
expect 2 "c.conf:29: ike_port is no setting of a \[peer\] section (the gateway's IKE with an IKEv2 site is on its data port" \
  "$(gw; site | sed '1a ike_port = 4501')"
expect 2 "c.conf:29: encap is no setting of a \[peer\] section" "$(gw; site | sed '1a encap = yes')"
expect 2 "c.conf:12: \[peer a\]: ike_initiate is a setting of an IKEv2 peer" "$(gw | sed '11a ike_initiate = yes')"
finish
