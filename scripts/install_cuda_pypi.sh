#!/bin/sh
# Installs the CUDA compiler from PyPI for the optional CUDA backend
# (cmake -DGOSTX_CUDA=ON): nvcc, cudafe++, fatbinary, ptxas (nvidia-cuda-nvcc),
# cicc/libnvvm/libdevice (nvidia-nvvm), the crt headers (nvidia-cuda-crt) and
# the runtime headers (nvidia-cuda-runtime). No GPU, driver or CUDA library
# is needed to build; nothing CUDA is linked (see docs/GPU.md).
#
# CUDA 13.0: the -cu12 nvcc wheels hold only ptxas (no nvcc driver, no cicc),
# so the CUDA 13 split packages are used. 13.0 is pinned on purpose: its PTX
# is JIT-compiled by any CUDA 13 driver (r580+), and its cubins for sm_80 and
# sm_90 load on those drivers too. About 101 MB downloaded, 253 MB installed.
#
# Installs with `pip install --target` into $GOSTX_CUDA_PYPI_DIR (default
# ~/.cache/gostx/cuda-pypi-13.0), outside any Python environment, so it also
# works where the system Python is externally managed (PEP 668). Idempotent:
# does nothing when that directory already holds a working nvcc. Prints the
# nvcc path as its last line:
#   cmake -S . -B build-cuda -DGOSTX_CUDA=ON -DGOSTX_NVCC="$(scripts/install_cuda_pypi.sh | tail -n1)"
set -eu
CUDA_VER=13.0.88
RUNTIME_VER=13.0.96
DIR=${GOSTX_CUDA_PYPI_DIR:-${HOME:-/root}/.cache/gostx/cuda-pypi-13.0}
PY=${PYTHON:-python3}
NVCC=$DIR/nvidia/cu13/bin/nvcc

if [ -x "$NVCC" ] && "$NVCC" --version 2>/dev/null | grep -q "release 13.0"; then
  echo "install_cuda_pypi.sh: nvcc already in $DIR" >&2
else
  if ! "$PY" -m pip --version >/dev/null 2>&1; then
    echo "install_cuda_pypi.sh: $PY has no pip (Debian: apt-get install -y python3-pip)" >&2
    exit 1
  fi
  mkdir -p "$DIR"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --upgrade --target "$DIR" \
    "nvidia-cuda-nvcc==$CUDA_VER" "nvidia-nvvm==$CUDA_VER" "nvidia-cuda-crt==$CUDA_VER" \
    "nvidia-cuda-runtime==$RUNTIME_VER" >&2
  "$NVCC" --version >&2 || { echo "install_cuda_pypi.sh: nvcc does not run" >&2; exit 1; }
fi
echo "$NVCC"
