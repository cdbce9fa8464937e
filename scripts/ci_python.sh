#!/usr/bin/env bash
# CI stage for the Python package (python/README.md). The library is compiled
# once: the sdist (`python -m build --sdist`) is built from python/, then the
# wheel is built from that sdist alone, away from the repository and without
# GOSTX_SOURCE_DIR (so the sdist must carry the C sources it builds), and
# repaired into a manylinux wheel (python/build_wheels.sh). That wheel goes
# into a fresh virtual environment with the test dependencies from PyPI, and
# `pytest python/tests` runs against it (the CLI cross-checks use
# build/gostx, built by the earlier stages; they skip without it), with the
# metadata checks and gostx's PKCS#11 token through PyKCS11. Until
# 2026-11-29 the stage compiled the library twice (`pip install ./python`,
# then the sdist's install; the wheel reused python/build/): 219 CPU s
# against 152 now. What a build from the repository (`pip install
# ./python`) does differently is only where python/CMakeLists.txt finds the
# sources (.. instead of _csrc), and the sdist step takes that branch: it
# configures python/ in the repository and copies the sources from there.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sdist, built from python/.
"$PYTHON" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build
"$work/tools/bin/python" -m build --sdist -o "$work/sdist" python >/dev/null
sdist=$(ls "$work"/sdist/gostx-*.tar.gz)
# The manylinux wheel, built from the sdist alone (pip unpacks it in a
# temporary folder, where python/CMakeLists.txt finds only _csrc), repaired,
# smoke-tested in a clean venv; its path is the script's last line.
# (its output goes to the log as it comes, and to a file for the path: `tee
# /dev/stderr` reopened CI's log file and truncated it)
env -u GOSTX_SOURCE_DIR bash python/build_wheels.sh "$PYTHON" "$sdist" | tee "$work/wheels.log"
wheel=$(tail -n1 "$work/wheels.log")
case $wheel in *manylinux*.whl) ;; *) echo "ci_python: no manylinux wheel: $wheel" >&2; exit 1 ;; esac

venv=$work/venv
"$PYTHON" -m venv "$venv"
"$venv/bin/pip" install -q "$wheel" pytest pytest-xdist numpy gostcrypto mypy "dask[distributed]" \
  "requests>=2.32.3" "httpx>=0.28" aiohttp lxml PyKCS11
"$venv/bin/python" - <<'PY'
import importlib.metadata as md
import gostx
meta = md.metadata("gostx")
assert meta["License-Expression"] == "BSD-2-Clause", meta["License-Expression"]
assert any(str(f).endswith("gostx/LICENSE") for f in md.files("gostx")), "no LICENSE in the install"
print("wheel built from the sdist:", gostx.__version__, gostx.implementations())
PY
# python/tests/test_pkcs11.py makes tokens in gostx's module, built with the
# command by the earlier stages: named here, a missing module fails the test
# instead of skipping it.
if [ -x build/gostx ]; then
  export GOSTX_PKCS11_MODULE=$PWD/build/libgostx-pkcs11.so
fi
# Two workers (pytest-xdist): one pytest left a core idle for its ~85 s; each
# test makes its own files, ports and PKI fixtures (python/tests/conftest.py).
"$venv/bin/python" -m pytest -q -n 2 python/tests
# gostx's PKCS#11 token through PyKCS11 from PyPI (tests/pkcs11/), when the
# earlier stages built the module and the command.
if [ -e build/libgostx-pkcs11.so ] && [ -x build/gostx ]; then
  GOSTX_P11_PYTHON="$venv/bin/python" GOSTX=$PWD/build/gostx \
    bash tests/pkcs11/test_p11_python.sh build/libgostx-pkcs11.so
fi
