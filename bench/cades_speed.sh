#!/usr/bin/env bash
# CAdES-X Long Type 1 verification of a 4 KiB document per CPU-second
# (issue 70's speed target: the library at least 3x OpenSSL + gost-engine
# doing the same checks in one process), both sides in one run, one thread:
#   gostx:   bench/cades/xl1_gostx.c, `gostx cms -verify`'s own functions
#            (cli/cms's objects linked in) over libgostx;
#   openssl: bench/cades/xl1_openssl.c, libcrypto 3 with gost-engine
#            (OPENSSL_CONF=tests/support/gost_engine.cnf): CMS_verify,
#            TS_RESP_verify_token, the refs hashed with EVP, OCSP_basic_verify
#            (docs/ESIGN.md says what each side checks).
# The files (a root, an intermediate and a signer on GOST R 34.10-2012 256,
# a TSA, two OCSP responses, the signature enhanced BES -> T -> XL1) are made
# once by bench/cades/setup.sh with gostx alone, in BUILD/cades-bench. Each
# side first verifies the file, then refuses it with one byte flipped in the
# OCSP response value, in the CAdES-C-time-stamp's and the
# signature-time-stamp's token signature and in the signer's signature
# (the run stops if not);
# the gostx side says how many signatures one verification checked.
# ops/CPU-s: CLOCK_PROCESS_CPUTIME_ID, the median of ROUNDS rounds.
#
# Usage: bench/cades_speed.sh [--seconds S] [--rounds R] [--build DIR] [--out DIR]
#                              [--check] [--no-build]
#   Default 5 CPU-seconds a side in 5 rounds; the programs and files in
#   --out (default BUILD/cades-bench). --check: verify and the tamper
#   refusals only, no timing (tests/test_cades_bench.sh); --no-build: BUILD
#   is built already (gostx, its objects, the harness), cmake is not run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=5 rounds=5 build="$root/build" check=0 out="" cmake=1
. "$root/bench/bench_opts.sh"
bench_opt() {
  case "$1" in
    --check) check=1 ;;
    --no-build) cmake=0 ;;
    *) return 1 ;;
  esac
}
bench_opts "seconds rounds build out" "$@"
[ -f /usr/include/openssl/ts.h ] || { echo "cades_speed.sh: libssl-dev is needed" >&2; exit 1; }
export OPENSSL_CONF=$root/tests/support/gost_engine.cnf
openssl engine gost >/dev/null 2>&1 || { echo "cades_speed.sh: gost-engine is needed (libengine-gost-openssl)" >&2; exit 1; }
if [ "$cmake" = 1 ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target gostx gostx_cli gostx_bench_harness >/dev/null
fi
out=${out:-$build/cades-bench}
mkdir -p "$out" && out=$(cd "$out" && pwd)
# the gostx side links the command's objects (but main) as an archive: the
# linker takes only what cms -verify's functions need. Only objects whose
# source still exists: a build tree keeps those of moved files.
rm -f "$out/cli.a"
objdir=$build/CMakeFiles/gostx_cli.dir
(cd "$objdir" && find . -name '*.c.o' ! -name main.c.o) | sed 's|^\./||' |
  while read -r o; do if [ -f "$root/${o%.o}" ]; then printf '%s\0' "$objdir/$o"; fi; done |
  xargs -0 ar rcs "$out/cli.a"
gcc -O2 -Wall -Wextra -I"$root/include" -I"$root/cli/common" -I"$root/cli/cms" -I"$root/bench/harness" \
  -o "$out/xl1_gostx" "$root/bench/cades/xl1_gostx.c" "$out/cli.a" "$build/libgostx_bench_harness.a" \
  "$build/libgostx.a" -lpthread -ldl
gcc -O2 -Wall -Wextra -I"$root/bench/harness" -o "$out/xl1_openssl" "$root/bench/cades/xl1_openssl.c" \
  "$build/libgostx_bench_harness.a" -lcrypto
bash "$root/bench/cades/setup.sh" "$build/gostx" "$out/files"
cd "$out/files"
files=(doc.xl1 doc.bin root.pem)
python3 "$root/bench/cades/tamper.py" doc.xl1 bad-ocsp.xl1 ocsp
python3 "$root/bench/cades/tamper.py" doc.xl1 bad-esc.xl1 esc
python3 "$root/bench/cades/tamper.py" doc.xl1 bad-sigts.xl1 sigts
python3 "$root/bench/cades/tamper.py" doc.xl1 bad-signer.xl1 signer
for side in gostx openssl; do
  "$out/xl1_$side" "${files[@]}" 0 2>"$side.err" || { cat "$side.err" >&2; exit 1; }
  for bad in bad-ocsp bad-esc bad-sigts bad-signer; do
    if "$out/xl1_$side" "$bad.xl1" doc.bin root.pem 0 2>"$side-$bad.err"; then
      echo "cades_speed.sh: $side accepted $bad.xl1" >&2; exit 1
    fi
    echo "$side refuses $bad.xl1: $(grep -m1 -E '^(gostx: cms|xl1_openssl): ' "$side-$bad.err")"
  done
done
grep -q '^level: CAdES-X Long Type 1$' gostx.err || { cat gostx.err >&2; exit 1; }
echo "gostx $(grep -m1 '^xl1_gostx: signatures: ' gostx.err | sed 's/^xl1_gostx: //')"
[ "$check" = 1 ] && exit 0

echo "== CAdES-X Long Type 1, $(wc -c <doc.xl1)-byte signature of a $(wc -c <doc.bin)-byte document, verified per CPU-second, one thread"
g=$("$out/xl1_gostx" "${files[@]}" "$seconds" "$rounds" 2>/dev/null)
o=$("$out/xl1_openssl" "${files[@]}" "$seconds" "$rounds" 2>/dev/null)
echo "$g"
echo "$o"
rg=$(sed 's/^gostx: \([0-9.]*\) .*/\1/' <<<"$g") ro=$(sed 's/^openssl: \([0-9.]*\) .*/\1/' <<<"$o")
echo "ratio gostx / openssl: $(awk -v a="$rg" -v b="$ro" 'BEGIN { printf "%.2fx", a / b }')"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) online), load average $(cut -d' ' -f1-3 /proc/loadavg)"
