#!/usr/bin/env bash
# same_behaviour_verify.sh OLD [NEW]: the certificate-verification options
# that x509 verify, cms, ts and xml share (-CAfile, -CApath, -untrusted,
# -attime; cli/common/verify_opts.c), run by two gostx builds (OLD: one
# from before that file; NEW: build/gostx) over generated argument lists:
# each command's working call with every variant of those options (none,
# good, missing value, missing or bad file, repeated, the last of two,
# more than a command takes, out of range, long forms, misspelt, unknown)
# appended. Exit codes, stdout and stderr compared byte for byte; prints
# each difference and the counts; exit 0 when all agree, 1 when some
# differ (a report for a reviewer: a difference may be meant). PKI=DIR
# reuses a tests/support/gost_pki.sh folder.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(realpath "${1:?usage: same_behaviour_verify.sh OLD [NEW]}")
NEW=$(realpath "${2:-$ROOT/build/gostx}")
. "$ROOT/scripts/same_behaviour_run.sh"
CA=$PKI/ca.pem INT=$PKI/int.pem LEAF=$PKI/leaf-256A.pem KEY=$PKI/leaf-256A.key

# ---- the inputs, made by NEW (both builds read the same files) ----
printf 'signed content\n' >"$I/data"
head -c 300 /dev/zero | tr '\0' 'g' >"$I/garbage.bin"
: >"$I/empty.pem"
printf '%s\n' "basicConstraints = CA:FALSE" "keyUsage = critical,digitalSignature" \
  "extendedKeyUsage = critical,timeStamping" >"$I/tsa.ext"
printf '<doc><a Id="x">text</a></doc>\n' >"$I/doc.xml"
{
  "$NEW" cms -sign -in "$I/data" -signer "$LEAF" -inkey "$KEY" -out "$I/det.sig" &&
    "$NEW" cms -sign -nodetach -in "$I/data" -signer "$LEAF" -inkey "$KEY" -out "$I/att.sig" &&
    "$NEW" genpkey -c 256A -out "$I/tsa.key" &&
    "$NEW" req -new -key "$I/tsa.key" -subj "/CN=same behaviour TSA" -out "$I/tsa.csr" &&
    "$NEW" x509 -req -in "$I/tsa.csr" -CA "$INT" -CAkey "$PKI/int.key" -extfile "$I/tsa.ext" \
      -out "$I/tsa.pem" &&
    cat "$I/tsa.pem" "$INT" >"$I/tsa-chain.pem" &&
    "$NEW" ts -query -data "$I/data" -cert -out "$I/q.tsq" &&
    "$NEW" ts -reply -queryfile "$I/q.tsq" -signer "$I/tsa.pem" -inkey "$I/tsa.key" \
      -serial "$I/serial" -out "$I/r.tsr" &&
    { ! "$NEW" xml --help >/dev/null 2>&1 ||
      "$NEW" xml sign -in "$I/doc.xml" -ref x -key "$KEY" -cert "$LEAF" -out "$I/signed.xml"; }
} >/dev/null 2>&1 || { echo "same_behaviour_verify: inputs not made" >&2; exit 2; }

# ---- the commands and the variants: @V@ is where the variant goes ----
COMMANDS=(
  "x509 verify @V@ $LEAF"
  "x509 verify @V@ $PKI/chain-256A.pem"
  "cms -verify -in $I/det.sig -content $I/data @V@ -out /dev/null"
  "cms -verify -in $I/att.sig @V@ -out /dev/null"
  "cms -cmsout -in $I/att.sig @V@ -out /dev/null"
  "cms -enhance -in $I/att.sig -to T @V@ -out $T/run/o.sig"
  "ts -verify -data $I/data -in $I/r.tsr @V@"
  "ts -verify -queryfile $I/q.tsq -in $I/r.tsr @V@"
  "ts -query -data $I/data @V@ -out $T/run/o.tsq"
)
"$NEW" xml --help >/dev/null 2>&1 && COMMANDS+=(
  "xml verify -in $I/signed.xml @V@"
  "xml sign -in $I/doc.xml -ref x -key $KEY -cert $LEAF @V@ -out $T/run/o.xml"
)
nine=""
for i in $(seq 9); do nine+=" -untrusted $INT"; done
VARIANTS=(
  "" "-CAfile $CA" "-CAfile" "-CAfile $I/missing.pem" "-CAfile $I/garbage.bin" "-CAfile $I/empty.pem"
  "-CAfile $LEAF" "-CAfile $CA -CAfile $CA" "-CAfile $I/garbage.bin -CAfile $CA" "-CAfile $CA -CAfile $I/missing.pem"
  "--CAfile=$CA" "--CAfile $CA" "-CAfil $CA" "-cafile $CA"
  "-CApath $PKI" "-CApath $I/missing" "-CApath" "-CAfile $CA -CApath $PKI"
  "-CAfile $CA -untrusted $INT" "-CAfile $CA -untrusted $I/tsa-chain.pem" "-CAfile $CA -untrusted"
  "-CAfile $CA -untrusted $I/missing.pem" "-CAfile $CA -untrusted $I/garbage.bin"
  "-CAfile $CA -untrusted $I/garbage.bin -untrusted $INT" "-CAfile $CA -untrusted $INT -untrusted $I/missing.pem"
  "-CAfile $CA$nine" "-untrusted $INT"
  "-CAfile $CA -attime 0" "-CAfile $CA -attime 1700000000" "-CAfile $CA -attime 4102444800"
  "-CAfile $CA -attime 4611686018427387903" "-CAfile $CA -attime 4611686018427387904"
  "-CAfile $CA -attime -5" "-CAfile $CA -attime abc" "-CAfile $CA -attime 0x10" "-CAfile $CA -attime ''"
  "-CAfile $CA -attime" "-CAfile $CA -attime 99999999999999999999999"
  "-CAfile $CA -attime 1700000000 -attime 0" "-attime 1700000000" "--attime=1700000000 -CAfile $CA"
  "-CAfile $CA -noverify" "-noverify" "-CAfile $CA -bogus" "-CAfile $CA -untrusted=$INT"
)

for cmd in "${COMMANDS[@]}"; do
  for v in "${VARIANTS[@]}"; do
    line=${cmd//@V@/$v}
    eval "args=($line)"
    sb_both "gostx ${line//$T/T}" "${args[@]}"
  done
done
sb_summary same_behaviour_verify
