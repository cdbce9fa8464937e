#!/usr/bin/env bash
# Keys on a PKCS#11 token through `pkcs11:` URIs (docs/PKCS11.md), against
# gostx's own module (build/libgostx-pkcs11.so) with tokens under a scratch
# GOSTX_PKCS11_DIR, made and filled with OpenSC's pkcs11-tool (a consumer we
# did not write): 256- and 512-bit keys generated on the token; gostx sign
# (checked by gostx verify and openssl + gost-engine), pkey -pubout, a
# GOST R 34.10-2001 key (written and signed as one; refused on a tc26 set), req
# -x509 and x509 -req -CA with the CA key and certificate on the token, cms
# -sign (checked by gostx cms -verify and openssl cms), cms -decrypt (VKO
# on the token), ts -reply with the TSA's key and certificate on the token,
# an OCSP response signed by the token CA (-reqin/-respout), tunnel --check
# with the IKEv2 identity on the token,
# xml sign, tls serve with the server's key and certificate on the token
# against tls client (one, then four at once on four workers) and openssl
# s_client (TLS 1.2: VKO on the token);
# and the refusals: the private half and pkcs12 -export (non-extractable),
# a token signature that does not verify under the key's certificate,
# pin-value on the command line, a wrong PIN tried once (the token's
# counter shows one failure), a locked PIN, a token removed while tls serve
# holds its key (named when the server reloads). Skipped (77) without the
# module or pkcs11-tool.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" p11_cli
MOD=$(dirname "$G")/libgostx-pkcs11.so
[ -f "$MOD" ] || { echo "$MOD not built: skipping"; exit 77; }
command -v pkcs11-tool >/dev/null || { echo "pkcs11-tool (OpenSC) not installed: skipping"; exit 77; }
export GOSTX_PKCS11_DIR=$T/tokens
export GOSTX_PKCS11_KDF_ITER=2000 # a short PIN KDF for the tokens made here: a dozen logins below
mkdir -p "$GOSTX_PKCS11_DIR"
unset GOSTX_PKCS11_PIN
P11=(pkcs11-tool --module "$MOD")
# A sanitizer build's module needs its runtime first in a program that was
# not built with it (pkcs11-tool): preloaded there, leaks not counted (they
# would be pkcs11-tool's); gostx itself carries the runtime.
ASAN_RT=$(ldd "$MOD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
[ -n "$ASAN_RT" ] && P11=(env LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS=detect_leaks=0 "${P11[@]}")
echo 1234 >"$T/pin"
chmod 600 "$T/pin"

# mktoken LABEL: a token with SO PIN 87654321 and user PIN 1234, made in
# the module's free slot (pkcs11-tool would take the first slot)
mktoken() {
  local free
  free=$("${P11[@]}" -L 2>/dev/null | sed -n 's/^Slot [0-9]* (\(0x[0-9a-f]*\)): gostx free slot.*/\1/p')
  [ -n "$free" ] && "${P11[@]}" --slot "$free" --init-token --label "$1" --so-pin 87654321 >/dev/null 2>&1 &&
    "${P11[@]}" --token-label "$1" --login --login-type so --so-pin 87654321 --init-pin \
      --pin 1234 >/dev/null 2>&1
}
mktoken t1 && "${P11[@]}" --token-label t1 -l --pin 1234 --keypairgen \
  --key-type GOSTR3410-2012-256:B --label k256 --id 0a01 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 -l --pin 1234 --keypairgen --key-type GOSTR3410-2012-512:A \
    --label k512 --id 0a02 --usage-sign --usage-derive >/dev/null 2>&1 || { echo "FAIL: pkcs11-tool could not make the token"; exit 1; }
K256="pkcs11:token=t1;object=k256;type=private?module-path=$MOD&pin-source=$T/pin"
K512="pkcs11:token=t1;object=k512?module-path=$MOD&pin-source=file:$T/pin"
echo "data to sign" >"$T/msg"
have_engine=0
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 && have_engine=1

# sign and verify with both keys, the PIN from pin-source, -passin and the environment
"$G" pkey -i "$K256" -pubout -o "$T/k256.pub" 2>"$T/err" || bad "pkey -pubout 256: $(cat "$T/err")"
"$G" pkey -i "pkcs11:token=t1;object=k512?module-path=$MOD" -passin "file:$T/pin" -pubout \
  -o "$T/k512.pub" 2>"$T/err" || bad "pkey -pubout 512 -passin: $(cat "$T/err")"
"$G" sign -k "$K256" -o "$T/s256" "$T/msg" 2>"$T/err" || bad "sign 256: $(cat "$T/err")"
GOSTX_PKCS11_PIN=1234 "$G" sign -k "pkcs11:token=t1;object=k512?module-path=$MOD" -o "$T/s512" \
  "$T/msg" </dev/null 2>"$T/err" || bad "sign 512 with GOSTX_PKCS11_PIN: $(cat "$T/err")"
for b in 256 512; do
  check "gostx verify $b" "$G" verify -k "$T/k$b.pub" -signature "$T/s$b" "$T/msg" >/dev/null 2>&1
  if [ $have_engine = 1 ]; then
    openssl dgst -engine gost -md_gost12_$b -verify "$T/k$b.pub" -signature "$T/s$b" "$T/msg" \
      >"$T/out" 2>&1 && grep -q 'Verified OK' "$T/out" && ok || bad "openssl verifies $b: $(cat "$T/out")"
  fi
done

# No module in the URI: p11-kit's proxy (every module p11-kit registered),
# and module-name=gostx (p11-kit's name for the module: its .module file),
# with the shipped module file pointed at this build in a scratch HOME's
# ~/.config/pkcs11/modules. p11-kit reads no user configuration for root,
# so root runs them as uid 1000 in a user namespace of its own (the files
# still its own outside).
as_user=()
[ "$(id -u)" = 0 ] && as_user=(unshare --user --map-user=1000 --map-group=1000)
mkdir -p "$T/home/.config/pkcs11/modules"
sed "s|^module: .*|module: $MOD|" "$HERE/../integrations/pkcs11/gostx.module" \
  >"$T/home/.config/pkcs11/modules/gostx.module"
if ! HOME=$T/home "${as_user[@]}" true 2>/dev/null; then
  echo "SKIP: the p11-kit proxy cases (no user namespace for uid 1000 here)"
elif ! command -v p11-kit >/dev/null; then
  echo "SKIP: the p11-kit proxy cases (p11-kit not installed)"
else
  for q in "" "module-name=gostx&"; do
    rm -f "$T/skit"
    HOME=$T/home "${as_user[@]}" "$G" sign -k "pkcs11:token=t1;object=k256;type=private?${q}pin-source=$T/pin" \
      -o "$T/skit" "$T/msg" 2>"$T/err" &&
      "$G" verify -k "$T/k256.pub" -signature "$T/skit" "$T/msg" >/dev/null 2>>"$T/err" && ok ||
      bad "sign through p11-kit (${q:-no module in the URI}): $(cat "$T/err")"
  done
fi

# the private half stays on the token
"$G" pkey -i "$K256" -o "$T/priv.pem" 2>"$T/err"
[ $? = 1 ] && grep -q 'on a token and cannot be exported' "$T/err" && [ ! -e "$T/priv.pem" ] && ok ||
  bad "pkey writes the token's private key: $(cat "$T/err")"

# a CA on the token: its self-signed certificate stored beside its key
# (same CKA_ID), then taken from there by -CA; a 512-bit signer it issues
"$G" req -x509 -ca -key "$K256" -subj /CN=Token-CA -out "$T/ca.pem" 2>"$T/err" || bad "req -x509: $(cat "$T/err")"
"$G" x509 -in "$T/ca.pem" -outform DER -out "$T/ca.der" 2>/dev/null ||
  openssl x509 -in "$T/ca.pem" -outform DER -out "$T/ca.der"
"${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/ca.der" --type cert --id 0a01 \
  --label k256 >/dev/null 2>&1 || bad "pkcs11-tool stores the CA certificate"
"$G" req -new -key "$K512" -subj /CN=Token-signer -addext "keyUsage = digitalSignature,keyAgreement" \
  -addext "subjectAltName = DNS:localhost" -out "$T/s512.csr" 2>"$T/err" || bad "req -new: $(cat "$T/err")"
"$G" x509 -req -in "$T/s512.csr" -CA "$K256" -copy_extensions copy -out "$T/s512.pem" 2>"$T/err" ||
  bad "x509 -req -CA on the token: $(cat "$T/err")"
check "x509 verify of what the token CA issued" "$G" x509 verify -CAfile "$T/ca.pem" "$T/s512.pem" \
  >/dev/null
openssl x509 -in "$T/s512.pem" -outform DER -out "$T/s512.der" 2>/dev/null
"${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/s512.der" --type cert --id 0a02 \
  --label k512 >/dev/null 2>&1 || bad "pkcs11-tool stores the signer's certificate"
# one-byte IDs are bytes, not booleans: --id 01 and --id 02 each find their
# own certificate (the module once matched any two non-zero bytes, so both
# searches gave the same first object)
"${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/ca.der" --type cert --id 01 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/s512.der" --type cert --id 02 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 --read-object --type cert --id 01 -o "$T/id01.der" >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 --read-object --type cert --id 02 -o "$T/id02.der" >/dev/null 2>&1 &&
  cmp -s "$T/id01.der" "$T/ca.der" && cmp -s "$T/id02.der" "$T/s512.der" && ok ||
  bad "pkcs11-tool --id 01 / --id 02 did not read the certificates with those IDs"

# CMS: the signer's certificate and key both from the token
"$G" cms -sign -signer "$K512" -inkey "$K512" -in "$T/msg" -nodetach -out "$T/msg.p7s" 2>"$T/err" ||
  bad "cms -sign: $(cat "$T/err")"
"$G" cms -verify -in "$T/msg.p7s" -CAfile "$T/ca.pem" -out "$T/msg.out" 2>"$T/err" &&
  cmp -s "$T/msg" "$T/msg.out" && ok || bad "cms -verify: $(cat "$T/err")"
# the PIN from -passin while the certificate is read first: a certificate
# takes no login, so nothing asks for the PIN before the key does
K512NP="pkcs11:token=t1;object=k512?module-path=$MOD"
"$G" cms -sign -signer "$K512NP" -inkey "$K512NP" -passin "file:$T/pin" -in "$T/msg" -nodetach \
  -out "$T/msg2.p7s" </dev/null 2>"$T/err" &&
  "$G" cms -verify -in "$T/msg2.p7s" -CAfile "$T/ca.pem" -out /dev/null 2>>"$T/err" && ok ||
  bad "cms -sign with the PIN from -passin: $(cat "$T/err")"
"$G" cms -sign -signer "pkcs11:token=t1;object=k512;type=cert?module-path=$MOD" -inkey "$K512NP" \
  -in "$T/msg" -out "$T/msg3.p7s" </dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "needs the user PIN and none was given" "$T/err" && ok ||
  bad "no PIN anywhere (a type=cert URI read without one): $(cat "$T/err")"
if [ $have_engine = 1 ]; then
  openssl cms -engine gost -verify -in "$T/msg.p7s" -inform PEM -CAfile "$T/ca.pem" -binary \
    -out "$T/msg.ossl" >/dev/null 2>"$T/err" && cmp -s "$T/msg" "$T/msg.ossl" && ok ||
    bad "openssl cms -verify: $(tail -2 "$T/err")"
fi

# CMS decryption: the key agreement (VKO) on the token, for a recipient
# whose 512-bit key and certificate are there
"$G" cms -encrypt -recip "$T/s512.pem" -in "$T/msg" -out "$T/msg.enc" 2>"$T/err" || bad "cms -encrypt: $(cat "$T/err")"
"$G" cms -decrypt -in "$T/msg.enc" -recip "$K512" -inkey "$K512" -out "$T/msg.dec" 2>"$T/err" &&
  cmp -s "$T/msg" "$T/msg.dec" && ok || bad "cms -decrypt with the token's key: $(cat "$T/err")"

# A GOST R 34.10-2001 key on the token (pkcs11-tool's GOSTR3410 type: its
# CKA_GOSTR3411_PARAMS are GOST R 34.11-94's): its public half is written
# as a 2001 key; every command that signs an object refuses it by name
# (exit 2), since those signatures are 2012 ones under 2012 OIDs (gostx
# sign makes a bare 2001 signature with it: the t2001 case below)
if "${P11[@]}" --token-label t1 -l --pin 1234 --keypairgen --key-type GOSTR3410:A --label k01 \
  --id 0a09 >/dev/null 2>&1; then
  K01="pkcs11:token=t1;object=k01;type=private?module-path=$MOD&pin-source=$T/pin"
  "$G" pkey -i "$K01" -pubout -o "$T/k01.pub" 2>"$T/err" && command -v openssl >/dev/null &&
    openssl asn1parse -in "$T/k01.pub" 2>&1 | grep -q ':GOST R 34.10-2001$' && ok ||
    bad "pkey -pubout of a 2001 key: a 2001 public key: $(cat "$T/err")"
  for cmd in "req -x509 -key $K01 -subj /CN=k01 -out $T/k01.pem" \
    "cms -sign -signer $T/ca.pem -inkey $K01 -in $T/msg -out $T/m01.p7s" \
    "tls serve --cert $T/ca.pem --key $K01 --listen 127.0.0.1:0 --backend 127.0.0.1:9"; do
    # shellcheck disable=SC2086 # the words of one command line; no blanks in its paths
    "$G" $cmd </dev/null >/dev/null 2>"$T/err"
    [ $? = 2 ] && grep -q "is a GOST R 34.10-2001 key; .* needs GOST R 34.10-2012" "$T/err" && ok ||
      bad "gostx ${cmd%% *} with a 2001 key: refused by name (exit 2): $(cat "$T/err")"
  done
  [ ! -e "$T/k01.pem" ] && [ ! -e "$T/m01.p7s" ] && ok || bad "a 2001 key signed an object"
else
  bad "pkcs11-tool could not make a GOSTR3410 (2001) key pair"
fi

# XMLDSig
if "$G" xml --help >/dev/null 2>&1; then
  printf '<doc><item Id="a">text</item></doc>' >"$T/in.xml"
  "$G" xml sign -in "$T/in.xml" -ref '' -key "$K512" -cert "$K512" -out "$T/signed.xml" 2>"$T/err" ||
    bad "xml sign: $(cat "$T/err")"
  check "xml verify" "$G" xml verify -in "$T/signed.xml" -CAfile "$T/ca.pem" >/dev/null 2>&1
fi

# RFC 3161: a TSA whose key and certificate (issued by the token CA, put
# beside the key) are on the token
"${P11[@]}" --token-label t1 -l --pin 1234 --keypairgen --key-type GOSTR3410-2012-256:A \
  --label tsa --id 0a04 >/dev/null 2>&1 || bad "pkcs11-tool makes the TSA key"
KT="pkcs11:token=t1;object=tsa?module-path=$MOD&pin-source=$T/pin"
"$G" req -new -key "$KT" -subj /CN=Token-TSA -addext "keyUsage = critical,digitalSignature" \
  -addext "extendedKeyUsage = critical,timeStamping" -out "$T/tsa.csr" 2>"$T/err" &&
  "$G" x509 -req -in "$T/tsa.csr" -CA "$K256" -copy_extensions copy -out "$T/tsa.pem" 2>>"$T/err" &&
  openssl x509 -in "$T/tsa.pem" -outform DER -out "$T/tsa.der" 2>>"$T/err" &&
  "${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/tsa.der" --type cert --id 0a04 \
    --label tsa >/dev/null 2>&1 || bad "the TSA certificate: $(cat "$T/err")"
echo 1 >"$T/tsa.serial"
"$G" ts -query -data "$T/msg" -cert -out "$T/q.tsq" 2>"$T/err" &&
  "$G" ts -reply -queryfile "$T/q.tsq" -signer "$KT" -inkey "$KT" -serial "$T/tsa.serial" \
    -out "$T/r.tsr" 2>>"$T/err" || bad "ts -reply with the token's key: $(cat "$T/err")"
check "ts -verify of the token TSA's stamp" "$G" ts -verify -data "$T/msg" -in "$T/r.tsr" \
  -CAfile "$T/ca.pem" >/dev/null 2>&1

# OCSP: the token CA answers for what it issued (its key and certificate on
# the token), offline: -reqin once, -respout
serial=$(openssl x509 -in "$T/s512.pem" -noout -serial | sed 's/serial=//')
printf 'V\t301231000000Z\t\t%s\tunknown\t/CN=Token-signer\n' "$serial" >"$T/index.txt"
"$G" ocsp -issuer "$T/ca.pem" -cert "$T/s512.pem" -reqout "$T/oreq.der" -respin /dev/null >/dev/null 2>&1
"$G" ocsp -index "$T/index.txt" -CA "$T/ca.pem" -rsigner "$K256" -rkey "$K256" -reqin "$T/oreq.der" \
  -respout "$T/oresp.der" 2>"$T/err" || bad "ocsp responder with the token's key: $(cat "$T/err")"
"$G" ocsp -issuer "$T/ca.pem" -cert "$T/s512.pem" -reqin "$T/oreq.der" -respin "$T/oresp.der" \
  >"$T/ocsp.out" 2>&1 && grep -q 'good' "$T/ocsp.out" && ok || bad "ocsp response of the token CA: $(cat "$T/ocsp.out")"

# the tunnel's IKEv2 identity: key (and cert) on the token, as --check
# loads them (the exchange itself needs namespaces: tests/net)
printf '%s\n' "local = 127.0.0.1:4500" "peer = 127.0.0.2:4500" "tun = gxp11" "keying = ikev2" \
  "ike_initiate = yes" "ike_auth = cert" "cert = $K512" "key = $K512" "ca = $T/ca.pem" \
  "remote_id = CN=peer" "state = $T/t.state" >"$T/t.conf"
"$G" tunnel --check -c "$T/t.conf" >/dev/null 2>"$T/err" && ok || bad "tunnel --check with a token key: $(cat "$T/err")"

# pkcs12 -export of a token key: refused by name
"$G" pkcs12 -export -inkey "$K512" -in "$T/s512.pem" -passout pass:x -out "$T/x.pfx" 2>"$T/err"
[ $? = 1 ] && grep -q 'cannot be exported' "$T/err" && [ ! -e "$T/x.pfx" ] && ok ||
  bad "pkcs12 -export of a token key: $(cat "$T/err")"

# a key whose certificate (same CKA_ID, no public key object) is another
# key's: the token's signature does not verify under it, and is refused
"${P11[@]}" --token-label t1 -l --pin 1234 --keypairgen --key-type GOSTR3410-2012-256:B \
  --label k3 --id 0a03 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 -l --pin 1234 --delete-object --type pubkey --id 0a03 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label t1 -l --pin 1234 --write-object "$T/ca.der" --type cert --id 0a03 \
    --label k3 >/dev/null 2>&1 || bad "pkcs11-tool makes the mismatched key"
"$G" sign -k "pkcs11:token=t1;object=k3?module-path=$MOD&pin-source=$T/pin" -o "$T/k3.sig" "$T/msg" 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q 'answered a signature that does not verify' "$T/err" && [ ! -e "$T/k3.sig" ] && ok ||
  bad "a signature that does not verify under the certificate's key: rc $rc: $(cat "$T/err")"

# pin-value on the command line: refused, saying why and what to use instead
"$G" sign -k "pkcs11:token=t1;object=k256?module-path=$MOD&pin-value=1234" -o "$T/x" "$T/msg" 2>"$T/err"
[ $? = 2 ] && grep -q 'visible to other users' "$T/err" && grep -q 'pin-source' "$T/err" && ok ||
  bad "pin-value accepted: $(cat "$T/err")"
# URIs that name nothing (t1 holds five private keys: k256, k512, k01, tsa and k3)
"$G" sign -k "pkcs11:token=t1?module-path=$MOD" -passin "file:$T/pin" -o "$T/x" "$T/msg" 2>"$T/err"
[ $? = 1 ] && grep -q '5 private keys match' "$T/err" && ok || bad "two keys: $(cat "$T/err")"
"$G" sign -k "pkcs11:token=none;object=k256?module-path=$MOD" -o "$T/x" "$T/msg" 2>"$T/err"
[ $? = 1 ] && grep -q "no PKCS#11 token matches.*its tokens: 't1'" "$T/err" && ok || bad "no token: $(cat "$T/err")"
"$G" sign -k "pkcs11:object=k256?module-path=$T/none.so" -o "$T/x" "$T/msg" 2>"$T/err"
[ $? = 1 ] && grep -q "cannot load PKCS#11 module $T/none.so" "$T/err" && ok || bad "no module: $(cat "$T/err")"
"$G" sign -k "pkcs11:object=k256;vendor-x=1?module-path=$MOD" -o "$T/x" "$T/msg" 2>"$T/err"
[ $? = 1 ] && grep -q "'vendor-x' is not one gostx knows" "$T/err" && ok || bad "vendor attribute: $(cat "$T/err")"

# PINs on a token of their own: one wrong PIN is one failure on the
# token's counter (token.meta's user failure count, 4 bytes big-endian at
# offset 64), never retried; the tenth locks the PIN, and then it is named
# as locked without a try.
mktoken t2 && "${P11[@]}" --token-label t2 -l --pin 1234 --keypairgen \
  --key-type GOSTR3410-2012-256:A --label k --id 0b01 >/dev/null 2>&1 || bad "token t2"
META=$(ls "$GOSTX_PKCS11_DIR"/*/token.meta | while read -r f; do
  grep -q t2 "$f" && echo "$f"; done | head -1)
fails() { echo $(( $(od -An -tu1 -j64 -N4 "$META" | awk '{print $1*16777216+$2*65536+$3*256+$4}') )); }
K2="pkcs11:token=t2;object=k?module-path=$MOD"
# The first wrong PIN through OpenSC's pkcs11-spy (found by module-name in
# the system's module folder; it forwards to $PKCS11SPY and logs each
# call), so the log shows the one C_Login; without the spy, directly.
SPY=
for d in /usr/lib/x86_64-linux-gnu/pkcs11 /usr/lib/aarch64-linux-gnu/pkcs11 /usr/lib64/pkcs11 /usr/lib/pkcs11; do
  [ -f "$d/pkcs11-spy.so" ] && SPY=1
done
# OpenSC's spy keeps what it allocates past C_Finalize, and gostx then
# unloads it: under a sanitizer build LeakSanitizer would count the spy's
# memory as gostx's, so this one call runs without leak checking (the
# direct wrong-PIN calls below keep it).
SPY_ASAN=${ASAN_OPTIONS:-}
[ -n "$ASAN_RT" ] && SPY_ASAN=${SPY_ASAN:+$SPY_ASAN:}detect_leaks=0
if [ -n "$SPY" ]; then
  ASAN_OPTIONS=$SPY_ASAN PKCS11SPY=$MOD PKCS11SPY_OUTPUT=$T/spy.log "$G" sign -k "pkcs11:token=t2;object=k?module-name=pkcs11-spy" \
    -passin pass:9999 -o "$T/x" "$T/msg" 2>"$T/err"
  rc=$?
  [ "$(grep -c '^[0-9]*: C_Login$' "$T/spy.log")" = 1 ] && ok ||
    bad "C_Login calls for one wrong PIN: $(grep -c '^[0-9]*: C_Login$' "$T/spy.log")"
else
  "$G" sign -k "$K2" -passin pass:9999 -o "$T/x" "$T/msg" 2>"$T/err"
  rc=$?
fi
[ $rc = 1 ] && grep -q "wrong PIN for PKCS#11 token 't2' (CKR_PIN_INCORRECT; not retried" "$T/err" &&
  [ "$(fails)" = 1 ] && ok || bad "wrong PIN: rc $rc, counter $(fails): $(cat "$T/err")"
for i in 2 3 4 5 6 7 8 9; do "$G" sign -k "$K2" -passin pass:9999 -o "$T/x" "$T/msg" 2>"$T/err"; done
[ "$(fails)" = 9 ] && grep -q 'one more wrong PIN will lock it' "$T/err" && ok ||
  bad "after 9 wrong PINs: counter $(fails): $(cat "$T/err")"
"$G" sign -k "$K2" -passin pass:9999 -o "$T/x" "$T/msg" 2>"$T/err"
grep -q 'the user PIN is now locked' "$T/err" && ok || bad "the tenth wrong PIN: $(cat "$T/err")"
"$G" sign -k "$K2" -passin pass:1234 -o "$T/x" "$T/msg" 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "the user PIN of PKCS#11 token 't2' is locked" "$T/err" && [ "$(fails)" = 10 ] && ok ||
  bad "locked PIN: rc $rc: $(cat "$T/err")"

# TLS: the server's certificate and key on the token; then the token
# removed (its folder moved away) while the server runs
TLS_HERE=$HERE/net
. "$HERE/net/tls_common.sh"
PIDS=()
trap 'pids_stop; rm -rf "$T"' EXIT
if tls_echo && tls_start srv tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$(cat "$T/echo.port")" \
  --cert "$K512" --key "$K512" --threads 1; then
  echo "over a token key" | timeout "$(bound 20)" "$G" tls client "127.0.0.1:$PORT" --ca "$T/ca.pem" \
    --servername localhost --close-on-eof >"$T/tls.out" 2>"$T/tls.err"
  grep -q 'over a token key' "$T/tls.out" && ok || bad "tls client to a token-keyed server: $(cat "$T/tls.err" "$T/srv.log")"
  kill "$PID"
  wait "$PID" 2>/dev/null
  if [ $have_engine = 1 ]; then
    # TLS 1.2 to openssl s_client with gost-engine: the key exchange (KEG,
    # VKO 512) made on the token
    if tls_start ossl tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$(cat "$T/echo.port")" \
      --cert "$K512" --key "$K512" --threads 1 --version 1.2; then
      # the handshake done (its Finished proves the key exchange) and
      # s_client gone at its input's end
      timeout "$(bound 20)" openssl s_client -engine gost -brief -connect "127.0.0.1:$PORT" \
        -CAfile "$T/ca.pem" -verify_return_error </dev/null >"$T/ossl.out" 2>"$T/ossl.err"
      grep -q 'CONNECTION ESTABLISHED' "$T/ossl.err" && grep -q 'Protocol version: TLSv1.2' "$T/ossl.err" &&
        grep -q 'Verification: OK' "$T/ossl.err" && ok ||
        bad "openssl s_client to a token-keyed server: $(cat "$T/ossl.log" "$T/ossl.err" | tail -5)"
    else
      bad "tls serve --version 1.2 with a token key did not start"
    fi
    kill "$PID"
    wait "$PID" 2>/dev/null
  fi
  # four handshakes at once on four workers: each signs on its own session
  # (--cert a file this time, so that the reload below reaches the key)
  tls_start srv tls serve --listen 127.0.0.1:0 --backend "127.0.0.1:$(cat "$T/echo.port")" \
    --cert "$T/s512.pem" --key "$K512" --threads 4 || bad "tls serve --threads 4"
  cpids=()
  for i in 1 2 3 4; do
    echo "client $i" | timeout "$(bound 20)" "$G" tls client "127.0.0.1:$PORT" --ca "$T/ca.pem" \
      --servername localhost --close-on-eof >"$T/tls$i.out" 2>"$T/tls$i.err" &
    cpids+=($!)
  done
  wait "${cpids[@]}"
  all=1
  for i in 1 2 3 4; do grep -q "client $i" "$T/tls$i.out" || all=0; done
  [ $all = 1 ] && ok || bad "four clients at once: $(cat "$T"/tls?.err "$T/srv.log")"
  TOK1=$(dirname "$(ls "$GOSTX_PKCS11_DIR"/*/token.meta | while read -r f; do grep -q t1 "$f" && echo "$f"; done | head -1)")
  # The module answers every call on the token's sessions with
  # CKR_DEVICE_REMOVED once the folder is gone; a reload (SIGHUP) takes the
  # key again, gostx checks its token (gostx_p11_key_check), and the
  # refused reload names the removal.
  mv "$TOK1" "$T/away"
  # a handshake after the move: the server's C_Sign is refused, and named
  # (the module looks at the folder at most once a millisecond; a client's
  # start alone takes longer than that)
  echo "after removal" | timeout "$(bound 20)" "$G" tls client "127.0.0.1:$PORT" --ca "$T/ca.pem" \
    --servername localhost --close-on-eof >"$T/tlsr.out" 2>"$T/tlsr.err"
  ! grep -q 'after removal' "$T/tlsr.out" &&
    grep -q "PKCS#11 token 't1' was removed or is no longer there (C_Sign" "$T/srv.log" && ok ||
    bad "a handshake on a token moved away: $(cat "$T/tlsr.err" "$T/srv.log")"
  kill -HUP "$PID"
  for _ in $(seq $(bound 100)); do grep -q 'reload refused' "$T/srv.log" && break; sleep 0.05; done
  grep -q "PKCS#11 token 't1' was removed or is no longer there" "$T/srv.log" &&
    grep -q 'reload refused' "$T/srv.log" && ok ||
    bad "token removed under tls serve: $(cat "$T/srv.log")"
else
  bad "tls serve with a token key did not start"
fi

# a GOST R 34.10-2001 key (CKK_GOSTR3410, CKA_GOSTR3411_PARAMS GOST R
# 34.11-94, as SoftHSMv2 makes them: tests/test_p11_softhsm.sh) on CryptoPro
# A: written out as a 2001 key, signed over GOST R 34.11-94; on a tc26 set,
# refused. Made through the module by p11_keygen.py, on a token of their own
mktoken t2001 || bad "pkcs11-tool could not make token t2001"
KG=(python3 "$HERE/pkcs11/p11_keygen.py" "$MOD" t2001 1234)
[ -n "$ASAN_RT" ] && KG=(env LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS=detect_leaks=0 "${KG[@]}")
H94=06072a850302021e01
"${KG[@]}" k2001 0a11 06072a850302022301 $H94 >/dev/null 2>"$T/err" &&
  "${KG[@]}" k2001tc 0a12 06092a8503070102010102 $H94 >/dev/null 2>>"$T/err" ||
  bad "2001 keys made on the token: $(cat "$T/err")"
K2001="pkcs11:token=t2001;object=k2001?module-path=$MOD&pin-source=$T/pin"
"$G" pkey -i "$K2001" -pubout -o "$T/k2001.pub" 2>"$T/err" || bad "pkey -pubout 2001: $(cat "$T/err")"
"$G" sign -k "$K2001" -o "$T/s2001" "$T/msg" 2>"$T/err" || bad "sign 2001: $(cat "$T/err")"
if [ $have_engine = 1 ]; then
  openssl asn1parse -in "$T/k2001.pub" 2>&1 | grep -q "OBJECT *:GOST R 34.10-2001$" && ok ||
    bad "pkey -pubout of a 2001 key names another algorithm: $(openssl asn1parse -in "$T/k2001.pub" 2>&1)"
  openssl dgst -engine gost -md_gost94 -verify "$T/k2001.pub" -signature "$T/s2001" "$T/msg" \
    >"$T/out" 2>&1 && grep -q 'Verified OK' "$T/out" && ok || bad "openssl verifies the 2001 signature: $(cat "$T/out")"
fi
"$G" sign -k "pkcs11:token=t2001;object=k2001tc?module-path=$MOD&pin-source=$T/pin" -o "$T/x" \
  "$T/msg" 2>"$T/err"
[ $? = 2 ] && grep -q 'a GOST R 34.10-2001 key .* on parameter set 1.2.643.7.1.2.1.1.2, which is not a 2001 one' "$T/err" &&
  [ ! -e "$T/x" ] && ok || bad "a 2001 key on a tc26 parameter set: $(cat "$T/err")"
finish
