# Sourced by the openssl command tests: $1 the folder with gostx.so; skips
# (77) without openssl, xxd or gost-engine's provider gostprov. Sets
# ours/theirs (the provider arguments), tmp (removed on exit), check, hex, rnd,
# refused.
set -u
dir=${1:?usage: $(basename "$0") MODULE_DIR}
command -v openssl >/dev/null || { echo "SKIP: no openssl binary"; exit 77; }
command -v xxd >/dev/null || { echo "SKIP: xxd missing"; exit 77; }
sysdir=$(openssl version -m | sed 's/^MODULESDIR: "\(.*\)"$/\1/')
gp="$sysdir/gostprov.so"
[ -f "$gp" ] || { echo "SKIP: gostprov not installed (Debian: libengine-gost-openssl)"; exit 77; }

ours=(-provider-path "$dir" -provider gostx)
theirs=(-provider "$gp" -provider default)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # what ok
  if [ "$2" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}
hex() { xxd -p | tr -d '\n'; }
rnd() { head -c "$1" /dev/urandom | hex; }
# A command that must fail, its stderr matching pattern (a clear error).
refused() { # what pattern cmd...
  local what=$1 pat=$2
  shift 2
  if "$@" >"$tmp/o" 2>"$tmp/e" < /dev/null; then check "$what refused" 0; return; fi
  check "$what refused with '$pat'" "$(grep -qi "$pat" "$tmp/e" && echo 1 || echo 0)"
}
