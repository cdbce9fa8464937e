#!/usr/bin/env bash
# Everything a GPU machine has to run for the CUDA backend, in one go (device
# time is scarce; docs/GPU.md "On a GPU"): build with the machine's own nvcc,
# the whole suite including test_gpu on the real driver, `gostx bench --gpu`.
# Logs go to $OUT (or ./gpu-out). Usage: bash scripts/gpu_session.sh [STEP...]
# STEPs: info build test bench (default: all four in that order).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
jobs=$(nproc 2>/dev/null || echo 8)
NVCC=${GOSTX_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(info build test bench)
for s in "${steps[@]}"; do
  t0=$SECONDS
  echo "==== $s"
  case $s in
    info)
      nvidia-smi 2>&1 | head -20
      nvidia-smi -q 2>&1 | grep -iE 'driver version|cuda version|product name|link (gen|width)|max clocks|^ *sm ' | head -20
      "$NVCC" --version | tail -2
      lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | sed 's/Flags:.*/Flags: (avx512f: '"$(grep -c avx512f /proc/cpuinfo)"' cpus)/'
      ;;
    build)
      cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGOSTX_CUDA=ON -DGOSTX_NVCC="$NVCC" >"$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
      cmake --build build-cuda -j "$jobs" >"$OUT/build.log" 2>&1 || { grep -iE 'error|warning' "$OUT/build.log" | head -40; exit 1; }
      grep -iE 'warning|spill|registers' "$OUT/build.log" | head -20
      ;;
    test)
      (cd build-cuda && ctest -j "$jobs" --output-on-failure 2>&1) | tee "$OUT/ctest.log" | tail -25
      (cd build-cuda && ./test_gpu 2>&1) | tail -15
      ;;
    bench)
      build-cuda/gostx bench --gpu --repeat 5 2>&1 | tee "$OUT/bench_gpu.txt"
      ;;
    *) echo "unknown step $s"; exit 2 ;;
  esac
  echo "==== $s: $((SECONDS - t0)) s"
done
