#!/usr/bin/env bash
# gostx tunnel refuses bad configurations with one clear line: exit 2 for
# what the user wrote wrong (missing or unknown setting, unknown transform,
# bad SPI, key of the wrong length), exit 1 for what the system refuses
# (port in use, key file unreadable). Runs without root: everything here is
# checked before the TUN device is opened.
. "$(dirname "$0")/../cli_common.sh" tunnel-config

head -c 32 /dev/urandom >"$T/k32"
head -c 44 /dev/urandom >"$T/k44"
head -c 36 /dev/urandom >"$T/k36"
head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n' >"$T/khex"
echo >>"$T/khex"
head -c 31 /dev/urandom >"$T/k31"
head -c 33 /dev/urandom >"$T/k33"
printf 'zz%.0s' $(seq 32) >"$T/kbadhex"

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
# expect CODE PATTERN CONFIG-TEXT: --check exits CODE with one stderr line matching PATTERN
expect() {
  printf '%s\n' "$3" >"$T/c.conf"
  "$G" tunnel --check -c "$T/c.conf" >"$T/out" 2>"$T/err"
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

# the port in use: refused before anything else is set up (no root needed)
python3 - "$T/ready" <<'EOF2' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 45998))
open(sys.argv[1], "w").close()
time.sleep(10)
EOF2
holder=$!
for _ in $(seq 50); do [ -e "$T/ready" ] && break; sleep 0.1; done
base | sed 's/^local.*/local = 127.0.0.1:45998/' >"$T/c.conf"
"$G" tunnel -c "$T/c.conf" 2>"$T/err"
rc=$?
kill $holder 2>/dev/null
wait $holder 2>/dev/null
if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'address in use' "$T/err"; then ok; else
  bad "port in use: exit $rc: $(cat "$T/err")"; fi

# usage errors
"$G" tunnel 2>"$T/err"; [ $? = 2 ] && grep -q -- '-c CONFIG is required' "$T/err" && ok || bad "no -c"
"$G" tunnel --status -c "$T/none.conf" 2>"$T/err"; [ $? = 2 ] && ok || bad "missing config file"
base >"$T/c.conf"
"$G" tunnel --status -c "$T/c.conf" 2>"$T/err"; [ $? = 1 ] && grep -q 'is the tunnel running' "$T/err" && ok ||
  bad "status without a tunnel: $(cat "$T/err")"
finish
