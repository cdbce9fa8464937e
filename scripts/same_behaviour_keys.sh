#!/usr/bin/env bash
# Issue 68: the key object change must not change what the command does with
# keys. Runs an old gostx (before the change) and a new one on the same
# generated argument sets and compares: deterministic outputs byte for byte
# (pkey in every output form, public halves, -text, the key a PFX gives
# back, the key a PFX of the other binary holds), signatures, requests,
# certificates and PFX files (random: nonces, salts) across (old verifies or
# reads new's, new old's). Prints the counts; exit 1 on any difference.
#
#   scripts/same_behaviour_keys.sh OLD_GOSTX NEW_GOSTX
set -u
old=${1:?old gostx}
new=${2:?new gostx}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
same=0 cross=0 bad=0
ok() { eval "$1=\$(($1 + 1))"; }
fail() { echo "DIFFERS: $*"; bad=$((bad + 1)); }
# cmp_run NAME ARGS...: both binaries, the same arguments (OUT in them is
# each one's output file), stdout, stderr, exit status and OUT compared.
cmp_run() {
  local name=$1 b rc
  shift
  for b in old new; do
    local bin=${!b}
    "$bin" "${@//OUT/$w/$b.out}" >"$w/$b.stdout" 2>"$w/$b.stderr"
    echo $? >"$w/$b.rc"
    [ -f "$w/$b.out" ] || : >"$w/$b.out"
    sed -i "s|$bin|GOSTX|g; s|$w/[a-z]*\.out|OUT|g" "$w/$b.stderr"
  done
  for f in stdout stderr rc out; do
    cmp -s "$w/old.$f" "$w/new.$f" || { fail "$name: $f"; return; }
  done
  rm -f "$w/old.out" "$w/new.out"
  ok same
}
# cross_ok NAME CMD...: must exit 0 (one binary checking the other's output)
cross_ok() {
  local name=$1
  shift
  "$@" >/dev/null 2>&1 && ok cross || fail "$name: $*"
}

head -c 3000 /dev/urandom >"$w/msg"
for curve in 256A 256B 256C 256D 512A 512B 512C 256TEST 512TEST; do
  k=$w/k$curve.pem
  "$old" genpkey -c "$curve" -o "$k" 2>/dev/null || { fail "genpkey $curve"; continue; }
  "$old" pkey -in "$k" -passout pass:pw -o "$w/e$curve.pem" 2>/dev/null
  "$old" pkey -in "$k" -outform DER -o "$w/k$curve.der" 2>/dev/null
  for in in "$k" "$w/k$curve.der"; do
    cmp_run "pkey $curve $in" pkey -in "$in" -o OUT
    cmp_run "pkey -pubout $curve" pkey -in "$in" -pubout -o OUT
    cmp_run "pkey -pubout DER $curve" pkey -in "$in" -pubout -outform DER -o OUT
    cmp_run "pkey -text $curve" pkey -in "$in" -text -o OUT
    cmp_run "pkey -text -pubout $curve" pkey -in "$in" -text -pubout -o OUT
  done
  cmp_run "pkey encrypted $curve" pkey -in "$w/e$curve.pem" -passin pass:pw -o OUT
  cmp_run "pkey wrong password $curve" pkey -in "$w/e$curve.pem" -passin pass:no -o OUT
  cmp_run "pkey no password $curve" pkey -in "$w/e$curve.pem" -o OUT
  "$old" pkey -in "$k" -pubout -o "$w/p$curve.pem" 2>/dev/null
  cmp_run "pkey public in $curve" pkey -in "$w/p$curve.pem" -o OUT
  cmp_run "sign with a public key $curve" sign -k "$w/p$curve.pem" -o OUT "$w/msg"
  # encrypted keys written by the new binary: the old one reads them
  "$new" pkey -in "$k" -passout pass:pw -magma-ctr-acpkm -o "$w/n$curve.pem" 2>/dev/null
  cross_ok "new's encrypted key, old reads" "$old" pkey -in "$w/n$curve.pem" -passin pass:pw
  "$old" pkey -in "$w/n$curve.pem" -passin pass:pw -o "$w/back.pem" 2>/dev/null
  cmp -s "$w/back.pem" "$k" && ok same || fail "round trip through new's encrypted key $curve"
  # signatures: each binary verifies the other's, with the private and public key
  for s in old new; do
    "${!s}" sign -k "$k" -o "$w/sig.$s" "$w/msg" 2>/dev/null || fail "sign $s $curve"
  done
  cross_ok "old verifies new's signature $curve" "$old" verify -p "$w/p$curve.pem" -s "$w/sig.new" "$w/msg"
  cross_ok "new verifies old's signature $curve" "$new" verify -p "$w/p$curve.pem" -s "$w/sig.old" "$w/msg"
  cross_ok "new verifies new's with -k $curve" "$new" verify -k "$k" -s "$w/sig.new" "$w/msg"
  cmp_run "verify a bad signature $curve" verify -p "$w/p$curve.pem" -s "$w/msg" "$w/msg"
  # requests and self-signed certificates: each verifies the other's
  for s in old new; do
    "${!s}" req -new -key "$w/e$curve.pem" -passin pass:pw -subj "/CN=k$curve" -out "$w/req.$s" 2>/dev/null ||
      fail "req $s $curve"
  done
  cross_ok "old verifies new's request $curve" "$old" req -verify -in "$w/req.new" -noout
  cross_ok "new verifies old's request $curve" "$new" req -verify -in "$w/req.old" -noout
  case $curve in *TEST) continue ;; esac # no signature OID for the example curves' certificates
  for s in old new; do
    "${!s}" req -x509 -key "$k" -subj "/CN=c$curve" -days 30 -out "$w/crt.$s" 2>/dev/null ||
      fail "req -x509 $s $curve"
  done
  cmp_run "x509 -text of old's certificate $curve" x509 -in "$w/crt.old" -noout -text
  cmp_run "x509 -pubkey of new's certificate $curve" x509 -in "$w/crt.new" -noout -pubkey
  # PKCS#12: each reads the other's file; the key and certificate it gives back compared
  for s in old new; do
    "${!s}" pkcs12 -export -inkey "$k" -in "$w/crt.old" -passout pass:pw -iter 10 -out "$w/pfx.$s" 2>/dev/null ||
      fail "pkcs12 -export $s $curve"
  done
  cmp_run "pkcs12 -nodes of old's PFX $curve" pkcs12 -in "$w/pfx.old" -passin pass:pw -noenc -o OUT
  cmp_run "pkcs12 -nodes of new's PFX $curve" pkcs12 -in "$w/pfx.new" -passin pass:pw -noenc -o OUT
  cmp_run "pkcs12 -info of new's PFX $curve" pkcs12 -in "$w/pfx.new" -passin pass:pw -info -noout
  cmp_run "pkcs12 wrong password $curve" pkcs12 -in "$w/pfx.new" -passin pass:no -noenc -o OUT
  cmp_run "sign with the PFX's key $curve" pkey -in "$w/pfx.old" -passin pass:pw -pubout -o OUT
done
# malformed key files: the same refusal, word for word
printf 'not a key\n' >"$w/junk.pem"
head -c 100 /dev/urandom >"$w/junk.der"
printf '\x30\x03\x02\x01\x00' >"$w/short.der"
for f in junk.pem junk.der short.der; do
  cmp_run "pkey $f" pkey -in "$w/$f" -o OUT
done
echo "same_behaviour_keys: $same outputs byte for byte the same, $cross cross-checks passed, $bad differences"
[ "$bad" = 0 ]
