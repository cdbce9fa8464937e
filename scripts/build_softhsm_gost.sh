#!/usr/bin/env bash
# SoftHSMv2 2.6.1 built with GOST R 34.10-2001 (--enable-gost), for
# tests/test_p11_softhsm.sh and bench/p11_speed.sh: a PKCS#11 module gostx
# did not write that holds GOST keys. Debian 12's softhsm2 package is built
# without GOST. SoftHSM reaches GOST through OpenSSL's "gost" ENGINE, which
# it loads itself (ENGINE_by_id("gost")): with Debian 12's OpenSSL 3.0 and
# libengine-gost-openssl installed it builds and works unpatched, with no
# openssl.cnf entry.
#
# Only the module and softhsm2-util are built (no tests, no p11-kit file, no
# SQLite object store), out of tree, -O2, into PREFIX.
#
# usage: scripts/build_softhsm_gost.sh PREFIX [CACHE_DIR]
#   CACHE_DIR: where softhsm2_2.6.1.orig.tar.gz is, or is downloaded to
#   (default PREFIX/src). Prints the module's path last; then
#   export GOSTX_SOFTHSM_GOST_MODULE=<that path>
# The module and PREFIX/bin/softhsm2-util read their configuration (the
# token folder) from $SOFTHSM2_CONF: no PREFIX/etc/softhsm2.conf is made.
# Needs: g++, make, libssl-dev, libengine-gost-openssl, curl (to download).
set -euo pipefail
prefix=${1:?usage: build_softhsm_gost.sh PREFIX [CACHE_DIR]}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
cache=${2:-$prefix/src}
mkdir -p "$cache"
name=softhsm2_2.6.1.orig.tar.gz
# Debian's copy of the upstream release tarball (softhsm2 2.6.1-2 in bookworm)
url=http://deb.debian.org/debian/pool/main/s/softhsm2/$name
sha256=ac9ac1e3f4402f88bf3e626a18f070f8031c031947ed469c6e17482495ec72b6

if [ ! -f "$cache/$name" ]; then
  curl -sSfL -o "$cache/$name.part" "$url"
  mv "$cache/$name.part" "$cache/$name"
fi
echo "$sha256  $cache/$name" | sha256sum -c --quiet - ||
  { echo "build_softhsm_gost.sh: $cache/$name is not the pinned SoftHSMv2 2.6.1 (sha256)" >&2; exit 1; }

work=$prefix/build
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$cache/$name" -C "$work"
mkdir "$work/obj"
cd "$work/obj"
jobs=$(nproc 2>/dev/null || echo 2)
# configure's own GOST check loads the engine; --enable-gost makes a
# missing engine an error rather than a build without GOST.
../softhsm2-2.6.1/configure --prefix="$prefix" --enable-gost --disable-p11-kit \
  --without-objectstore-backend-db --without-migrate --disable-static \
  CFLAGS=-O2 CXXFLAGS=-O2 >configure.log 2>&1 ||
  { tail -20 configure.log >&2; echo "build_softhsm_gost.sh: configure failed (log: $PWD/configure.log)" >&2; exit 1; }
grep -q '^#define WITH_GOST' config.h ||
  { echo "build_softhsm_gost.sh: configure found no GOST support (is libengine-gost-openssl installed?)" >&2; exit 1; }
# src/lib (the module, without its tests) and src/bin/util (softhsm2-util)
# and what that links: nothing else of the tree.
for d in src/lib src/bin/common src/bin/util; do
  make -j"$jobs" -C "$d" >>make.log 2>&1 ||
    { tail -20 make.log >&2; echo "build_softhsm_gost.sh: make in $d failed (log: $PWD/make.log)" >&2; exit 1; }
done
make -C src/lib install-libLTLIBRARIES >>make.log 2>&1
make -C src/bin/util install-binPROGRAMS >>make.log 2>&1
module=$prefix/lib/softhsm/libsofthsm2.so
[ -f "$module" ] || { echo "build_softhsm_gost.sh: no $module after the build" >&2; exit 1; }
rm -rf "$work"
echo "$module"
