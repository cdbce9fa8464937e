#!/usr/bin/env bash
# CI step for the optional CUDA backend: install nvcc from PyPI (or take
# $GOSTX_NVCC), build with -DGOSTX_CUDA=ON in build-cuda, run ctest there.
# Without a GPU the real-GPU test (test_gpu) skips with 77; on a GPU machine
# it runs (GOSTX_NVCC=$(command -v nvcc) bash scripts/ci_cuda.sh); test_gpu_block checks the
# kernels' math on the host, test_gpu@mock the host side through a mock
# driver. Only the tests the CUDA option changes run, and only their targets are built (below). Measured from scratch on a 2-core Debian 12 VM: 60 s in all
# (~12 s install, 101 MB download; build with nvcc for sm_80 + sm_90 +
# compute_90 PTX ~1 min wall; ctest 17-30 s). To call from .ci/run after
# `make check`:
#   bash scripts/ci_cuda.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# GOSTX_NVCC: an nvcc to use as it is (a GPU machine's own toolkit, which
# may have no network); otherwise nvcc comes from PyPI.
need_cmds=(g++)
[ -n "${GOSTX_NVCC:-}" ] || need_cmds+=(python3)
need_pkgs=()
for c in "${need_cmds[@]}"; do
  command -v "$c" >/dev/null || need_pkgs+=("$c")
done
if [ -z "${GOSTX_NVCC:-}" ] && ! python3 -m pip --version >/dev/null 2>&1; then
  need_pkgs+=(python3-pip)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  # nvcc needs a C++ host compiler (cc1plus), the PyPI route pip
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_pkgs[@]}"
fi

NVCC=${GOSTX_NVCC:-$(scripts/install_cuda_pypi.sh | tail -n1)}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGOSTX_CUDA=ON -DGOSTX_NVCC="$NVCC" >/dev/null
# Only what the selected tests run (the command and the shared library for
# test_bench and test_symbols, test_api, the GPU tests and their mock
# driver): make check has built and tested the rest of the tree already.
targets=()
if [ "${GOSTX_CUDA_FULL:-0}" != 1 ]; then
  targets=(--target gostx_cli gostx_shared test_api test_gpu test_gpu_block gostx_mockcuda)
  # (the list read whole first: grep -q closing the pipe early would fail it under pipefail)
  help=$(cmake --build build-cuda --target help)
  case $help in *" test_gpu_hostcuda_bin"*) targets+=(test_gpu_hostcuda_bin) ;; esac
fi
cmake --build build-cuda -j "$jobs" "${targets[@]}"
# -DGOSTX_CUDA=ON adds lib/gpu, its exported symbols and `gostx bench --gpu`;
# every other file compiles as in the suite `make check` ran, so only the
# tests of those run here (GOSTX_CUDA_FULL=1: the whole suite again).
sel=(-R '^test_(gpu|bench|symbols|api)([@_].*)?$')
[ "${GOSTX_CUDA_FULL:-0}" = 1 ] && sel=()
cd build-cuda && ctest --output-on-failure -j "$jobs" "${sel[@]}"
