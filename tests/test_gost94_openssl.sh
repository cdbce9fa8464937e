#!/bin/bash
# Differential test: `gostx hash -a gost94` (GOST R 34.11-94, CryptoPro
# parameter set) against openssl with gost-engine's md_gost94 (an independent
# implementation) on random inputs of every length 0..300 and some large ones,
# many files at once and through -c; `-a gost94-test` on the standard's
# examples (RFC 5831 7.3, printed there byte-reversed).
# Skips (exit 77) without $GOSTX or without openssl's gost engine.
set -u
GOSTX=${GOSTX:-}
[ -n "$GOSTX" ] && [ -x "$GOSTX" ] || { echo "SKIP: \$GOSTX not set or not executable"; exit 77; }
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 ||
  { echo "SKIP: openssl gost engine unavailable"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # what got want
  if [ -n "$3" ] && [ "$2" = "$3" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $1: got '$2' want '$3'"; fi
}

# Every length 0..300 (all the block and checksum edges), some large ones,
# and all-0xff blocks (the 256-bit checksum carries all the way).
lens="$(seq 0 300) 1000 4095 65536 262145 $((RANDOM * 7))"
for len in $lens; do head -c "$len" /dev/urandom > "$tmp/r$len"; done
for len in 32 64 96 320; do head -c "$len" /dev/zero | tr '\0' '\377' > "$tmp/ff$len"; done
files=()
for f in "$tmp"/r* "$tmp"/ff*; do files+=("$f"); done
# one gostx run over all files (hashed several at a time), one line each
"$GOSTX" hash -a gost94 -j 4 "${files[@]}" > "$tmp/list" 2> "$tmp/err"
declare -A ours
while read -r d name; do ours[$name]=$d; done < "$tmp/list"
for f in "${files[@]}"; do
  want=$(openssl dgst -engine gost -md_gost94 -r < "$f" 2>/dev/null | cut -d' ' -f1)
  check "gost94 $(basename "$f") ($(wc -c < "$f") bytes)" "${ours[$f]:-}" "$want"
done

# -c with -a gost94 accepts the list and catches a changed file
out=$("$GOSTX" hash -c -a gost94 --quiet "$tmp/list" 2>&1)
check "hash -c -a gost94: all OK" "rc=$? out='$out'" "rc=0 out=''"
printf x >> "$tmp/r100"
out=$("$GOSTX" hash -c -a gost94 --quiet "$tmp/list" 2>/dev/null)
check "hash -c -a gost94: a changed file" "$out" "$tmp/r100: FAILED"

# The standard's examples with the test parameter set (RFC 5831 7.3.1, 7.3.2;
# printed there byte-reversed), and stdin
rev() { echo "$1" | sed 's/../& /g' | tr ' ' '\n' | tac | tr -d '\n' | tr 'A-F' 'a-f'; }
got=$(printf 'This is message, length=32 bytes' | "$GOSTX" hash -a gost94-test | cut -d' ' -f1)
check "gost94-test RFC 5831 7.3.1" "$got" "$(rev FAFF37A615A816691CFF3EF8B68CA247E09525F39F8119832EB81975D366C4B1)"
got=$(printf 'Suppose the original message has length = 50 bytes' | "$GOSTX" hash -a gost94-test | cut -d' ' -f1)
check "gost94-test RFC 5831 7.3.2" "$got" "$(rev 0852F5623B89DD57AEB4781FE54DF14EEAFBC1350613763A0D770AA657BA1A47)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
