#!/bin/bash
# The version is written in include/gostx/common.h (GOSTX_VERSION_MAJOR,
# _MINOR, _PATCH); CMakeLists.txt's project(VERSION) (the shared library's
# file name) and python/pyproject.toml must say the same. test_api checks
# that gostx_version() returns the header's string.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
num() { sed -n "s/^#define GOSTX_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$root/include/gostx/common.h"; }
header="$(num MAJOR).$(num MINOR).$(num PATCH)"
cmake=$(sed -n 's/^project(gostx VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
py=$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' "$root/python/pyproject.toml")
fail=0
case "$header" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "FAIL: no GOSTX_VERSION_MAJOR/MINOR/PATCH in include/gostx/common.h ($header)"; exit 1 ;;
esac
[ "$cmake" = "$header" ] || { echo "FAIL: CMakeLists.txt project(VERSION $cmake), common.h $header"; fail=1; }
[ "$py" = "$header" ] || { echo "FAIL: python/pyproject.toml version $py, common.h $header"; fail=1; }
[ $fail = 0 ] && echo "ok: version $header in common.h, CMakeLists.txt and pyproject.toml"
exit $fail
