#!/usr/bin/env bash
# `gostx cipher ALG-ctr -j N` (cli/cipher_ctr.c: 8 MiB pieces on a pool at
# their block offsets, reads and writes on a helper thread) gives the bytes of
# the one-thread stream (-j 1, gostx_mode_*) for every N: sizes around the
# piece edges and inside a block, both ciphers, files and pipes.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" cipherpar

K=$(printf '%064x' 77)
P=8388608
head -c $((2 * P + 4099)) /dev/urandom >"$T/src"
for alg in kuznyechik magma; do
  iv=a1b2c3d4
  [ $alg = kuznyechik ] && iv=a1b2c3d4e5f60718
  for n in 0 1 15 $((P - 1)) $P $((P + 1)) $((P + 17)) $((2 * P + 4099)); do
    head -c $n "$T/src" >"$T/p"
    "$G" cipher $alg-ctr -j 1 -k $K --iv $iv -i "$T/p" -o "$T/one" || bad "$alg $n: -j 1 failed"
    for j in 2 4 0; do
      rm -f "$T/par"
      if "$G" cipher $alg-ctr -j $j -k $K --iv $iv -i "$T/p" -o "$T/par" &&
        cmp -s "$T/one" "$T/par"; then ok; else bad "$alg $n bytes: -j $j differs from -j 1"; fi
    done
  done
  # Through pipes both ways, and back to the plaintext.
  "$G" cipher $alg-ctr -j 2 -k $K --iv $iv <"$T/src" | "$G" cipher $alg-ctr -d -j 4 -k $K --iv $iv |
    cmp -s - "$T/src"
  check "$alg: pipe round trip on pools" [ "${PIPESTATUS[*]}" = "0 0 0" ]
done
# A segment shorter than a block keeps the one-thread stream: -j changes nothing.
head -c 100000 "$T/src" >"$T/p"
"$G" cipher kuznyechik-ctr --segment 5 -j 1 -k $K --iv a1b2c3d4e5f60718 -i "$T/p" -o "$T/one"
"$G" cipher kuznyechik-ctr --segment 5 -j 4 -k $K --iv a1b2c3d4e5f60718 -i "$T/p" -o "$T/par"
check "--segment 5: -j 4 = -j 1" cmp -s "$T/one" "$T/par"
finish
