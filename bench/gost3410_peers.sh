#!/usr/bin/env bash
# GOST R 34.10-2012 sign, verify and VKO: gostx against gost-engine (OpenSSL 3
# with Debian's libengine-gost-openssl) in the same run, one thread, thread
# CPU time, median of RUNS interleaved runs, on 256 paramSetA, 256 paramSetB
# and 512 paramSetC; prints ops/s and the gostx/gost-engine ratio.
# bench/peers/gost3410_peers.c first checks that gostx accepts gost-engine's
# signature (same curve, same work). Then bench/peers/gost3410_evp.c: signing
# through the gostx OpenSSL provider (a new EVP_PKEY_CTX per signature, as
# the engine is timed, and one context reused) against the library's own
# call, and OpenSSL's per-context cost alone.
#
# Usage: bench/gost3410_peers.sh [--runs N] [--no-install] [--build DIR]
#   default: 5 runs. Installs what is missing with apt-get (needs root or
#   sudo), builds gostx (Release) and the program under BUILD/peers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=5 install=1 build="$root/build"
. "$root/bench/bench_opts.sh"
bench_opt() { [ "$1" = --no-install ] && install=0; }
bench_opts "runs build" "$@"
case "$runs" in ''|*[!0-9]*) echo "gost3410_peers.sh: --runs takes a number" >&2; exit 2 ;; esac

missing=()
for p in gcc cmake libssl-dev libengine-gost-openssl; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ $install = 1 ]; then
  echo "installing: ${missing[*]}" >&2
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  ${sudo:-} apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive ${sudo:-} apt-get install -y -q "${missing[@]}" >&2
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target gostx gostx_bench_harness gostx_ossl_provider >/dev/null
mkdir -p "$build/peers"
gcc -O2 -Wall -Wextra -I"$root/include" -I"$root/bench/harness" \
  -o "$build/peers/gost3410_peers" "$root/bench/peers/gost3410_peers.c" \
  "$build/libgostx.a" "$build/libgostx_bench_harness.a" -lcrypto -lpthread
"$build/peers/gost3410_peers" "$runs"
gcc -O2 -Wall -Wextra -I"$root/include" -I"$root/bench/harness" \
  -o "$build/peers/gost3410_evp" "$root/bench/peers/gost3410_evp.c" \
  "$build/libgostx.a" "$build/libgostx_bench_harness.a" -lcrypto -lpthread
echo
"$build/peers/gost3410_evp" "$build/ossl-modules" "$runs"
