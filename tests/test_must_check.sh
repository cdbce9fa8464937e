#!/bin/bash
# Issue 30: the calls that authenticate or parse untrusted input carry
# GOSTX_MUST_CHECK (warn_unused_result), so a caller that drops the verdict
# gets a warning (at code generation: -fsyntax-only does not see it). For each call below a translation unit that ignores the
# result must fail under -Werror=unused-result, and one that uses it must
# compile; the headers must stay C11 (-std=c11 -pedantic) and C++.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calls="gostx_mgm_decrypt gostx_mgm_final_decrypt gostx_mgm_decrypt_mt gostx_kimp15
gostx_file_header_parse gostx_file_init_decrypt gostx_file_init_decrypt_limit
gostx_file_open_chunk gostx_file_decrypt_stream gostx_luks_header_parse gostx_luks_open
gostx_luks_add_key gostx_unpad2 gostx_memeq_ct gostx_batch_streams gostx_mode_final
gostx_pkcs12_key gostx_pkcs12_write gostx_gost3410_vko
gostx_esp_replay_check gostx_esp_replay_update gostx_x509_parse gostx_x509_verify
gostx_x509_pem_next gostx_x509_verify_with gostx_x509_csr_parse
gostx_x509_csr_pem_next gostx_gost3410_key_set_private gostx_gost3410_key_set_public
gostx_gost3410_key_read gostx_tls_config_set_key gostx_tls_set_session gostx_tls_key_update
gostx_tls_close gostx_cms_signed_parse
gostx_cms_signed_verify gostx_cms_sign gostx_cms_pem_read"
fail=0
for f in $calls; do
  # The number of parameters, from the prototype in the headers.
  n=$(python3 - "$root/include/gostx" "$f" <<'PY'
import glob, re, sys
text = " ".join(open(p).read() for p in glob.glob(sys.argv[1] + "/*.h"))
m = re.search(r"\b" + sys.argv[2] + r"\(([^;]*?)\);", text)
print(len(m.group(1).split(",")) if m else 0)
PY
)
  if [ "$n" = 0 ]; then echo "FAIL: $f: no prototype"; fail=1; continue; fi
  args=$(python3 -c "print(', '.join(['0'] * $n))")
  printf '#include "gostx.h"\nvoid t(void);\nvoid t(void) { %s(%s); }\n' "$f" "$args" >"$tmp/drop.c"
  printf '#include "gostx.h"\nint t(void);\nint t(void) { return %s(%s); }\n' "$f" "$args" >"$tmp/use.c"
  if "$cc" -std=c11 -c -o "$tmp/drop.o" -Werror=unused-result -I"$root/include" "$tmp/drop.c" 2>/dev/null; then
    echo "FAIL: $f: ignoring its result compiles without a warning"; fail=1
  elif ! "$cc" -std=c11 -c -o "$tmp/use.o" -Wall -Werror -I"$root/include" "$tmp/use.c"; then
    echo "FAIL: $f: using its result does not compile cleanly"; fail=1
  else
    echo "ok: $f must be checked"
  fi
done
printf '#include "gostx.h"\nint main(void) { return 0; }\n' >"$tmp/c11.c"
"$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$root/include" "$tmp/c11.c" ||
  { echo "FAIL: the headers are not clean C11"; fail=1; }
if command -v c++ >/dev/null; then
  cp "$tmp/c11.c" "$tmp/cxx.cc"
  c++ -std=c++11 -Wall -Werror -fsyntax-only -I"$root/include" "$tmp/cxx.cc" ||
    { echo "FAIL: the headers do not compile as C++"; fail=1; }
fi
exit $fail
