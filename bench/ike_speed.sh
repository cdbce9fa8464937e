#!/usr/bin/env bash
# IKE SA establishments (IKE_SA_INIT + IKE_AUTH) per CPU-second of the
# responder, beside `gostx tls serve`'s full TLS 1.3 handshakes per
# CPU-second, in one run (issue 59's speed target):
#  - build/bench/ike_speed: lib/ike's engine, initiator and responder in
#    one thread, the responder's calls alone on the thread's CPU clock; PSK
#    and certificates (256 and 512 bits);
#  - bench/tls_speed.sh with TLS_SPEED_PART=hs13: its server-handshake rows
#    for TLS 1.3 (serve pinned to CPU 0, tls_hs_load on the others, the
#    server's CPU time from /proc), 256A/GC256A and 512C/GC512C: the same
#    measurement its own table prints, not a copy of it.
# The IKE figure has no sockets in it (the engine in memory); serve's has
# a TCP accept, its reads and writes and a backend connection per
# handshake: the TLS side carries more than the IKE side does.
#   usage: bench/ike_speed.sh [SECONDS (3)] [RUNS (3)]
# Needs what tls_speed.sh needs (build/gostx, build/bench/tls_hs_load,
# nginx, openssl with gost-engine) and build/bench/ike_speed; BUILD=DIR for
# another build.
set -u -o pipefail
SECS=${1:-3}
RUNS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BUILD=$(abs "${BUILD:-$HERE/../build}")
[ -x "$BUILD/bench/ike_speed" ] || { echo "ike_speed: $BUILD/bench/ike_speed not built"; exit 1; }
echo "gostx IKE speed, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) online)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$BUILD/bench/ike_speed" "$SECS" "$RUNS" || exit 1
echo
BUILD=$BUILD TLS_SPEED_PART=hs13 bash "$HERE/tls_speed.sh" "$SECS" "$RUNS" | sed -n '/^Server handshakes/,$p'
