#!/usr/bin/env bash
# The generated headers are what their generators print today: a change to a
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
check gen_kuz_tables.py lib/kuznyechik/kuz_tables.h
check gen_streebog_tables.py lib/streebog/streebog_tables.h
exit $fail
