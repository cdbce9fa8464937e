#!/usr/bin/env bash
# Installs those of the Debian/Ubuntu packages named on the command line that
# are not installed yet, with apt-get: directly as root (a fresh machine or
# container often has no sudo), through sudo otherwise. When nothing is
# missing it runs nothing and needs no privileges. Used by the README's first
# command and by .ci/run.
#   usage: scripts/install_packages.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install_packages: not root and no sudo: cannot install ${missing[*]} (run as root or install them)" >&2
    exit 1
  fi
  as_root=(sudo)
fi
echo "installing: ${missing[*]}"
"${as_root[@]}" apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
