#!/usr/bin/env bash
# Signatures per second through gostx's PKCS#11 token (build/libgostx-
# pkcs11.so, one process, session open: bench/p11_speed.c) against
# libgostx's own gostx_gost3410_sign in the same run, as a cost ratio
# (issue 80's target: at most 1.2), on the CPU named first. With a SoftHSMv2
# built with GOST (--softhsm MODULE, else $GOSTX_SOFTHSM_GOST_MODULE; made by
# scripts/build_softhsm_gost.sh: Debian 12's package has no GOST), its GOST
# R 34.10-2001 signature on the same curve (CryptoPro A = 256B) in the same
# loop and rounds, and how many times as many signatures per second gostx's
# token makes (issue 80's target: at least 3).
#
# Usage: bench/p11_speed.sh [--seconds S] [--runs N] [--build DIR] [--softhsm MODULE]
#   default: 5 interleaved runs of 1 s each per curve; the medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=1 runs=5 build="$root/build" softhsm=${GOSTX_SOFTHSM_GOST_MODULE:-}
. "$root/bench/bench_opts.sh"
bench_opts "seconds runs build softhsm" "$@"
mod="$build/libgostx-pkcs11.so"
[ -f "$mod" ] && [ -x "$build/bench/p11_speed" ] || { echo "no $mod or $build/bench/p11_speed: run make build" >&2; exit 1; }
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
if [ -n "$softhsm" ]; then
  [ -f "$softhsm" ] || { echo "no SoftHSM module $softhsm" >&2; exit 1; }
  "$build/bench/p11_speed" "$mod" "$seconds" "$runs" "$softhsm"
else
  "$build/bench/p11_speed" "$mod" "$seconds" "$runs"
  echo "SoftHSMv2: not compared (give --softhsm MODULE or GOSTX_SOFTHSM_GOST_MODULE: a SoftHSM" \
    "built with GOST by scripts/build_softhsm_gost.sh; Debian 12's package has none)"
fi
