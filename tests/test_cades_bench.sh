#!/bin/bash
# bench/cades_speed.sh --check: the CAdES-X Long Type 1 bench's two programs
# (bench/cades/xl1_gostx.c over the command's objects, xl1_openssl.c over
# libcrypto + gost-engine) build against this build and verify the file
# bench/cades/setup.sh makes with gostx; both refuse it with a byte flipped
# in the OCSP response value, in the CAdES-C-time-stamp's and the
# signature-time-stamp's token signature and in the signer's signature
# (bench/cades/tamper.py), each named; the gostx side
# verifies each of the file's signatures once. No timing.
# Skipped (77) without libssl-dev, gost-engine or gcc, and for a sanitizer
# or CUDA build (the bench links its objects with plain gcc). About 3 s.
. "$(dirname "$0")/cli_common.sh" cades_bench
B=$(cd "$(dirname "$G")" && pwd)
cache=$B/CMakeCache.txt
if [ ! -f /usr/include/openssl/ts.h ] || ! command -v gcc >/dev/null || ! command -v python3 >/dev/null ||
  ! OPENSSL_CONF=$here/support/gost_engine.cnf openssl engine gost >/dev/null 2>&1; then
  echo "libssl-dev, gost-engine, gcc or python3 missing: skipping"
  exit 77
fi
if [ ! -f "$cache" ] || grep -qE '^GOSTX_(SANITIZE|CUDA):BOOL=ON' "$cache" || [ ! -d "$B/CMakeFiles/gostx_cli.dir" ]; then
  echo "not a plain build of the command: skipping"
  exit 77
fi
bash "$here/../bench/cades_speed.sh" --check --no-build --build "$B" --out "$T/bench" >"$T/out" 2>&1
rc=$?
check "cades_speed.sh --check passes (rc=$rc): $(tail -5 "$T/out")" [ $rc = 0 ]
for side in gostx openssl; do
  for bad in bad-ocsp bad-esc bad-sigts bad-signer; do
    check "$side refuses $bad.xl1" grep -q "^$side refuses $bad.xl1: .*: " "$T/out"
  done
done
check "gostx's OCSP refusal names the reference" grep -q "^gostx refuses bad-ocsp.xl1: .*OCSP response's hash does not match" "$T/out"
check "openssl's CAdES-C refusal names the timestamp" grep -q "^openssl refuses bad-esc.xl1: .*CAdES-C-time-stamp" "$T/out"
# the signatures themselves, with the run's memo in use: the CAdES-C and the
# signature-time-stamp's token signatures, the signer's signature
check "gostx's CAdES-C refusal names the token's signature" \
  grep -q "^gostx refuses bad-esc.xl1: .*CAdES-C-time-stamp: .*the token's signature does not verify" "$T/out"
check "gostx's signature-time-stamp refusal names the token's signature" \
  grep -q "^gostx refuses bad-sigts.xl1: .*signature-time-stamp: the timestamp fails 1: .*the token's signature does not verify" "$T/out"
check "gostx's refusal names the signer's signature" \
  grep -q "^gostx refuses bad-signer.xl1: gostx: cms: signature: does not verify" "$T/out"
# each signature verified once in a verification: the signer's; its
# certificate's and int's (issued by root); the signature-time-stamp's
# token's and the CAdES-C-time-stamp's; the TSA's certificate's (both
# tokens'); the two OCSP responses'. Met again (the chain at the timestamp's
# time, the token checked by cms_ts_check_all and gostx_cades_verify, the
# TSA's path per token): answered from the run's memo.
check "gostx verifies each of the 8 signatures once: $(grep '^gostx signatures' "$T/out")" \
  grep -qE "^gostx signatures: 8 verified, [1-9][0-9]* repeats answered" "$T/out"
finish
