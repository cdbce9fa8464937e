#!/bin/bash
# scripts/migrate_api.py rewrites calls to the current argument order:
# from 0.2 (--from 0.2) only the changes since 0.2.0, from 0.1 both steps.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name file expected
  if ! diff -u "$3" "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi
}

cat >"$tmp/v02.c" <<'C'
rc = gostx_xts_encrypt_disk(pool, &key, 4096, GOSTX_XTS_TWEAK_512, s0, in, n, out);
rc = (dec ? gostx_batch_xts_decrypt : gostx_batch_xts_encrypt)(p, kp, 1, NULL, first, in, sl, ns, out);
rc = gostx_xts_encrypt_mt(pool, &key, first, 512, in, len, out);
C
cat >"$tmp/v02.want" <<'C'
rc = gostx_xts_encrypt_disk(pool, &key, s0, 4096, GOSTX_XTS_TWEAK_512, in, n, out);
rc = (dec ? gostx_batch_xts_decrypt : gostx_batch_xts_encrypt)(p, kp, 1, NULL, first, sl, in, ns, out);
rc = gostx_xts_encrypt_mt(pool, &key, first, 512, in, len, out);
C
python3 "$root/scripts/migrate_api.py" --from 0.2 "$tmp/v02.c" >"$tmp/v02.out"
check "--from 0.2: XTS (first_sector, sector size) order" "$tmp/v02.c" "$tmp/v02.want"
# The removed sector-batch calls (one batch API): both names of line 2 listed.
for name in gostx_batch_xts_decrypt gostx_batch_xts_encrypt; do
  if grep -q "^check by hand: $tmp/v02.c:2: $name removed: .*gostx_batch_streams(pool, GOSTX_BATCH_XTS_" "$tmp/v02.out"; then
    echo "ok: $name listed as removed"
  else
    echo "FAIL: $name not listed as removed"; cat "$tmp/v02.out"; fail=1
  fi
done
printf 'rc = gostx_batch_omac(p, kp, 1, in, 512, n, tags, 16);\n' >"$tmp/omac.c"
python3 "$root/scripts/migrate_api.py" --from 0.2 "$tmp/omac.c" >"$tmp/omac.out"
if grep -q "gostx_batch_omac removed: .*GOSTX_BATCH_OMAC.*tag_len" "$tmp/omac.out"; then
  echo "ok: gostx_batch_omac listed as removed"
else
  echo "FAIL: gostx_batch_omac not listed"; cat "$tmp/omac.out"; fail=1
fi

cat >"$tmp/v01.c" <<'C'
gostx_batch_xts_encrypt(p, kp, 1, NULL, first, in, out, sl, ns);
gostx_xts_decrypt_disk(p, &key, 4096, 512, s0, in, out, n);
gostx_ct_clear(&c);
C
cat >"$tmp/v01.want" <<'C'
gostx_batch_xts_encrypt(p, kp, 1, NULL, first, sl, in, ns, out);
gostx_xts_decrypt_disk(p, &key, s0, 4096, 512, in, n, out);
gostx_file_clear(&c);
C
python3 "$root/scripts/migrate_api.py" "$tmp/v01.c" >/dev/null
check "from 0.1: both steps" "$tmp/v01.c" "$tmp/v01.want"

if python3 "$root/scripts/migrate_api.py" --from 0.9 "$tmp/v01.c" 2>/dev/null; then
  echo "FAIL: an unknown --from accepted"; fail=1
fi
exit $fail
