#!/usr/bin/env bash
# The install gate (docs/QUALITY.md): `cmake --install` of a fresh build into a
# scratch prefix, then the installed files used the way their users use them:
#   - a C program (Streebog-512 of the standard's message M1, compared with the
#     standard's digest) built against the prefix with `pkg-config --cflags
#     --libs gostx` (libgostx.so), and with a small CMake project through
#     find_package(gostx): gostx::gostx (shared) and gostx::gostx_static; each
#     must run, print the digest, and link the library it names (the shared
#     ones need libgostx.so.0, the static one does not); the same C program
#     built through `pkg-config --define-prefix` against a tree installed with
#     `cmake --install --prefix` elsewhere and then moved;
#   - the OpenSSL module from its install folder: `openssl list -providers`
#     lists it and it hashes M1 to the same digest;
#   - the nbdkit filter from its install folder: nbdkit loads it (--dump-plugin)
#     and its help names it;
#   - the PKCS#11 token module in LIBDIR/pkcs11 with its p11-kit module file;
#     pkcs11-tool (where installed) loads it and lists its free slot;
#   - with no override, the module and the filter go to the folders pkg-config
#     names for libcrypto (modulesdir) and nbdkit (filterdir) (checked under
#     DESTDIR, so no root is needed).
# Nothing outside a temporary folder is written. Usage: check_install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in cmake cc pkg-config openssl nbdkit readelf; do
  command -v "$t" >/dev/null || { echo "check_install: $t is needed" >&2; exit 1; }
done

fail() { echo "check_install: FAIL: $*" >&2; exit 1; }

. scripts/install_user/vector.sh

prefix=$tmp/prefix moddir=$tmp/ossl-modules filterdir=$tmp/nbdkit-filters
build=$tmp/build
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DGOSTX_OPENSSL=ON -DGOSTX_NBDKIT=ON \
  -DGOSTX_OSSL_MODULESDIR="$moddir" -DGOSTX_NBDKIT_FILTERDIR="$filterdir" >/dev/null
# Only what installs (the tests are not installed, and not built here).
cmake --build "$build" -j "$jobs" --target gostx gostx_shared gostx_cli \
  gostx_ossl_provider nbdkit_gostx_filter gostx_pkcs11 >/dev/null
cmake --install "$build" >"$tmp/install.log"

# What must be there. The library folder is GNUInstallDirs' choice: find it
# through the pkg-config file.
pc=$(find "$prefix" -name gostx.pc -path '*/pkgconfig/*' 2>/dev/null || true)
[ -n "$pc" ] || fail "no gostx.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
for f in include/gostx.h include/gostx/hash.h include/gostx/common.h bin/gostx; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for f in libgostx.a libgostx.so libgostx.so.0 cmake/gostx/gostxConfig.cmake \
         cmake/gostx/gostxConfigVersion.cmake cmake/gostx/gostxTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f not installed"
done
[ -e "$moddir/gostx.so" ] || fail "OpenSSL module not in $moddir"
[ -e "$filterdir/nbdkit-gostx-filter.so" ] || fail "nbdkit filter not in $filterdir"
# Every public header made it (the installed set equals include/).
diff <(cd include && find . -name '*.h' | sort) <(cd "$prefix/include" && find . -name '*.h' | sort) \
  || fail "installed headers differ from include/"

# The consumer (scripts/install_user): hashes argv[1] with Streebog-512.
cp -r scripts/install_user "$tmp/user"

check_run() { # NAME BINARY: runs it on M1 against the installed library only
  local got
  got=$(env LD_LIBRARY_PATH="$libdir" "$2" "$m1") || fail "$1 did not run"
  [ "$got" = "$want" ] || fail "$1: Streebog-512(M1) = $got, want $want"
  echo "check_install: $1: Streebog-512(M1) ok"
}
needs_libgostx() { readelf -d "$1" | grep 'NEEDED.*\[libgostx\.so\.0\]' >/dev/null; }

# 1. pkg-config (the .pc from the prefix, none from the build tree).
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -o "$tmp/user/hash_pc" "$tmp/user/hash.c" $(pkg-config --cflags --libs gostx)
needs_libgostx "$tmp/user/hash_pc" || fail "hash_pc does not link libgostx.so.0"
check_run "pkg-config (shared)" "$tmp/user/hash_pc"

# 1b. A relocated tree: installed with `cmake --install --prefix` into another
# folder, then moved; `pkg-config --define-prefix` must point every -I and -L
# into the moved tree (the configure-time prefix above still exists, so a
# flag naming it would compile without this check).
cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/moved"
moved_pc=$(find "$tmp/moved" -name gostx.pc -path '*/pkgconfig/*')
moved_flags=$(PKG_CONFIG_PATH=$(dirname "$moved_pc") pkg-config --define-prefix --cflags --libs gostx)
for f in $moved_flags; do
  case $f in
    -I*|-L*) case ${f:2} in "$tmp/moved"/*) ;; *) fail "relocated gostx.pc names ${f:2}, outside $tmp/moved: $moved_flags" ;; esac ;;
  esac
done
cc -o "$tmp/user/hash_moved" "$tmp/user/hash.c" $moved_flags
got=$(env LD_LIBRARY_PATH="$(dirname "$(dirname "$moved_pc")")" "$tmp/user/hash_moved" "$m1") \
  || fail "hash_moved did not run"
[ "$got" = "$want" ] || fail "relocated pkg-config build: Streebog-512(M1) = $got, want $want"
echo "check_install: relocated tree through pkg-config --define-prefix ok"

# 2. find_package(gostx), only the prefix on CMake's search path.
cmake -S "$tmp/user" -B "$tmp/user/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/user/build" >/dev/null
needs_libgostx "$tmp/user/build/hash_shared" || fail "gostx::gostx does not link libgostx.so.0"
! needs_libgostx "$tmp/user/build/hash_static" || fail "gostx::gostx_static links libgostx.so.0"
check_run "find_package gostx::gostx" "$tmp/user/build/hash_shared"
check_run "find_package gostx::gostx_static" "$tmp/user/build/hash_static"
"$prefix/bin/gostx" --version >/dev/null || fail "installed gostx does not run"

# 3. The OpenSSL module, by name from its folder.
openssl list -providers -provider-path "$moddir" -provider gostx >"$tmp/prov.txt" 2>&1 \
  || { cat "$tmp/prov.txt"; fail "openssl cannot load $moddir/gostx.so"; }
grep -q '^ *gostx$' "$tmp/prov.txt" || { cat "$tmp/prov.txt"; fail "openssl does not list gostx"; }
got=$(printf %s "$m1" | openssl dgst -provider-path "$moddir" -provider gostx -streebog512 -r | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "openssl dgst -streebog512 through the installed module: $got"
echo "check_install: OpenSSL module lists and hashes ok"

# 4. The nbdkit filter: nbdkit loads it and shows its help.
nbdkit --filter="$filterdir/nbdkit-gostx-filter.so" null --dump-plugin >"$tmp/nbd.txt" 2>&1 \
  || { cat "$tmp/nbd.txt"; fail "nbdkit cannot load $filterdir/nbdkit-gostx-filter.so"; }
nbdkit --filter="$filterdir/nbdkit-gostx-filter.so" null --help >"$tmp/nbd.txt" 2>&1 || true
grep -q '^filter: gostx ' "$tmp/nbd.txt" || { cat "$tmp/nbd.txt"; fail "nbdkit --help does not show the gostx filter"; }
echo "check_install: nbdkit filter loads ok"

# 4b. The PKCS#11 module (docs/PKCS11.md), beside the other modules of
# libdir/pkcs11, and p11-kit's file naming it.
[ -e "$libdir/pkcs11/libgostx-pkcs11.so" ] || fail "PKCS#11 module not in $libdir/pkcs11"
[ -e "$prefix/share/p11-kit/modules/gostx.module" ] || fail "no share/p11-kit/modules/gostx.module"
if command -v pkcs11-tool >/dev/null; then
  GOSTX_PKCS11_DIR=$tmp/tokens pkcs11-tool --module "$libdir/pkcs11/libgostx-pkcs11.so" -L >"$tmp/p11.txt" 2>&1 \
    || { cat "$tmp/p11.txt"; fail "pkcs11-tool cannot load the installed module"; }
  grep -q "gostx free slot" "$tmp/p11.txt" || { cat "$tmp/p11.txt"; fail "the installed module lists no free slot"; }
  echo "check_install: PKCS#11 module loads ok"
fi

# 5. The default folders: with no override, OpenSSL's and nbdkit's own (what
# pkg-config says), under DESTDIR here.
cmake -S "$src" -B "$build" -DGOSTX_OSSL_MODULESDIR= -DGOSTX_NBDKIT_FILTERDIR= >/dev/null
DESTDIR="$tmp/root" cmake --install "$build" >/dev/null
sys_moddir=$(pkg-config --variable=modulesdir libcrypto)
sys_filterdir=$(pkg-config --variable=filterdir nbdkit)
[ -e "$tmp/root$sys_moddir/gostx.so" ] || fail "default install did not put gostx.so in $sys_moddir"
[ -e "$tmp/root$sys_filterdir/nbdkit-gostx-filter.so" ] \
  || fail "default install did not put the filter in $sys_filterdir"
echo "check_install: default folders $sys_moddir and $sys_filterdir ok"
echo "check_install: all passed"
