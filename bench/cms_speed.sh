#!/usr/bin/env bash
# CMS signatures, gostx against OpenSSL 3 with gost-engine (Debian's
# libengine-gost-openssl), the same key, certificate and files (issue 58's
# speed targets):
#  1. a detached signature of one big file (SIZE, default 1 GiB): `gostx cms
#     -sign` and `-verify -content` against `openssl cms -engine gost -sign
#     -binary` and `-verify -binary -content`, wall clock, RUNS runs taken in
#     turns (gostx, openssl, gostx, ...), medians and the ratio;
#  2. the same file encrypted to the certificate and decrypted (EnvelopedData,
#     KeyTransport2019) with kuznyechik-ctr-acpkm and magma-ctr-acpkm:
#     `gostx cms -encrypt` / `-decrypt` against `openssl cms -engine gost
#     -encrypt -binary` / `-decrypt -binary`, the same content cipher, wall
#     clock, medians of encrypt + decrypt. gost-engine's output is wrong past
#     the first ACPKM section (docs/CMS.md); that does not change its time;
#  3. 4 KiB documents signed and verified per CPU-second in one process:
#     bench/peers/cms_docs.c, the library's calls against OpenSSL's CMS API.
# The key: GOST R 34.10-2012 256 paramSetA (TC26 A), its certificate issued
# by a 256-bit CA; both made here by openssl.
#
# Usage: bench/cms_speed.sh [--quick] [--size BYTES|NM|NG] [--runs N] [--build DIR]
#   --quick: a 64 MiB file and 3 runs (minutes become seconds).
#   Default 1G and 5 runs. Builds gostx (Release) and the driver under
#   BUILD/peers; the file lives in a temporary folder removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
size=1G runs=5 build="$root/build"
. "$root/bench/bench_opts.sh"
bench_opt() { [ "$1" = --quick ] && size=64M runs=3; }
bench_opts "size runs build" "$@"
case "$runs" in ''|*[!0-9]*|0) echo "cms_speed.sh: --runs takes a number >= 1" >&2; exit 2 ;; esac
bytes=$(numfmt --from=iec "$size") || { echo "cms_speed.sh: --size: $size is no size" >&2; exit 2; }
openssl engine gost >/dev/null 2>&1 || { echo "cms_speed.sh: openssl with gost-engine is needed" >&2; exit 1; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target gostx gostx_cli gostx_bench_harness >/dev/null
mkdir -p "$build/peers"
gcc -O2 -Wall -Wextra -I"$root/include" -I"$root/bench/harness" -o "$build/peers/cms_docs" \
  "$root/bench/peers/cms_docs.c" "$build/libgostx.a" "$build/libgostx_bench_harness.a" -lcrypto -lpthread
G=$build/gostx

T=$(mktemp -d "${TMPDIR:-/tmp}/cms_speed.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
export OPENSSL_CONF=/dev/null
O=(-engine gost)
openssl genpkey "${O[@]}" -algorithm gost2012_256 -pkeyopt paramset:A -out ca.key 2>/dev/null
openssl req "${O[@]}" -x509 -new -key ca.key -subj "/CN=cms_speed CA" -days 2 -out ca.pem \
  -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl genpkey "${O[@]}" -algorithm gost2012_256 -pkeyopt paramset:A -out key.pem 2>/dev/null
openssl req "${O[@]}" -new -key key.pem -subj "/CN=cms_speed signer" -out req.csr 2>/dev/null
printf 'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature\n' >leaf.ext
openssl x509 "${O[@]}" -req -in req.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 2 \
  -extfile leaf.ext -out cert.pem 2>/dev/null
head -c "$bytes" /dev/urandom >doc.bin

# secs CMD...: the command's wall-clock seconds (it must succeed)
secs() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>"$T/err" || { echo "cms_speed.sh: failed: $*" >&2; cat "$T/err" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "scale=4; ($t1 - $t0) / 1000000000" | bc
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

gsign=("$G" cms -sign -binary -in doc.bin -signer cert.pem -inkey key.pem -outform DER -out g.sig)
osign=(openssl cms "${O[@]}" -sign -binary -in doc.bin -signer cert.pem -inkey key.pem -outform DER -out o.sig)
gverify=("$G" cms -verify -inform DER -in g.sig -content doc.bin -CAfile ca.pem)
overify=(openssl cms "${O[@]}" -verify -binary -inform DER -in o.sig -content doc.bin -CAfile ca.pem -purpose any)
: >gs; : >os; : >gv; : >ov
cat doc.bin >/dev/null # in the page cache before the first timed read
for _ in $(seq "$runs"); do
  secs "${gsign[@]}" >>gs
  secs "${osign[@]}" >>os
  secs "${gverify[@]}" >>gv
  secs "${overify[@]}" >>ov
done
# each side verifies the other's signature once (same work, not timed)
"$G" cms -verify -inform DER -in o.sig -content doc.bin -CAfile ca.pem 2>/dev/null
openssl cms "${O[@]}" -verify -binary -inform DER -in g.sig -content doc.bin -CAfile ca.pem -purpose any \
  -out /dev/null 2>/dev/null

row() { # row WHAT GOSTX_FILE OPENSSL_FILE
  local g o
  g=$(median <"$2") o=$(median <"$3")
  printf '  %-8s gostx %8.3f s (%7.1f MB/s)   openssl %8.3f s (%7.1f MB/s)   ratio %5.2fx\n' "$1" "$g" \
    "$(echo "$bytes / $g / 1000000" | bc -l)" "$o" "$(echo "$bytes / $o / 1000000" | bc -l)" \
    "$(echo "$o / $g" | bc -l)"
}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "Detached signature of a $size file, 256-bit key, wall clock, median of $runs runs in turns:"
row sign gs os
row verify gv ov

# encrypt + decrypt, each content cipher, in turns
for ci in kuznyechik-ctr-acpkm magma-ctr-acpkm; do
  : >ge; : >gd; : >oe; : >od; : >g_ed; : >o_ed
  for _ in $(seq "$runs"); do
    e=$(secs "$G" cms -encrypt -recip cert.pem -$ci -in doc.bin -outform DER -out g.p7m)
    d=$(secs "$G" cms -decrypt -recip cert.pem -inkey key.pem -inform DER -in g.p7m -out g.out)
    echo "$e" >>ge; echo "$d" >>gd; echo "$e + $d" | bc >>g_ed
    e=$(secs openssl cms "${O[@]}" -encrypt -binary -$ci -in doc.bin -outform DER -out o.p7m cert.pem)
    d=$(secs openssl cms "${O[@]}" -decrypt -binary -inform DER -in o.p7m -recip cert.pem -inkey key.pem -out o.out)
    echo "$e" >>oe; echo "$d" >>od; echo "$e + $d" | bc >>o_ed
    rm -f g.p7m g.out o.p7m o.out
  done
  echo "EnvelopedData of the $size file, $ci, wall clock, median of $runs runs in turns:"
  row encrypt ge oe
  row decrypt gd od
  row enc+dec g_ed o_ed
done
echo
"$build/peers/cms_docs" ca.pem cert.pem key.pem 4096 "$runs"
