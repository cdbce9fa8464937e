#!/usr/bin/env bash
# same_behaviour_certs.sh [OLD [NEW]]: every command that loads certificate
# files, run by two gostx builds (default /work/old/gostx, the command
# before issue 68's one loader, and build/gostx) on good and bad inputs
# (missing, empty, binary and text garbage, DER, PEM, a PEM bundle, a key
# before the certificate, a key alone, a broken PEM block, a PEM block that
# is no certificate, eleven certificates, stdin): exit codes, stdout and
# stderr compared. Prints each difference and the counts; exit 0 when all
# agree, 1 when some differ (a report for a reviewer: the differences may be
# meant). PKI=DIR reuses a tests/support/gost_pki.sh folder.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(realpath "${1:-/work/old/gostx}")
NEW=$(realpath "${2:-$ROOT/build/gostx}")
. "$ROOT/scripts/same_behaviour_run.sh"

# ---- the inputs: name -> file ----
cp "$PKI/leaf-256A.pem" "$I/leaf.pem"
cp "$PKI/leaf-256A.key" "$I/leaf.key"
cp "$PKI/int.pem" "$I/int.pem"
cp "$PKI/int.key" "$I/int.key"
chmod 600 "$I/leaf.key" "$I/int.key"
python3 - "$I" <<'EOF'
import base64, re, sys
d = sys.argv[1]
pem = open(d + "/leaf.pem").read()
b64 = re.search(r"-----BEGIN CERTIFICATE-----(.*?)-----END", pem, re.S).group(1)
open(d + "/leaf.der", "wb").write(base64.b64decode(b64))
open(d + "/garbage.bin", "wb").write(bytes((i * 37 + 11) % 256 for i in range(300)))
open(d + "/broken.pem", "w").write("-----BEGIN CERTIFICATE-----\nMII!!notbase64\n-----END CERTIFICATE-----\n")
open(d + "/notcert.pem", "w").write("-----BEGIN CERTIFICATE-----\n" + base64.b64encode(b"hello").decode() +
                                    "\n-----END CERTIFICATE-----\n")
EOF
: >"$I/empty.pem"
printf 'hello, not a certificate\n' >"$I/text.txt"
cat "$PKI/chain-256A.pem" "$PKI/ca.pem" >"$I/bundle.pem"
cat "$I/leaf.key" "$I/leaf.pem" >"$I/key-first.pem"
cp "$I/leaf.key" "$I/key-only.pem"
for i in $(seq 11); do cat "$I/leaf.pem"; done >"$I/eleven.pem"
printf 'signed content\n' >"$I/data"
"$NEW" cms -sign -nocerts -in "$I/data" -signer "$I/leaf.pem" -inkey "$I/leaf.key" -out "$I/nocerts.sig" &&
  "$NEW" req -new -key "$I/leaf.key" -subj "/CN=same behaviour" -out "$I/csr.pem" || exit 2
INPUTS="missing empty.pem garbage.bin text.txt leaf.der leaf.pem bundle.pem key-first.pem key-only.pem
broken.pem notcert.pem eleven.pem int.pem -"

# ---- the commands: @F@ is the input under test ----
CA=$PKI/ca.pem
tunnel_conf() {
  printf '%s\n' "local = 127.0.0.1:45999" "peer = 127.0.0.1:46000" "tun = gxsame0" "keying = ikev2" \
    "state = $T/run/ike" "remote_id = C=RU, CN=peer" "ike_auth = cert" "cert = $1" \
    "key = $I/leaf.key" "ca = $CA"
}
COMMANDS=(
  "x509 show @F@"
  "x509 verify -CAfile $CA @F@"
  "x509 verify -CAfile $CA -untrusted @F@ $PKI/leaf-256A.pem"
  "x509 verify -CAfile @F@ $PKI/chain-256A.pem"
  "cms -sign -in $I/data -signer @F@ -inkey $I/leaf.key -out $T/run/o.sig"
  "cms -sign -in $I/data -signer $I/leaf.pem -inkey $I/leaf.key -certfile @F@ -out $T/run/o.sig"
  "cms -verify -in $I/nocerts.sig -content $I/data -CAfile $CA -certfile @F@ -out /dev/null"
  "cms -verify -in $I/nocerts.sig -content $I/data -CAfile $CA -untrusted @F@ -out /dev/null"
  "cms -verify -in $I/nocerts.sig -content $I/data -CAfile @F@ -certfile $PKI/chain-256A.pem -out /dev/null"
  "cms -encrypt -recip @F@ -in $I/data -out $T/run/o.p7m"
  "pkcs12 -export -in @F@ -inkey $I/leaf.key -out $T/run/o.pfx -passout pass:x"
  "pkcs12 -export -in $I/leaf.pem -inkey $I/leaf.key -certfile @F@ -out $T/run/o.pfx -passout pass:x"
  "x509 -req -in $I/csr.pem -CA @F@ -CAkey $I/int.key -out $T/run/o.pem"
  "tls client 127.0.0.1:1 --ca $CA --cert @F@ --key $I/leaf.key"
  "tls client 127.0.0.1:1 --ca @F@"
  "tunnel --check -c $T/run/tunnel.conf"
)

for cmd in "${COMMANDS[@]}"; do
  for f in $INPUTS; do
    case $f in
      missing) path=$I/missing.pem stdin=/dev/null ;;
      -) path=- stdin=$I/bundle.pem ;;
      *) path=$I/$f stdin=/dev/null ;;
    esac
    tunnel_conf "$path" >"$T/run/tunnel.conf"
    read -r -a args <<<"${cmd//@F@/$path}"
    sb_both "gostx ${cmd//@F@/$f} (input $f)" "${args[@]}"
  done
done
sb_summary same_behaviour_certs
