#!/usr/bin/env bash
# CI stage for the Python package (python/README.md): a fresh virtual
# environment, `pip install ./python` from the repository's C sources, the test
# dependencies from PyPI, `pytest python/tests` (the CLI cross-checks use
# build/gostx, built by the earlier stages; they skip without it), then the
# sdist (`python -m build --sdist`) installed into a second fresh venv away
# from the repository (it must carry the C sources it builds) and smoke-tested,
# then the manylinux wheel script. A few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$PYTHON" -m venv "$venv"
# GOSTX_XMLDSIG=ON: gostx.xmldsig's library (libxml2-dev) built, or the install fails
"$venv/bin/pip" install -q --config-settings=cmake.define.GOSTX_XMLDSIG=ON ./python pytest numpy gostcrypto mypy "dask[distributed]" \
  "requests>=2.32.3" "httpx>=0.28" aiohttp lxml PyKCS11
# python/tests/test_pkcs11.py makes tokens in gostx's module, built with the
# command by the earlier stages: named here, a missing module fails the test
# instead of skipping it.
if [ -x build/gostx ]; then
  export GOSTX_PKCS11_MODULE=$PWD/build/libgostx-pkcs11.so
fi
"$venv/bin/python" -m pytest -q python/tests
# gostx's PKCS#11 token through PyKCS11 from PyPI (tests/pkcs11/), when the
# earlier stages built the module and the command.
if [ -e build/libgostx-pkcs11.so ] && [ -x build/gostx ]; then
  GOSTX_P11_PYTHON="$venv/bin/python" GOSTX=$PWD/build/gostx \
    bash tests/pkcs11/test_p11_python.sh build/libgostx-pkcs11.so
fi

# The sdist: built from python/, installed from the tarball alone (no
# GOSTX_SOURCE_DIR, no repository beside it), then the vectors and the file
# rules run against that install.
"$venv/bin/pip" install -q build
sdist_dir=$(dirname "$venv")/sdist
"$venv/bin/python" -m build --sdist -o "$sdist_dir" python >/dev/null
sdvenv=$(dirname "$venv")/sdvenv
"$PYTHON" -m venv "$sdvenv"
(cd "$sdist_dir" && env -u GOSTX_SOURCE_DIR "$sdvenv/bin/pip" install -q ./gostx-*.tar.gz pytest)
"$sdvenv/bin/python" - <<'PY'
import importlib.metadata as md
import gostx
meta = md.metadata("gostx")
assert meta["License-Expression"] == "BSD-2-Clause", meta["License-Expression"]
assert any(str(f).endswith("gostx/LICENSE") for f in md.files("gostx")), "no LICENSE in the install"
from gostx._native import lib  # the sdist carries integrations/xmldsig and built it
assert hasattr(lib, "gostx_xmldsig_verify_untrusted"), "no libgostx-xmldsig in the sdist's build"
print("sdist install:", gostx.__version__, gostx.implementations())
PY
"$sdvenv/bin/python" -m pytest -q python/tests/test_vectors.py python/tests/test_doors.py
bash python/build_wheels.sh "$PYTHON"
