#!/usr/bin/env bash
# bench/ike_speed works and its output has the promised shape: the four
# rows (PSK at 256 and 512, certificates at 256 and 512) of the engine and
# of the gateway's manager, each a positive rate; a bad argument is a usage error (2). Its handshakes are checked by
# the program itself (a failed one exits 1). Correctness of the tool, not
# speed. Env: GOSTX (the binary; the bench is beside it). 77 = skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${GOSTX:=$here/../build/gostx}"
bench=$(dirname "$GOSTX")/bench/ike_speed
[ -x "$bench" ] || { echo "ike_speed not found at $bench: skipping"; exit 77; }
fail=0
err() { echo "FAIL: $*"; fail=1; }
out=$("$bench" 0.02 1) || err "ike_speed exit $?"
for row in "PSK, MAGMA_MGM_KTREE, KE 33" "PSK, KUZNYECHIK_MGM_KTREE, KE 34" \
           "certificates 256 (paramSetA)" "certificates 512 (paramSetC)"; do
  for r in "  $row" "  gateway, $row"; do
    rate=$(echo "$out" | grep -F "$r" | awk '{print $NF}')
    [ -n "$rate" ] && [ "$rate" -gt 0 ] 2>/dev/null || err "row '$r': '${rate}'"
  done
done
[ "$(echo "$out" | grep -c '^  ')" -eq 8 ] || err "not eight rows: $out"
"$bench" 0 1 >/dev/null 2>&1
[ $? -eq 2 ] || err "SECONDS 0: not a usage error"
[ $fail -eq 0 ] && echo "test_ike_speed: ok"
exit $fail
