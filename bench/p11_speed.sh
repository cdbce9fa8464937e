#!/usr/bin/env bash
# Signatures per second through gostx's PKCS#11 token (build/libgostx-
# pkcs11.so, one process, session open: bench/p11_speed.c) against
# libgostx's own gostx_gost3410_sign in the same run, as a cost ratio
# (issue 80's target: at most 1.2), on the CPU named first. Then SoftHSMv2,
# where it installs: its GOST R 34.10-2001 signature in the same units when
# its module lists GOST mechanisms; Debian 12's builds list none (SoftHSM
# reaches GOST only through an OpenSSL ENGINE that Debian's OpenSSL 3 build
# does not give it), and the script says so.
#
# Usage: bench/p11_speed.sh [--seconds S] [--runs N] [--build DIR]
#   default: 5 interleaved runs of 1 s each per curve.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=1 runs=5 build="$root/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds S}; shift ;;
    --runs) runs=${2:?--runs N}; shift ;;
    --build) build=${2:?--build DIR}; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "p11_speed.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
mod="$build/libgostx-pkcs11.so"
[ -f "$mod" ] && [ -x "$build/bench/p11_speed" ] || { echo "no $mod or $build/bench/p11_speed: run make build" >&2; exit 1; }
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
"$build/bench/p11_speed" "$mod" "$seconds" "$runs"

softhsm=""
for m in /usr/lib/softhsm/libsofthsm2.so /usr/lib/*/softhsm/libsofthsm2.so; do
  [ -f "$m" ] && softhsm=$m && break
done
if [ -z "$softhsm" ]; then
  echo "SoftHSMv2: not installed (apt-get install softhsm2)"
elif ! command -v pkcs11-tool >/dev/null; then
  echo "SoftHSMv2: pkcs11-tool missing (apt-get install opensc) to ask it for its mechanisms"
elif pkcs11-tool --module "$softhsm" -M 2>/dev/null | grep -qi gost; then
  echo "SoftHSMv2 ($softhsm) lists GOST mechanisms: compare with pkcs11-tool --test-threads or a driver"
else
  echo "SoftHSMv2 ($softhsm): no GOST mechanisms in this build (pkcs11-tool -M), nothing to compare"
fi
