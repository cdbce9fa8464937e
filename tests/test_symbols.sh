#!/usr/bin/env bash
# The exported symbols of libgostx.so are the checked-in list
# tests/exported_symbols.txt: nothing internal leaks, nothing public vanishes.
# To accept an intended API change: regenerate the list with
#   nm -D --defined-only build/libgostx.so | awk '$2 ~ /[TDRB]/ {print $3}' | LC_ALL=C sort > tests/exported_symbols.txt
set -u
export LC_ALL=C  # byte order, as the checked-in lists are sorted
here=$(cd "$(dirname "$0")" && pwd)
lib="$(dirname "${GOSTX:-build/gostx}")/libgostx.so"
command -v nm >/dev/null || { echo "nm not found: skipping"; exit 77; }
[ -f "$lib" ] || { echo "no $lib"; exit 1; }
all=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDRB]/ {print $3}' | LC_ALL=C sort)
# The CUDA backend's API (gostx_gpu_*) exists only in -DGOSTX_CUDA=ON builds;
# when present it must be exactly tests/exported_symbols_gpu.txt.
got=$(printf '%s\n' "$all" | grep -v '^gostx_gpu_' || true)
gpu=$(printf '%s\n' "$all" | grep '^gostx_gpu_' || true)
if [ -n "$gpu" ] && ! diff -u "$here/exported_symbols_gpu.txt" <(printf '%s\n' "$gpu"); then
  echo "gostx_gpu_* symbols differ from tests/exported_symbols_gpu.txt (see diff above)"
  echo "0 passed, 1 failed"
  exit 1
fi
bad=$(printf '%s\n' "$all" | grep -v '^gostx_' || true)
if [ -n "$bad" ]; then echo "non-gostx_ symbols exported: $bad"; echo "0 passed, 1 failed"; exit 1; fi
if diff -u "$here/exported_symbols.txt" <(printf '%s\n' "$got"); then
  echo "1 passed, 0 failed"
else
  echo "exported symbols differ from tests/exported_symbols.txt (see diff above)"
  echo "0 passed, 1 failed"
  exit 1
fi
