#!/usr/bin/env bash
# gostx tls's usage text and its refusals of bad arguments, compared between
# two builds of the command (a file split must change neither): each case's
# exit status, stdout and stderr. Nothing here listens or connects except to
# a port nothing listens on (127.0.0.1:1).
# Usage: scripts/same_behaviour_tls.sh OLD_GOSTX NEW_GOSTX
set -uo pipefail
old=${1:?old gostx}
new=${2:?new gostx}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'not a certificate\n' >"$tmp/junk.pem"
printf '[a]\nlisten = 127.0.0.1:0\n' >"$tmp/bad.conf"
cases=(
  "tls"
  "tls --help"
  "tls -h"
  "tls bogus"
  "tls serve --help"
  "tls serve -help"
  "tls client -h"
  "tls connect --help"
  "tls serve"
  "tls connect"
  "tls client"
  "tls client --insecure"
  "tls client 127.0.0.1:1 127.0.0.1:2 --insecure"
  "tls client 127.0.0.1:1"
  "tls client 127.0.0.1:1 --insecure --ca $tmp/junk.pem"
  "tls client 127.0.0.1:1 --insecure --version 1.4"
  "tls client 127.0.0.1:1 --insecure --suites NOPE"
  "tls client 127.0.0.1:1 --insecure --groups NOPE"
  "tls client 127.0.0.1:1 --insecure --version 1.2 --suites MAGMA_MGM_L"
  "tls client 127.0.0.1:1 --insecure --timeout 0"
  "tls client 127.0.0.1:1 --insecure --listen 127.0.0.1:0"
  "tls client 127.0.0.1:1 --insecure --psk nocolon"
  "tls client 127.0.0.1:1 --insecure --psk id:00"
  "tls client 127.0.0.1:1 --insecure --servername bad..name"
  "tls client 127.0.0.1:1 --ca $tmp/junk.pem"
  "tls client 127.0.0.1:1 --ca $tmp/missing.pem"
  "tls client nohostport --insecure"
  "tls client 127.0.0.1:1 --insecure --timeout 2"
  "tls client 127.0.0.1:1 --insecure --no-such-option"
  "tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:1"
  "tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:1 --cert $tmp/junk.pem --key $tmp/junk.pem"
  "tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:1 --cert $tmp/missing.pem --key $tmp/missing.pem"
  "tls serve --listen bad --backend 127.0.0.1:1 --psk id:$(printf '%064d' 0)"
  "tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:1 --psk id:$(printf '%064d' 0) --threads 0"
  "tls serve --listen 127.0.0.1:0 --backend 127.0.0.1:1 --psk id:$(printf '%064d' 0) --servername x"
  "tls serve -c $tmp/bad.conf"
  "tls serve -c $tmp/missing.conf"
  "tls serve -c $tmp/bad.conf --threads 2"
  "tls connect -c $tmp/bad.conf"
  "tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:1"
  "tls connect --listen 127.0.0.1:0 --upstream 127.0.0.1:1 --insecure --servername bad..name"
  "tls connect --listen 127.0.0.1:0 --backend 127.0.0.1:1 --insecure"
)
fail=0
for c in "${cases[@]}"; do
  for which in old new; do
    bin=${!which}
    # shellcheck disable=SC2086  # the case is words
    timeout 20 "$bin" $c </dev/null >"$tmp/$which.out" 2>"$tmp/$which.err"
    echo $? >"$tmp/$which.rc"
    sed -i "s|$bin|GOSTX|g" "$tmp/$which.out" "$tmp/$which.err"
  done
  for part in rc out err; do
    if ! cmp -s "$tmp/old.$part" "$tmp/new.$part"; then
      echo "DIFFERS ($part): gostx $c"
      diff "$tmp/old.$part" "$tmp/new.$part" | head -10
      fail=1
    fi
  done
done
echo "${#cases[@]} cases: $([ $fail = 0 ] && echo same || echo differ)"
exit $fail
