#!/usr/bin/env bash
# Everything a GPU machine has to run for the CUDA backend, in one go (device
# time is scarce; docs/GPU.md "On a GPU"): build with the machine's own nvcc,
# the whole suite including test_gpu on the real driver, `gostx bench --gpu`.
# Logs go to $OUT (or ./gpu-out). Usage: bash scripts/gpu_session.sh [STEP...]
# STEPs: info build test bench profile ci (default: info build test bench).
# ci: scripts/ci_cuda.sh itself with the machine's nvcc.
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
      build-cuda/gostx bench --gpu --repeat 5 --json > "$OUT/bench_gpu.json" 2>&1
      ;;
    ci)
      GOSTX_NVCC="$NVCC" bash scripts/ci_cuda.sh > "$OUT/ci_cuda.log" 2>&1
      echo "ci_cuda.sh exit $?"
      tail -8 "$OUT/ci_cuda.log"
      ;;
    profile)
      # SASS instruction counts per kernel (sm_90), then Nsight Compute on
      # one launch of each bulk kernel (what bounds it: issue slots, memory)
      cuobjdump -sass -arch sm_90 build-cuda/gostx_kernels.fatbin > "$OUT/sass90.txt" 2>&1
      awk '/Function :/ {f = $3} /^ +\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\/ / {n[f]++}
           END {for (k in n) printf "%-28s %6d SASS instructions\n", k, n[k]}' "$OUT/sass90.txt" | sort
      for k in "Function : gostx_k_magma_ctr" "Function : gostx_k_kuz_ctr"; do
        awk -v f="$k" '$0 ~ f {on = 1; next} /Function :/ {on = 0}
             on && /^ +\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\/ / {split($2, op, "."); c[op[1]]++}
             END {for (o in c) printf "%s %d\n", o, c[o]}' "$OUT/sass90.txt" | sort -k2 -nr | head -12 | tr '\n' ' '
        echo " <- $k"
      done
      # constant time: a branch in a Magma kernel body would show as BRA
      # between the first and the last S-box lookups (bounds checks only)
      for k in gostx_k_magma_ctr gostx_k_magma_ecb gostx_k_gost89_cnt; do
        awk -v f="Function : $k\$" '$0 ~ f {on = 1; next} /Function :/ {on = 0}
             on && /BRA|SEL/ {split($2, op, "."); c[op[1]]++} END {for (o in c) printf "%s %d ", o, c[o]}' \
          "$OUT/sass90.txt"
        echo " <- BRA/SEL in $k"
      done
      ncu --version | tail -1
      # NCU_KERNELS: the kernels to profile (default below; empty: none)
      for kn in ${NCU_KERNELS-gostx_k_magma_ctr gostx_k_kuz_ctr gostx_k_kuz_ctr_batch gostx_k_magma_ctr_batch}; do
        timeout 240 ncu --kernel-name "$kn" --launch-skip 1 --launch-count 1 \
          --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
          --section LaunchStats build-cuda/gostx bench --gpu --gpu-size 64M --repeat 1 --time 1 \
          --size 64K > "$OUT/ncu_$kn.txt" 2>&1
        grep -E "Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Executed Ipc Active|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Duration|Block Limit Registers" "$OUT/ncu_$kn.txt" | sed "s/^/$kn: /"
      done
      ;;
    *) echo "unknown step $s"; exit 2 ;;
  esac
  echo "==== $s: $((SECONDS - t0)) s"
done
