#!/usr/bin/env bash
# The Debian package gate (docs/INSTALL.md): builds the packages
# (scripts/build_debs.sh), runs lintian on them (errors fail), installs them
# with apt-get on this machine, uses what they installed the way their users
# do, then purges them and checks that nothing of them is left:
#   - a C program built with `pkg-config --cflags --libs gostx` (system paths
#     only) links libgostx.so.0 and hashes the standard's M1 to its digest;
#     the same through find_package(gostx), shared and static;
#   - `gostx --version` and `gostx info` run; the systemd units are installed
#     and pass systemd-analyze verify;
#   - openssl finds the provider by name in its own modules folder, lists it
#     and hashes M1 with it;
#   - nbdkit finds the filter by name (--filter=gostx) in its filterdir.
# Why this machine and not a chroot: CI is a fresh Debian 12 that already
# has openssl and nbdkit (.ci/run installs them), and a debootstrap chroot
# with a compiler, openssl and nbdkit takes minutes and the network mirror.
# So the gate refuses to run when any of the packages, or any file they
# ship, is already on the machine, and purges what it installed, also when
# a check fails. Needs root (or sudo), apt-get, lintian, dpkg-dev, cmake,
# gcc, pkg-config, libssl-dev, nbdkit-plugin-dev, openssl, nbdkit.
#   usage: scripts/check_debs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install_user/vector.sh
pkgs=(libgostx0 libgostx-dev gostx openssl-provider-gostx nbdkit-gostx-filter gostx-pkcs11)
for t in apt-get lintian cc cmake pkg-config readelf openssl nbdkit; do
  command -v "$t" >/dev/null || { echo "check_debs: $t is needed" >&2; exit 1; }
done
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "check_debs: needs root or sudo (it installs packages)" >&2; exit 1; }
  as_root=(sudo)
fi
fail() { echo "check_debs: FAIL: $*" >&2; exit 1; }
status() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true; }

tmp=$(mktemp -d)
chmod 0755 "$tmp" # apt's _apt user reads the .debs from here
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then
    echo "check_debs: purging after a failure" >&2
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}" >/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Nothing of ours may be here already: the purge below would remove it.
for p in "${pkgs[@]}"; do
  case $(status "$p") in
    "" | *not-installed) ;;
    *) fail "$p is on this machine already ($(status "$p")): purge it first" ;;
  esac
done

bash scripts/build_debs.sh "$tmp/debs"
debs=("$tmp"/debs/*.deb)
[ ${#debs[@]} -eq ${#pkgs[@]} ] || fail "${#debs[@]} packages built, want ${#pkgs[@]}"
# Every non-folder path the packages ship (files and links).
for d in "${debs[@]}"; do
  dpkg-deb --fsys-tarfile "$d" | tar -t | sed -n 's|^\./|/|; /[^/]$/p'
done | sort >"$tmp/files"
while read -r f; do
  [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f exists before install"
done <"$tmp/files"

# Lintian: errors fail; warnings are shown (docs/INSTALL.md lists the known one).
lint=0
lintian --fail-on error "${debs[@]}" >"$tmp/lintian.txt" 2>&1 || lint=$?
grep -v 'running with root privileges' "$tmp/lintian.txt" || true
[ "$lint" = 0 ] || fail "lintian reports errors (exit $lint)"

installed=1
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${debs[@]}" >"$tmp/apt.log" 2>&1 \
  || { cat "$tmp/apt.log"; fail "apt-get install of the packages failed"; }
for p in "${pkgs[@]}"; do
  [ "$(status "$p")" = "install ok installed" ] || fail "$p not installed: $(status "$p")"
done
echo "check_debs: installed ${pkgs[*]}"

# 1. The library, from the system folders only.
cp -r scripts/install_user "$tmp/user"
needs_libgostx() { readelf -d "$1" | grep 'NEEDED.*\[libgostx\.so\.0\]' >/dev/null; }
check_run() { # NAME BINARY
  local got
  got=$(env -u LD_LIBRARY_PATH "$2" "$m1") || fail "$1 did not run"
  [ "$got" = "$want" ] || fail "$1: Streebog-512(M1) = $got, want $want"
  echo "check_debs: $1: Streebog-512(M1) ok"
}
ldconfig -p | grep 'libgostx\.so\.0 ' >/dev/null || fail "ldconfig does not know libgostx.so.0"
# shellcheck disable=SC2046
env -u PKG_CONFIG_PATH cc -o "$tmp/user/hash_pc" "$tmp/user/hash.c" $(env -u PKG_CONFIG_PATH pkg-config --cflags --libs gostx)
needs_libgostx "$tmp/user/hash_pc" || fail "hash_pc does not link libgostx.so.0"
check_run "pkg-config (shared)" "$tmp/user/hash_pc"
env -u CMAKE_PREFIX_PATH cmake -S "$tmp/user" -B "$tmp/user/build" >/dev/null
cmake --build "$tmp/user/build" >/dev/null
needs_libgostx "$tmp/user/build/hash_shared" || fail "gostx::gostx does not link libgostx.so.0"
! needs_libgostx "$tmp/user/build/hash_static" || fail "gostx::gostx_static links libgostx.so.0"
check_run "find_package gostx::gostx" "$tmp/user/build/hash_shared"
check_run "find_package gostx::gostx_static" "$tmp/user/build/hash_static"

# 2. The command, from PATH.
[ "$(command -v gostx)" = /usr/bin/gostx ] || fail "gostx on PATH is $(command -v gostx), not /usr/bin/gostx"
ver=$(sed -n 's/^project(gostx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ "$(gostx --version)" = "gostx $ver" ] || fail "gostx --version: $(gostx --version)"
gostx info >"$tmp/info.txt" || fail "gostx info failed"
grep -q '^levels: ' "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "gostx info prints no levels"; }
echo "check_debs: gostx --version and gostx info ok"
# the units where systemd reads them, valid for an instance
for u in gostx-tls@.service gostx-tunnel@.service; do
  [ -f "/lib/systemd/system/$u" ] || fail "no /lib/systemd/system/$u"
  if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify "${u/@/@check}" >"$tmp/unit.txt" 2>&1 && [ ! -s "$tmp/unit.txt" ] ||
      { cat "$tmp/unit.txt"; fail "systemd-analyze verify ${u/@/@check}"; }
  fi
done
echo "check_debs: the systemd units ok"

# 3. The provider, by name from OpenSSL's own modules folder.
openssl list -providers -provider gostx >"$tmp/prov.txt" 2>&1 \
  || { cat "$tmp/prov.txt"; fail "openssl cannot load the provider gostx"; }
grep -q '^ *gostx$' "$tmp/prov.txt" || { cat "$tmp/prov.txt"; fail "openssl does not list gostx"; }
got=$(printf %s "$m1" | openssl dgst -provider gostx -streebog512 -r | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "openssl dgst -streebog512 through the provider: $got"
echo "check_debs: openssl -provider gostx lists and hashes ok"

# 4. The filter, by name from nbdkit's filterdir.
filterdir=$(nbdkit --dump-config | sed -n 's/^filterdir=//p')
[ -e "$filterdir/nbdkit-gostx-filter.so" ] || fail "no nbdkit-gostx-filter.so in nbdkit's filterdir $filterdir"
nbdkit --filter=gostx null --dump-plugin >"$tmp/nbd.txt" 2>&1 \
  || { cat "$tmp/nbd.txt"; fail "nbdkit --filter=gostx does not load"; }
nbdkit --filter=gostx null --help >"$tmp/nbd.txt" 2>&1 || true
grep -q '^filter: gostx ' "$tmp/nbd.txt" || { cat "$tmp/nbd.txt"; fail "nbdkit --help does not show the gostx filter"; }
echo "check_debs: nbdkit --filter=gostx loads ok"

# 5. The PKCS#11 module, by name through p11-kit's module file (where
# p11-kit is installed) and by its path.
p11mod=$(dpkg -L gostx-pkcs11 | grep '/pkcs11/libgostx-pkcs11.so$')
[ -n "$p11mod" ] || fail "gostx-pkcs11 ships no pkcs11/libgostx-pkcs11.so"
if command -v p11-kit >/dev/null; then
  GOSTX_PKCS11_DIR=$tmp/tokens p11-kit list-modules >"$tmp/p11kit.txt" 2>&1 || true
  grep -q "^gostx:" "$tmp/p11kit.txt" || { cat "$tmp/p11kit.txt"; fail "p11-kit list-modules does not name gostx"; }
fi
if command -v pkcs11-tool >/dev/null; then
  GOSTX_PKCS11_DIR=$tmp/tokens pkcs11-tool --module "$p11mod" -L >"$tmp/p11.txt" 2>&1 \
    || { cat "$tmp/p11.txt"; fail "pkcs11-tool cannot load $p11mod"; }
fi
echo "check_debs: the PKCS#11 module loads ok"

# Purge; nothing may be left: no package state, no file, no ldconfig entry.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}" >"$tmp/apt.log" 2>&1 \
  || { cat "$tmp/apt.log"; fail "apt-get purge failed"; }
installed=0
for p in "${pkgs[@]}"; do
  case $(status "$p") in
    "" | *not-installed) ;;
    *) fail "$p after purge: $(status "$p")" ;;
  esac
done
while read -r f; do
  [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f left after purge"
done <"$tmp/files"
! ldconfig -p | grep libgostx >/dev/null || fail "ldconfig still lists libgostx after purge"
echo "check_debs: purged, nothing left ($(wc -l <"$tmp/files") paths checked)"
echo "check_debs: all passed"
