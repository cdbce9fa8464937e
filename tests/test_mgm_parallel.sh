#!/usr/bin/env bash
# `gostx cipher ALG-mgm` on the pool (issue 32 item 19): -j N (default 0 = all
# cores) runs gostx_mgm_encrypt_mt / decrypt_mt and gives the bytes of the
# one-thread call (-j 1) for sizes around the block and around the library's
# parallel threshold, with and without AAD, short tags, both ciphers, both
# directions; a changed tag or ciphertext is still refused with no output; and
# the default really starts threads (counted with strace when it can run).
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" mgmpar

K=$(printf '%064x' 1234)
head -c $((3 * 1048576 + 5)) /dev/urandom >"$T/src"
head -c 3000 /dev/urandom >"$T/aad"
for alg in kuznyechik magma; do
  nonce=$(printf '%032x' 4242)
  [ $alg = magma ] && nonce=$(printf '%016x' 4242)
  m=("$G" cipher $alg-mgm -k "$K" --iv "$nonce")
  for n in 0 1 7 8 9 15 16 17 65535 65536 65537 $((3 * 1048576 + 5)); do
    head -c $n "$T/src" >"$T/p"
    for aad in none hex file; do
      case $aad in
        none) a=() ;;
        hex) a=(--aad 0102030405) ;;
        file) a=(--aad-file "$T/aad") ;;
      esac
      for tl in "" 4; do
        t=(); [ -n "$tl" ] && t=(--tag-len "$tl")
        what="$alg $n bytes, aad $aad${tl:+, tag $tl}"
        rm -f "$T/one" "$T/par"
        "${m[@]}" -j 1 "${a[@]}" "${t[@]}" -i "$T/p" -o "$T/one" 2>/dev/null; rc1=$?
        if [ $n = 0 ] && [ $aad = none ]; then # nothing to authenticate: refused either way
          "${m[@]}" -j 2 "${t[@]}" -i "$T/p" -o "$T/par" 2>/dev/null; rc2=$?
          check "$what: refused alike (rc $rc1, $rc2)" eval '[ $rc1 != 0 ] && [ $rc1 = $rc2 ] && [ ! -e "$T/par" ]'
          continue
        fi
        [ $rc1 = 0 ] || { bad "$what: -j 1 failed"; continue; }
        check "$what: -j 1 length" [ "$(stat -c %s "$T/one")" = $((n + ${tl:-$([ $alg = magma ] && echo 8 || echo 16)})) ]
        for j in 2 0; do
          rm -f "$T/par" "$T/dec"
          "${m[@]}" -j $j "${a[@]}" "${t[@]}" -i "$T/p" -o "$T/par"
          check "$what: encrypt -j $j = -j 1" cmp -s "$T/one" "$T/par"
          "${m[@]}" -d -j $j "${a[@]}" "${t[@]}" -i "$T/one" -o "$T/dec"
          check "$what: decrypt -j $j gives the plaintext" cmp -s "$T/p" "$T/dec"
        done
        rm -f "$T/dec1"
        "${m[@]}" -d -j 1 "${a[@]}" "${t[@]}" -i "$T/one" -o "$T/dec1"
        check "$what: decrypt -j 1 gives the plaintext" cmp -s "$T/p" "$T/dec1"
      done
    done
    # A changed tag (last byte) or ciphertext (first byte): refused on every
    # -j, nothing written (file or stdout).
    [ $n = 0 ] && continue
    "${m[@]}" -j 1 -i "$T/p" -o "$T/one"
    size=$(stat -c %s "$T/one")
    for where in tag data; do
      cp "$T/one" "$T/bad"
      if [ $where = tag ]; then flip_byte "$T/bad" $((size - 1)); else flip_byte "$T/bad" 0; fi
      for j in 1 2 0; do
        rm -f "$T/dec"
        "${m[@]}" -d -j $j -i "$T/bad" -o "$T/dec" 2>"$T/err"; rc=$?
        check "$alg $n bytes, changed $where, -j $j: refused, no file (rc $rc)" \
          eval '[ $rc = 1 ] && [ ! -e "$T/dec" ] && grep -q "authentication failed" "$T/err"'
        "${m[@]}" -d -j $j -i "$T/bad" >"$T/stdout" 2>/dev/null
        check "$alg $n bytes, changed $where, -j $j: nothing on stdout" [ ! -s "$T/stdout" ]
      done
    done
  done
done

# Threads: -j 2 and the default (-j 0, on more than one core) start pool
# threads for MGM in both directions, -j 1 none.
head -c 1048576 "$T/src" >"$T/p"
nonce=$(printf '%032x' 4242)
"$G" cipher kuznyechik-mgm -k "$K" --iv "$nonce" -j 1 -i "$T/p" -o "$T/c" || exit 1
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  threads() { # threads ARGS...: the threads gostx cipher kuznyechik-mgm ARGS started
    rm -f "$T/out"
    strace -f -qq -e trace=clone,clone3 -o "$T/strace" \
      "$G" cipher kuznyechik-mgm -k "$K" --iv "$nonce" -o "$T/out" "$@" >/dev/null 2>&1 ||
      echo "failed: $*" >>"$T/strace"
    grep -c 'CLONE_THREAD' "$T/strace"
  }
  for d in "" -d; do
    in="$T/p" ref="$T/c"
    [ "$d" = -d ] && in="$T/c" ref="$T/p"
    n1=$(threads $d -j 1 -i "$in")
    check "mgm $d -j 1: no threads ($n1)" [ "$n1" = 0 ]
    n2=$(threads $d -j 2 -i "$in")
    check "mgm $d -j 2: pool threads started ($n2)" eval '[ "$n2" -ge 1 ] && cmp -s "$T/out" "$ref"'
    if [ "$(nproc)" -gt 1 ]; then
      n0=$(threads $d -i "$in")
      check "mgm $d default: pool threads started ($n0)" eval '[ "$n0" -ge 1 ] && cmp -s "$T/out" "$ref"'
    fi
  done
else
  echo "strace cannot trace here: thread count not checked"
fi
finish
