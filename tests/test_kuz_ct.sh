#!/usr/bin/env bash
# Constant time under valgrind (tests/ct/kuz_ct.c): no branch or address may
# depend on the key or the data in portable, ssse3 and avx2; the leaky opt-in
# lstable must be caught (so the check itself works). Skips without valgrind.
set -u
CT="$(dirname "${GOSTX:-build/gostx}")/kuz_ct"
command -v valgrind >/dev/null || { echo "no valgrind: skipped"; exit 77; }
[ -x "$CT" ] || { echo "no $CT: skipped"; exit 77; }
# valgrind cannot run AddressSanitizer binaries (the ASan build of the suite).
if ldd "$CT" 2>/dev/null | grep -q 'libasan'; then echo "sanitizer build: skipped"; exit 77; fi
fail=0 ran=0
for impl in portable ssse3 avx2; do
  valgrind -q --error-exitcode=99 "$CT" "$impl" > /dev/null 2> /tmp/kuz_ct.$$.log
  rc=$?
  case $rc in
    0) echo "ok: $impl has no secret-dependent branch or address"; ran=1 ;;
    77) echo "skip: $impl (not on this CPU, or no memcheck.h)" ;;
    *) echo "FAIL: $impl (rc $rc)"; head -20 /tmp/kuz_ct.$$.log; fail=1 ;;
  esac
done
valgrind -q --error-exitcode=99 "$CT" lstable > /dev/null 2> /tmp/kuz_ct.$$.log
rc=$?
if [ $rc = 99 ]; then echo "ok: lstable's table lookups are reported";
elif [ $rc = 77 ]; then echo "skip: lstable";
else echo "FAIL: lstable not reported (rc $rc): the check does not work"; fail=1; fi
rm -f /tmp/kuz_ct.$$.log
[ $ran = 1 ] || [ $fail = 1 ] || exit 77
exit $fail
