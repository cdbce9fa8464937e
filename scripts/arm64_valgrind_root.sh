#!/usr/bin/env bash
# Puts AArch64 valgrind (memcheck) and the AArch64 C library with its debug
# symbols (valgrind needs ld.so's) into a private root, DIR, for running the
# constant-time check on the neon level under qemu-aarch64
# (scripts/check_ct.sh --aarch64). Nothing is installed system-wide: the
# Debian packages are downloaded and unpacked into DIR, because valgrind:arm64
# and the machine's own valgrind cannot be installed side by side. Needs the
# arm64 architecture in dpkg's list (added here, with sudo where not root).
#   usage: scripts/arm64_valgrind_root.sh DIR
set -euo pipefail
dir=$1
tool=$dir/usr/libexec/valgrind/memcheck-arm64-linux
[ -x "$tool" ] && [ -d "$dir/usr/lib/debug" ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${as_root[@]}" dpkg --add-architecture arm64
  "${as_root[@]}" apt-get update -q
fi
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download -q valgrind:arm64 libc6:arm64 libc6-dbg:arm64 ||
  { "${as_root[@]}" apt-get update -q && apt-get download -q valgrind:arm64 libc6:arm64 libc6-dbg:arm64; })
mkdir -p "$dir"
for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$dir"; done
[ -x "$tool" ] || { echo "arm64_valgrind_root: no $tool after unpacking" >&2; exit 1; }
echo "arm64 valgrind root: $dir"
