#!/usr/bin/env bash
# CLI tests: official vectors through `gostx`, round trips, error behaviour,
# --help and hash -c. The work is in tests/cli_vectors.py (standard library
# Python); this wrapper finds the binary and the vectors.
# Env: GOSTX (path to gostx), GOSTX_VECTORS (tests/vectors). Exit 77 = skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${GOSTX:=$here/../build/gostx}"
: "${GOSTX_VECTORS:=$here/vectors}"
export GOSTX GOSTX_VECTORS
. "$here/support/py_driver.sh"
exec python3 "$here/cli_vectors.py"
