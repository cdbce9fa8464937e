#!/usr/bin/env bash
# CI stage for the Python package (python/README.md): a fresh virtual
# environment, `pip install ./python` from the repository's C sources, the test
# dependencies from PyPI, `pytest python/tests` (the CLI cross-checks use
# build/gostx, built by the earlier stages; they skip without it), then the
# manylinux wheel script. A few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$PYTHON" -m venv "$venv"
"$venv/bin/pip" install -q ./python pytest numpy gostcrypto "dask[distributed]"
"$venv/bin/python" -m pytest -q python/tests
bash python/build_wheels.sh "$PYTHON"
