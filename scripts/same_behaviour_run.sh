# same_behaviour_run.sh, sourced by the same_behaviour_*.sh scripts that run
# one argument list through two gostx builds, after they set ROOT, OLD and
# NEW: a scratch folder $T (removed at exit) with $T/in (I) and $T/run, the
# test PKI in $PKI (tests/support/gost_pki.sh's; PKI=DIR reuses one), and
# sb_both LABEL ARGS..., which runs
# "$OLD ARGS" and "$NEW ARGS" in $T/run (stdin from $stdin, /dev/null when
# unset; files $T/run/o.* removed first), compares exit code, stdout and
# stderr byte for byte, counts (same, differ, ok: the same and exit 0) and
# prints a difference under LABEL; sb_summary NAME prints the counts and
# returns 0 when all agreed.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PKI=${PKI:-$T/pki}
[ -f "$PKI/ca.pem" ] || bash "$ROOT/tests/support/gost_pki.sh" "$PKI" >/dev/null || exit 2
mkdir -p "$T/in" "$T/run"
I=$T/in
same=0 differ=0 ok=0
sb_one() { # TAG BIN ARGS...: its exit code, stdout and stderr into $T/TAG.*
  local tag=$1 bin=$2
  shift 2
  rm -f "$T/run/o."*
  (cd "$T/run" && timeout 20 "$bin" "$@" <"${stdin:-/dev/null}" >"$T/$tag.out" 2>"$T/$tag.err")
  echo $? >"$T/$tag.rc"
}
sb_both() {
  local label=$1
  shift
  sb_one old "$OLD" "$@"
  sb_one new "$NEW" "$@"
  if cmp -s "$T/old.rc" "$T/new.rc" && cmp -s "$T/old.out" "$T/new.out" && cmp -s "$T/old.err" "$T/new.err"; then
    same=$((same + 1))
    [ "$(cat "$T/new.rc")" = 0 ] && ok=$((ok + 1))
  else
    differ=$((differ + 1))
    echo "DIFFERS: $label"
    echo "  old: exit $(cat "$T/old.rc"): $(head -c 300 "$T/old.err" | tr '\n' ' ')$(head -c 100 "$T/old.out" | tr '\n' ' ')"
    echo "  new: exit $(cat "$T/new.rc"): $(head -c 300 "$T/new.err" | tr '\n' ' ')$(head -c 100 "$T/new.out" | tr '\n' ' ')"
  fi
  return 0
}
sb_summary() {
  echo "$1: $((same + differ)) runs, $same the same ($ok of them succeeding), $differ differ"
  [ "$differ" = 0 ]
}
