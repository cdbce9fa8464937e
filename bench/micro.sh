#!/usr/bin/env bash
# Builds bench/micro.c against build/libgostx.a (internal tables are linkable
# from the static library) and runs it. Usage: bench/micro.sh [mgm|streebog]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${GOSTX_BUILD:-$here/build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -std=c11 -I"$here/include" -I"$here/lib" -I"$here/bench/harness" "$here/bench/micro.c" \
  "$here/bench/harness/harness.c" "$build/libgostx.a" -lpthread -o "$out/micro"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$out/micro" "$@"
