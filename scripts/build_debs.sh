#!/usr/bin/env bash
# Debian packages from this tree, with dpkg's own tools only (no debian/
# source package: the tree is built once with CMake, installed under /usr into
# a staging folder, and that install is split into binary packages):
#   libgostx0              libgostx.so.0 (the shared library)
#   libgostx-dev           headers, libgostx.a, libgostx.so, gostx.pc, the CMake package
#   gostx                  the command, and the systemd units of tls serve and tunnel
#   openssl-provider-gostx the OpenSSL 3 provider, in OpenSSL's modulesdir
#   nbdkit-gostx-filter    the nbdkit filter, in nbdkit's filterdir
#   gostx-pkcs11           the PKCS#11 token module, in libdir/pkcs11, and its
#                          p11-kit module file
# Version: the project's (CMakeLists.txt), native (no Debian revision).
# Architecture: dpkg --print-architecture. Depends: dpkg-shlibdeps, plus the
# host programs the plugins need. Compiler flags: dpkg-buildflags (Debian's
# hardening), with -Werror as in CI.
#   usage: scripts/build_debs.sh OUTDIR     (writes OUTDIR/*.deb; needs
#          cmake, gcc, dpkg-dev, libssl-dev, nbdkit-plugin-dev, pkg-config)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: build_debs.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
src=$PWD
for t in cmake cc dpkg-deb dpkg-shlibdeps dpkg-buildflags pkg-config; do
  command -v "$t" >/dev/null || { echo "build_debs: $t is needed (apt-get install dpkg-dev cmake gcc pkg-config)" >&2; exit 1; }
done
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
version=$(sed -n 's/^project(gostx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "build_debs: no project version in CMakeLists.txt" >&2; exit 1; }
arch=$(dpkg --print-architecture)
maint=${DEB_MAINTAINER:-The gostx authors <maintainers@users.noreply.a-seed-b5306bf1.example>}
# Reproducible dates: the last commit's, else now.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# DEB_BUILD_DIR: a build folder to keep between runs (default: a fresh one).
build=${DEB_BUILD_DIR:-$work/build} stage=$work/stage

# Build and install under /usr (GNUInstallDirs: lib/<multiarch>); the plugins
# go where OpenSSL and nbdkit look for them, as pkg-config names those.
moddir=$(pkg-config --variable=modulesdir libcrypto)
filterdir=$(pkg-config --variable=filterdir nbdkit)
[ -n "$moddir" ] && [ -n "$filterdir" ] \
  || { echo "build_debs: pkg-config names no modulesdir (libssl-dev) or filterdir (nbdkit-plugin-dev)" >&2; exit 1; }
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS) -Werror"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_C_FLAGS="$cflags" -DCMAKE_SHARED_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" \
  -DCMAKE_MODULE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" \
  -DGOSTX_OPENSSL=ON -DGOSTX_NBDKIT=ON -DGOSTX_OSSL_MODULESDIR="$moddir" -DGOSTX_NBDKIT_FILTERDIR="$filterdir" >/dev/null
cmake --build "$build" -j "$jobs" --target gostx gostx_shared gostx_cli \
  gostx_ossl_provider nbdkit_gostx_filter gostx_pkcs11 >/dev/null
DESTDIR=$stage cmake --install "$build" >/dev/null
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
libdir=/usr/$libdir
# Stripped as dh_strip does: no debug info, no compiler notes.
nodbg=(--remove-section=.comment --remove-section=.note)
strip "${nodbg[@]}" "$stage/usr/bin/gostx"
strip "${nodbg[@]}" --strip-unneeded "$stage$libdir/libgostx.so.$version" \
  "$stage$moddir/gostx.so" "$stage$filterdir/nbdkit-gostx-filter.so" \
  "$stage$libdir/pkcs11/libgostx-pkcs11.so"
strip "${nodbg[@]}" --strip-debug --enable-deterministic-archives "$stage$libdir/libgostx.a"

# dpkg-shlibdeps reads debian/control and finds our own shlibs under
# debian/PKG/DEBIAN: the debhelper layout, made here.
mkdir -p "$work/debian"
printf 'Source: gostx\n\nPackage: gostx\nArchitecture: any\n' >"$work/debian/control"

take() { # PKG PATH...: moves staged paths into the package's tree
  local pkg=$1 p
  shift
  for p in "$@"; do
    [ -e "$stage$p" ] || [ -L "$stage$p" ] || { echo "build_debs: $p was not installed" >&2; exit 1; }
    mkdir -p "$work/debian/$pkg$(dirname "$p")"
    mv "$stage$p" "$work/debian/$pkg$p"
  done
}
take libgostx0 "$libdir/libgostx.so.0" "$libdir/libgostx.so.$version"
take libgostx-dev /usr/include "$libdir/libgostx.so" "$libdir/libgostx.a" \
  "$libdir/pkgconfig" "$libdir/cmake"
take gostx /usr/bin/gostx
# gostx tls serve and gostx tunnel as services: the systemd units
# (integrations/systemd/; Debian 12's units folder, which systemd's dpkg
# trigger watches) and the docs they name
mkdir -p "$work/debian/gostx/lib/systemd/system" "$work/debian/gostx/usr/share/doc/gostx"
cp integrations/systemd/gostx-tls@.service integrations/systemd/gostx-tunnel@.service \
  "$work/debian/gostx/lib/systemd/system/"
cp docs/TLS_CLI.md docs/TUNNEL.md "$work/debian/gostx/usr/share/doc/gostx/"
take openssl-provider-gostx "$moddir/gostx.so"
take nbdkit-gostx-filter "$filterdir/nbdkit-gostx-filter.so"
take gostx-pkcs11 "$libdir/pkcs11/libgostx-pkcs11.so" /usr/share/p11-kit/modules/gostx.module
left=$(find "$stage" -not -type d)
[ -z "$left" ] || { echo "build_debs: installed but in no package:" >&2; echo "$left" >&2; exit 1; }

# 0.x: a minor release may change the ABI under the same soname
# (docs/API_CHANGES.md), so programs need this minor.
next_minor=$(echo "$version" | awk -F. '{print $1 "." $2 + 1}')
echo "libgostx 0 libgostx0 (>= $version), libgostx0 (<< $next_minor~)" \
  >"$work/shlibs"
# nbdkit has no filter ABI across versions: it refuses a filter built for
# another version, so the filter needs the nbdkit it was built against.
nbd_ver=$(pkg-config --modversion nbdkit)
nbd_next=$(echo "$nbd_ver" | awk -F. '{print $1 "." $2 "." $3 + 1}')

copyright() { # the LICENSE, in Debian's machine-readable form
  printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
  printf 'Upstream-Name: gostx\n\nFiles: *\nCopyright: %s\nLicense: BSD-2-clause\n' \
    "$(sed -n 's/^Copyright (c) //p' LICENSE | head -1)"
  sed -n '/^Redistribution/,$p' LICENSE | sed 's/^$/./; s/^/ /'
}
changelog() { # PKG: one entry, for this build
  printf '%s (%s) unstable; urgency=medium\n\n  * Built from the gostx tree by scripts/build_debs.sh.\n\n -- %s  %s\n' \
    "$1" "$version" "$maint" "$(date -R -u -d "@$SOURCE_DATE_EPOCH")"
}

deb() { # PKG SECTION SHORT LONG [FIELD...]: writes OUTDIR/PKG_VERSION_ARCH.deb
  local pkg=$1 section=$2 short=$3 long=$4 root=$work/debian/$1 deps bins
  shift 4
  mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$pkg"
  copyright >"$root/usr/share/doc/$pkg/copyright"
  changelog "$pkg" | gzip -9n >"$root/usr/share/doc/$pkg/changelog.gz"
  # Debian's modes: libraries and data 0644, programs 0755, owned by root (below).
  find "$root" -type d -exec chmod 0755 {} +
  find "$root" -type f -exec chmod 0644 {} +
  [ ! -d "$root/usr/bin" ] || chmod 0755 "$root"/usr/bin/*
  bins=$(find "$root" -type f -name '*.so*' -o -type f -path '*/usr/bin/*')
  deps=""
  if [ -n "$bins" ]; then
    # shellcheck disable=SC2086
    deps=$(cd "$work" && dpkg-shlibdeps -O -T/dev/null -L"$work/shlibs" -l"$work/debian/libgostx0$libdir" \
      -p"$pkg" $bins 2>"$work/shlibdeps.err" | sed -n "s/^$pkg:Depends=//p") \
      || { cat "$work/shlibdeps.err" >&2; exit 1; }
    grep -v 'no dependency information found for' "$work/shlibdeps.err" >&2 || true
  fi
  {
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\n' "$pkg" "$version" "$arch" "$maint"
    printf 'Installed-Size: %s\n' "$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
    local extra_deps=() f
    for f in "$@"; do
      case $f in Depends:*) extra_deps+=("${f#Depends: }") ;; *) printf '%s\n' "$f" ;; esac
    done
    deps=$(printf '%s\n' "$deps" "${extra_deps[@]}" | sed 's/, */\n/g; /^$/d' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g')
    [ -z "$deps" ] || printf 'Depends: %s\n' "$deps"
    printf 'Section: %s\nPriority: optional\nDescription: %s\n' "$section" "$short"
    printf '%s\n' "$long" | sed 's/^$/./; s/^/ /'
  } >"$root/DEBIAN/control"
  (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0r md5sum) \
    >"$root/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${pkg}_${version}_${arch}.deb" >/dev/null
  echo "build_debs: $out/${pkg}_${version}_${arch}.deb"
}

about="gostx implements the Russian GOST cryptography standards: Streebog
(GOST R 34.11-2012), Kuznyechik and Magma (GOST R 34.12-2015) in their modes
(GOST R 34.13-2015, MGM, ACPKM), GOST R 34.10-2012 signatures and VKO key
agreement, and the KDFs, with constant-time code and runtime CPU dispatch."

mkdir -p "$work/debian/libgostx0/DEBIAN"
cp "$work/shlibs" "$work/debian/libgostx0/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$work/debian/libgostx0/DEBIAN/triggers"
deb libgostx0 libs "GOST cryptography library (Streebog, Kuznyechik, Magma)" "$about

This package holds the shared library." "Multi-Arch: same"
deb libgostx-dev libdevel "GOST cryptography library - development files" "$about

This package holds the headers, the static library, the pkg-config file
(gostx.pc) and the CMake package (find_package(gostx): gostx::gostx)." \
  "Depends: libgostx0 (= $version)"
deb gostx utils "GOST cryptography command-line tool" "$about

This package holds the gostx command: hashing, encryption and MACs of files,
key derivation, encrypted containers, benchmarks, GOST TLS in front of TCP
servers and an ESP tunnel, with systemd units for the last two
(gostx-tls@NAME, gostx-tunnel@NAME)."
deb openssl-provider-gostx libs "GOST cryptography provider for OpenSSL 3" "$about

This package holds an OpenSSL 3 provider (gostx), installed in OpenSSL's
modules folder: load it with -provider gostx or from openssl.cnf." \
  "Depends: libssl3 (>= 3.0.0)" "Enhances: openssl"
deb nbdkit-gostx-filter net "GOST disk encryption filter for nbdkit" "$about

This package holds an nbdkit filter (--filter=gostx) that serves any
plugin's disk encrypted with Kuznyechik-XTS (plain, as dm-crypt, or LUKS1)." \
  "Depends: nbdkit (>= $nbd_ver), nbdkit (<< $nbd_next~)" "Enhances: nbdkit"
deb gostx-pkcs11 libs "GOST software token for PKCS#11" "$about

This package holds libgostx-pkcs11.so, a PKCS#11 module that keeps GOST
R 34.10-2012 keys in a folder (GOSTX_PKCS11_DIR): key pairs, signatures,
Streebog digests and VKO through any PKCS#11 application, and a p11-kit
module file naming it." "Enhances: p11-kit, opensc"
