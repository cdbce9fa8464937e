#!/usr/bin/env bash
# scripts/walk.py (issue 82's rooms and climbs): on a planted tree whose walk
# is known by hand (a callback the library calls back, a call back into a
# room on the way down, the machinery counted or not, a file never called, a
# variable named like another folder's function), then on the tree itself:
# cms -enhance's walk goes through the CAdES service and xml sign's through
# libgostx-xmldsig.
. "$(dirname "$0")/cli_common.sh" walk no-gostx
command -v python3 >/dev/null || { echo "python3 not found: skipping"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/scripts/walk.py"
t="$T/tree"
mkdir -p "$t/cli/cms" "$t/cli/common" "$t/lib/cms" "$t/lib/asn1" "$t/integrations"
cat >"$t/cli/cms/run.c" <<'C'
static int cb(void *c) { (void)c; return cli_err(); }
int back(void) { return 0; }
int run(void) { int name = 0; gostx_do(cb, 0); return other() + name; }
C
printf 'int other(void) { return back(); }\n' >"$t/cli/cms/more.c"
printf 'int lonely(void) { return run(); }\n' >"$t/cli/cms/lonely.c"
printf 'int cli_err(void) { return 1; }\n' >"$t/cli/common/util.c"
printf 'int gostx_do(int (*f)(void *), void *c) { return gostx__der_x() + f(c); }\n' >"$t/lib/cms/do.c"
printf 'int gostx__der_x(void) { return gostx__der_y(); }\nint gostx__der_y(void) { return 0; }\n' \
  >"$t/lib/asn1/der.c"
printf 'int name(void) { return 0; }\n' >"$t/cli/common/name.c"
expect() { # expect WANT ARGS...: the walk's summary line
  local want=$1 got; shift
  got=$(python3 "$script" --root "$t" "$@" cli/cms/run.c:run 2>&1)
  if [ "$got" = "$want" ]; then ok; else bad "walk $*: $got, not $want"; fi
}
# run.c, do.c (gostx_do), util.c (cb, called back), more.c; der.c is the
# machinery (lib/asn1: no room); climbs: do.c -> run.c's cb, more.c ->
# run.c's back
expect "rooms 4 climbs 2"
# the machinery counted: der.c entered, its callee (gostx__der_y, in der.c
# too) not read
expect "rooms 5 climbs 2" --machinery base
# the library taken as named: do.c entered, not read (der.c never); cb still
# called back
expect "rooms 4 climbs 2" --floor none --machinery base
# read to the bottom
expect "rooms 5 climbs 2" --floor base --machinery base
python3 "$script" --root "$t" --list cli/cms/run.c:run >"$T/list"
check "the library's callback is a climb" grep -qx "climb lib/cms/do.c -> cli/cms/run.c (gostx_do -> cb)" "$T/list"
check "back into a room on the way down is a climb" grep -qx "climb cli/cms/more.c -> cli/cms/run.c (other -> back)" "$T/list"
if grep -q "lonely.c\|name.c" "$T/list"; then bad "a file no call reaches is a room: $(cat "$T/list")"; else ok; fi
if python3 "$script" --root "$t" cli/cms/run.c:nothing >/dev/null 2>&1; then bad "an unknown entry passed"; else ok; fi
# the tree itself
python3 "$script" --root "$root" --list cms-enhance >"$T/cms"
check "cms -enhance goes through the CAdES service" grep -qx "room lib/cms/cades_enhance.c" "$T/cms"
python3 "$script" --root "$root" --list xml-sign >"$T/xml"
check "xml sign goes through libgostx-xmldsig" grep -qx "room integrations/xmldsig/sign.c" "$T/xml"
finish
