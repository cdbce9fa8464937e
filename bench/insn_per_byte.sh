#!/usr/bin/env bash
# Instructions per byte of each implementation level, counted by callgrind
# (repeatable, unlike timings under emulation): x86-64 natively, AArch64 on
# the cross build under qemu-aarch64 with AArch64 callgrind from the private
# root of scripts/arm64_valgrind_root.sh. Each row runs bench/insn_kernel
# (one library call on a static buffer) on SIZE bytes and on none; the
# difference over SIZE is the per-byte count (key schedule and start-up
# cancel out).
#   usage: bench/insn_per_byte.sh [x86_64|aarch64] [SIZE]   (default: both, 65536; at most 262144)
# Builds it needs: build/ (make build) and build-cross-aarch64/ (make cross).
set -euo pipefail
cd "$(dirname "$0")/.."
arches=${1:-x86_64 aarch64}
size=${2:-65536}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="kuznyechik-ecb kuznyechik-ctr kuznyechik-mgm magma-ctr gost89-cnt streebog512"

ir() { # instructions of one run: ARCH LEVEL ROW BYTES
  local arch=$1 level=$2 out=$tmp/cg.out
  if [ "$arch" = x86_64 ]; then
    GOSTX_IMPL=$level valgrind --tool=callgrind --callgrind-out-file="$out" \
      build/bench/insn_kernel "$3" "$4" >/dev/null 2>&1
  else
    local root=build-ct-aarch64/arm64-root
    GOSTX_IMPL=$level VALGRIND_LIB="$root/usr/libexec/valgrind" VALGRIND_LAUNCHER=/usr/bin/valgrind \
      qemu-aarch64 -L "$root" "$root/usr/libexec/valgrind/callgrind-arm64-linux" \
      --callgrind-out-file="$out" build-cross-aarch64/bench/insn_kernel "$3" "$4" >/dev/null 2>&1
  fi
  awk '/^summary:/ {print $2}' "$out"
}

[[ " $arches " == *" aarch64 "* ]] && bash scripts/arm64_valgrind_root.sh build-ct-aarch64/arm64-root >/dev/null
for arch in $arches; do
  levels=$(sed -n "s/^LEVEL(\\(any\\|$arch\\), *\\([a-z0-9_]*\\),.*/\\2/p" lib/levels.def)
  printf '%s, instructions per byte (%s-byte input)\n%-16s' "$arch" "$size" "row"
  for l in $levels; do printf '%10s' "$l"; done
  echo
  for name in $rows; do
    printf '%-16s' "$name"
    for l in $levels; do
      if [ "$arch" = x86_64 ] && [ "$(GOSTX_IMPL=$l build/gostx info | awk '$1 == "magma" {print $2}')" != "$l" ]; then
        printf '%10s' "n/a" # a level this CPU does not have
        continue
      fi
      full=$(ir "$arch" "$l" "$name" "$size") none=$(ir "$arch" "$l" "$name" 0)
      if [ -n "$full" ] && [ -n "$none" ]; then
        awk -v f="$full" -v n="$none" -v s="$size" 'BEGIN {printf "%10.1f", (f - n) / s}'
      else
        printf '%10s' "-"
      fi
    done
    echo
  done
done
