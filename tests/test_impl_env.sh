#!/usr/bin/env bash
# GOSTX_IMPL that the library cannot honour as asked (issue 32 item 18): an
# unknown name (names and levels are case-sensitive: AVX2 is not avx2) runs
# the portable code, a level the CPU lacks runs the best level below it. The
# CLI says so in one warning line on stderr, once per command, and still
# succeeds; gostx info says so on its GOSTX_IMPL line. A level the CPU runs,
# an implementation name that exists, or an empty value: nothing on stderr.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" impl-env
head -c 100000 /dev/urandom >"$T/in"
unset GOSTX_IMPL
want=$("$G" hash "$T/in") || exit 1
K=$(printf '%064x' 9)
N=$(printf '%032x' 3)

# warns WHAT REGEX [VALUE]: hash and an MGM cipher (pool threads) under
# GOSTX_IMPL=VALUE succeed with the same output as without it, and stderr is
# exactly one warning line matching REGEX ("" = nothing on stderr).
warns() {
  local what=$1 re=$2 v=$3 rc out
  "$G" cipher kuznyechik-mgm -k "$K" --iv "$N" -i "$T/in" -o "$T/c.ref" || exit 1
  for cmd in hash cipher; do
    if [ $cmd = hash ]; then
      out=$(GOSTX_IMPL=$v "$G" hash "$T/in" 2>"$T/err"); rc=$?
      check "$what: hash succeeds, same digest (rc $rc)" eval '[ $rc = 0 ] && [ "$out" = "$want" ]'
    else
      rm -f "$T/c"
      GOSTX_IMPL=$v "$G" cipher kuznyechik-mgm -k "$K" --iv "$N" -i "$T/in" -o "$T/c" 2>"$T/err"; rc=$?
      check "$what: cipher succeeds, same bytes (rc $rc)" eval '[ $rc = 0 ] && cmp -s "$T/c" "$T/c.ref"'
    fi
    if [ -z "$re" ]; then
      check "$what: $cmd: nothing on stderr: $(head -c 300 "$T/err")" [ ! -s "$T/err" ]
    else
      check "$what: $cmd: one warning line: $(head -c 300 "$T/err")" \
        eval '[ "$(grep -c . "$T/err")" = 1 ] && grep -Eq "^gostx: warning: GOSTX_IMPL=$re" "$T/err"'
    fi
  done
}

levels=$("$G" info | sed -n 's/^levels: //p')
features=" $("$G" info | sed -n 's/^cpu features: //p') "
check "info lists the levels" [ -n "$levels" ]
# What each level needs, as lib/levels.def says.
runs() {
  local need
  case $1 in
    portable) return 0 ;;
    avx512) need="avx512f avx512bw avx512vl" ;;
    avx512bw) need="avx2 avx512f avx512bw avx512vl" ;;
    *) need=$1 ;;
  esac
  for w in $need; do case $features in *" $w "*) ;; *) return 1 ;; esac; done
}

warns "unknown name" "bogus: not a level \(.*\) or an implementation name .*; running portable$" bogus
warns "AVX2 in capitals" "AVX2: not a level .*case matters.*; running portable$" AVX2
warns "control bytes shown as ?" "a\?b: not a level" $'a\tb'
warns "empty" "" ""
warns "lstable, an implementation name" "" lstable
warns "sbtable, an implementation name" "" sbtable
best=
for l in $levels; do
  if runs "$l"; then
    warns "level $l (runs here)" "" "$l"
    best=$l
  else
    # the best level below it that runs here
    warns "level $l (this CPU lacks it)" "$l: this CPU cannot run it; running $best$" "$l"
  fi
done

# Once per command, also when it fails for another reason.
GOSTX_IMPL=bogus "$G" cipher kuznyechik-mgm -k 00 --iv "$N" -i "$T/in" 2>"$T/err" >/dev/null; rc=$?
check "bad key with GOSTX_IMPL=bogus: usage error (rc $rc)" [ $rc = 2 ]
check "bad key with GOSTX_IMPL=bogus: warning once, then the error" \
  eval '[ "$(grep -c "warning: GOSTX_IMPL" "$T/err")" = 1 ] && [ "$(grep -c . "$T/err")" = 2 ]'

# gostx info: in its output, not as a warning.
GOSTX_IMPL=AVX2 "$G" info >"$T/info" 2>"$T/err"; rc=$?
check "info with GOSTX_IMPL=AVX2 succeeds (rc $rc), nothing on stderr" eval '[ $rc = 0 ] && [ ! -s "$T/err" ]'
check "info names AVX2 and what runs: $(grep IMPL "$T/info")" \
  grep -Eq "^GOSTX_IMPL: AVX2 \(not a level .*; running portable\)$" "$T/info"
GOSTX_IMPL=portable "$G" info >"$T/info" 2>&1
check "info with a level it runs: just the value" grep -qx "GOSTX_IMPL: portable" "$T/info"

# bench --impl sets GOSTX_IMPL itself: the same warning, once.
row=kuznyechik-ecb-enc
timeout 120 "$G" bench --impl AVX2 --size 4K --time 5 --repeat 1 --filter "$row" >"$T/b" 2>"$T/err"; rc=$?
check "bench --impl AVX2 runs portable (rc $rc)" eval '[ $rc = 0 ] && grep -Eq "^kuznyechik +ecb-enc +portable " "$T/b"'
check "bench --impl AVX2: one warning: $(head -c 300 "$T/err")" \
  eval '[ "$(grep -c . "$T/err")" = 1 ] && grep -q "warning: GOSTX_IMPL=AVX2: not a level" "$T/err"'
finish
