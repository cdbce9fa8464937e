#!/usr/bin/env bash
# gostx's PKCS#11 consumer (lib/pkcs11, `pkcs11:` URIs; docs/PKCS11.md)
# against a module gostx did not write: SoftHSMv2 built with GOST R
# 34.10-2001 (scripts/build_softhsm_gost.sh; Debian's package has no GOST),
# named by GOSTX_SOFTHSM_GOST_MODULE. A key pair made on SoftHSM
# (tests/pkcs11/p11_keygen.py, since pkcs11-tool 0.23 cannot make GOST keys
# there); then gostx pkey -pubout writes it as a 2001 key, gostx sign makes
# a 2001 signature (GOST R 34.11-94) that openssl + gost-engine verifies,
# SoftHSM's own CKM_GOSTR3410_WITH_GOSTR3411 signature verifies under
# gostx's public key, a request and a self-signed certificate are refused
# by name (their signatures would be 2012 ones under 2012 OIDs), and a
# wrong PIN is named.
# Skipped (77), saying why, without GOSTX_SOFTHSM_GOST_MODULE or
# pkcs11-tool; with the variable set, a module that is missing or has no
# GOST is a failure.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_common.sh" p11_softhsm
MOD=${GOSTX_SOFTHSM_GOST_MODULE:-}
if [ -z "$MOD" ]; then
  echo "SKIP: GOSTX_SOFTHSM_GOST_MODULE is not set (a SoftHSMv2 built with GOST:" \
    "scripts/build_softhsm_gost.sh PREFIX prints its path)"
  exit 77
fi
command -v pkcs11-tool >/dev/null || { echo "SKIP: pkcs11-tool (OpenSC) not installed"; exit 77; }
fatal() { bad "$*"; finish; }
[ -f "$MOD" ] || fatal "GOSTX_SOFTHSM_GOST_MODULE=$MOD: no such file"
openssl engine gost >/dev/null 2>&1 ||
  fatal "openssl has no gost engine (libengine-gost-openssl): SoftHSM's GOST needs it"

export SOFTHSM2_CONF=$T/softhsm2.conf
mkdir "$T/tokens"
printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' \
  "$T/tokens" >"$SOFTHSM2_CONF"
P11=(pkcs11-tool --module "$MOD")
"${P11[@]}" -M >"$T/mechs" 2>&1 || fatal "the module does not load: $(cat "$T/mechs")"
for m in GOSTR3410-KEY-PAIR-GEN GOSTR3410 GOSTR3410-WITH-GOSTR3411; do
  grep -q "^ *$m," "$T/mechs" ||
    fatal "$MOD lists no $m: not built with --enable-gost, or gost-engine is missing"
done
"${P11[@]}" --init-token --slot-index 0 --label sh --so-pin 87654321 >/dev/null 2>&1 &&
  "${P11[@]}" --token-label sh --login --login-type so --so-pin 87654321 --init-pin \
    --pin 1234 >/dev/null 2>&1 || fatal "pkcs11-tool could not make a SoftHSM token"
echo 1234 >"$T/pin"
echo "data signed on SoftHSM" >"$T/msg"

# SoftHSM 2.6.1 makes 2001 keys on CryptoPro A only (1.2.643.2.2.35.1; its
# OSSLGOST refuses other sets: CKR_GENERAL_ERROR), with the hash GOST R
# 34.11-94 CryptoPro (1.2.643.2.2.30.1): DER OIDs
value=$(python3 "$HERE/pkcs11/p11_keygen.py" "$MOD" sh 1234 k2001 0a 06072a850302022301 \
  06072a850302021e01 2>"$T/err") || fatal "a key pair made on SoftHSM: $(cat "$T/err")"
URI="pkcs11:token=sh;object=k2001;type=private?module-path=$MOD&pin-source=$T/pin"
"$G" pkey -i "$URI" -pubout -o "$T/pub" 2>"$T/err" || bad "pkey -pubout: $(cat "$T/err")"
# a 2001 key to openssl (its algorithm, its parameter set), and the token's
# point (CKA_VALUE: the SPKI's last 64 bytes)
{ openssl asn1parse -in "$T/pub" && openssl pkey -engine gost -pubin -in "$T/pub" -text -noout; } \
  >"$T/text" 2>&1
grep -q "OBJECT *:GOST R 34.10-2001$" "$T/text" &&
  grep -q "Parameter set: id-GostR3410-2001-CryptoPro-A-ParamSet" "$T/text" &&
  [ "$(openssl pkey -engine gost -pubin -in "$T/pub" -outform DER 2>/dev/null |
    tail -c 64 | od -An -tx1 | tr -d ' \n')" = "$value" ] && ok ||
  bad "pkey -pubout is not SoftHSM's 2001 key: $(cat "$T/text")"
"$G" sign -k "$URI" -o "$T/sig" "$T/msg" 2>"$T/err" || bad "sign: $(cat "$T/err")"
openssl dgst -engine gost -md_gost94 -verify "$T/pub" -signature "$T/sig" "$T/msg" >"$T/out" 2>&1 &&
  grep -q 'Verified OK' "$T/out" && ok || bad "openssl verifies gostx sign's 2001 signature: $(cat "$T/out")"
# SoftHSM's own signature (GOST R 34.11-94 inside the token) under gostx's public key
"${P11[@]}" --token-label sh --login --pin 1234 --sign -m GOSTR3410-WITH-GOSTR3411 --id 0a \
  -i "$T/msg" -o "$T/shsig" >/dev/null 2>&1 || bad "pkcs11-tool --sign on SoftHSM"
openssl dgst -engine gost -md_gost94 -verify "$T/pub" -signature "$T/shsig" "$T/msg" >"$T/out" 2>&1 &&
  grep -q 'Verified OK' "$T/out" && ok || bad "SoftHSM's signature under gostx's public key: $(cat "$T/out")"
# a request and a self-signed certificate: objects whose signatures are 2012
# ones under 2012 OIDs, so a 2001 key is refused by name and nothing written
for cmd in "req -new -key $URI -subj /CN=SoftHSM -out $T/csr" \
  "req -x509 -key $URI -subj /CN=SoftHSM-CA -out $T/ca.pem"; do
  # shellcheck disable=SC2086 # the words of one command line; no blanks in its paths
  "$G" $cmd 2>"$T/err"
  [ $? = 2 ] && grep -q "is a GOST R 34.10-2001 key; .* needs GOST R 34.10-2012" "$T/err" &&
    ok || bad "gostx ${cmd%% -key*} with SoftHSM's 2001 key: refused by name: $(cat "$T/err")"
done
[ ! -e "$T/csr" ] && [ ! -e "$T/ca.pem" ] && ok || bad "a 2001 key signed an object"

# a wrong PIN, named as such
echo 4321 >"$T/wrong"
"$G" sign -k "pkcs11:token=sh;object=k2001?module-path=$MOD&pin-source=$T/wrong" -o "$T/x.sig" \
  "$T/msg" 2>"$T/err"
[ $? = 1 ] && grep -q "wrong PIN for PKCS#11 token 'sh'" "$T/err" && ok ||
  bad "a wrong PIN on SoftHSM: $(cat "$T/err")"
finish
