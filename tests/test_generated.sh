#!/usr/bin/env bash
# The generated files are what their generators print today: a change to a
# generator (or to the circuits it reads, scripts/kuz_sbox4_circuits.py) lands
# together with its output. Running the Kuznyechik generator also re-checks
# the S-box circuits on all 256 inputs.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
fail=0
check() {  # generator, header
  if python3 "$root/scripts/$1" | cmp -s - "$root/$2"; then
    echo "ok: $2"
  else
    echo "FAIL: $2 differs from what scripts/$1 prints (regenerate: python3 scripts/$1 > $2)"
    fail=1
  fi
}
# The Kuznyechik generator writes its header and its .c into a directory.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if python3 "$root/scripts/gen_kuz_tables.py" "$tmp"; then
  for f in kuz_tables.h kuz_tables.c; do
    if cmp -s "$tmp/$f" "$root/lib/kuznyechik/$f"; then
      echo "ok: lib/kuznyechik/$f"
    else
      echo "FAIL: lib/kuznyechik/$f differs from what scripts/gen_kuz_tables.py writes (regenerate: python3 scripts/gen_kuz_tables.py)"
      fail=1
    fi
  done
else
  echo "FAIL: scripts/gen_kuz_tables.py"
  fail=1
fi
check gen_streebog_tables.py lib/streebog/streebog_tables.h
exit $fail
