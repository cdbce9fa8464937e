#!/usr/bin/env bash
# Interrupted GOST R 34.10-2012 commands (cli/common/out.c's temporary file and
# rename, as tests/test_interrupt.sh checks for enc/dec/cipher):
#   sign -o SIG      over an existing SIG, signing a 24 MiB file;
#   sign FILE...     three files, each FILE.sig new;
#   genpkey -pass    a new encrypted key (CLI_OUT_NEW: never replaces), with
#                    --iter 40000 so that PBKDF2 gives the kill a window;
#   pkey -passout    an existing output replaced by the re-encrypted key.
# Each is killed at a random moment of its run with SIGINT, SIGTERM, SIGHUP or
# SIGKILL. Afterwards: no temporary file (.NAME.gostx-*) in the output's
# directory; each output is the old file (or absent, when there was none) or
# the whole new one (a signature that verifies, a key that reads back to the
# right public key): never a partial one; the inputs (message, key) are
# untouched. Run with the unnamed temporary file (O_TMPFILE) and the named
# fallback (GOSTX_TMPFILE=named; no SIGKILL there: it cannot be caught, so a
# named file may stay, which is why O_TMPFILE is the default).
# Env: GOSTX; INTERRUPT_TRIALS (default 2) kills per command, signal and kind
# of temporary file. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" interrupt-pkey
set -m # background jobs receive SIGINT
trials=${INTERRUPT_TRIALS:-2}

mkdir "$T/o"
"$G" genpkey -c 256A -o "$T/key.pem" || exit 1
"$G" pkey -i "$T/key.pem" -pubout -o "$T/key.pub" || exit 1
head -c $((24 << 20)) /dev/urandom >"$T/msg"
for f in 1 2 3; do head -c $((8 << 20)) /dev/urandom >"$T/o/f$f"; done
printf 'pw\n' >"$T/pw"
cp "$T/pw" "$T/pw.out" # -passout from another file (one file for both: lines 1 and 2)
"$G" pkey -i "$T/key.pem" -passout file:"$T/pw" -o "$T/key.enc" || exit 1
head -c 64 /dev/urandom >"$T/old"
sum() { cat "$@" | md5sum; }
inputs_sum=$(sum "$T/msg" "$T/key.pem" "$T/key.enc" "$T/o/f1" "$T/o/f2" "$T/o/f3")

# The commands. sign-o and pkey write $T/o/out over the old file, genpkey
# writes $T/o/out new, sign-many writes $T/o/f{1,2,3}.sig new.
run_cmd() {
  case $1 in
    sign-o) exec "$G" sign -k "$T/key.pem" -o "$T/o/out" "$T/msg" ;;
    sign-many) exec "$G" sign -k "$T/key.pem" --threads 1 "$T/o/f1" "$T/o/f2" "$T/o/f3" ;;
    genpkey) exec "$G" genpkey -c 512C -pass file:"$T/pw" --iter 40000 -o "$T/o/out" ;;
    pkey) exec "$G" pkey -i "$T/key.enc" -passin file:"$T/pw" -passout file:"$T/pw.out" --iter 40000 \
      -o "$T/o/out" ;;
  esac
}
# Before each run: the old state.
setup() {
  rm -f "$T/o/out" "$T/o"/f?.sig
  case $1 in sign-o | pkey) cp "$T/old" "$T/o/out" ;; esac
}
verifies() { "$G" verify -p "$T/key.pub" -s "$1" "$2" >/dev/null 2>&1; }
# 0 when every output is the old one or the whole new one; says which not.
outputs_ok() {
  case $1 in
    sign-o) cmp -s "$T/o/out" "$T/old" || verifies "$T/o/out" "$T/msg" ;;
    sign-many)
      for f in 1 2 3; do
        [ ! -e "$T/o/f$f.sig" ] || verifies "$T/o/f$f.sig" "$T/o/f$f" || return 1
      done ;;
    genpkey)
      [ ! -e "$T/o/out" ] || "$G" pkey -i "$T/o/out" -passin file:"$T/pw" -pubout >/dev/null 2>&1 ;;
    pkey)
      cmp -s "$T/o/out" "$T/old" ||
        "$G" pkey -i "$T/o/out" -passin file:"$T/pw" -pubout 2>/dev/null | cmp -s - "$T/key.pub" ;;
  esac
}
# Whether the run left its complete new output (for the uninterrupted run).
complete() {
  case $1 in
    sign-o) verifies "$T/o/out" "$T/msg" ;;
    sign-many) verifies "$T/o/f1.sig" "$T/o/f1" && verifies "$T/o/f2.sig" "$T/o/f2" &&
      verifies "$T/o/f3.sig" "$T/o/f3" ;;
    genpkey) [ -e "$T/o/out" ] && outputs_ok genpkey ;;
    pkey) ! cmp -s "$T/o/out" "$T/old" && outputs_ok pkey ;;
  esac
}

# After a killed run: no temporary file left, every output old or whole new,
# the inputs untouched.
judge() {
  local cmd=$1 what=$3 left
  left=$(ls -A "$T/o" | grep -v -e '^out$' -e '^f[123]$' -e '^f[123]\.sig$' | tr '\n' ' ')
  if [ -z "$left" ]; then ok; else bad "$what: left behind: $left"; fi
  if outputs_ok $cmd; then ok; else bad "$what: an output is neither the old one nor the whole new one"; fi
  if [ "$(sum "$T/msg" "$T/key.pem" "$T/key.enc" "$T/o/f1" "$T/o/f2" "$T/o/f3")" = "$inputs_sum" ]; then ok; else
    bad "$what: an input changed"
  fi
  rm -f "$T/o"/.*.gostx-* # one failure per trial, not an avalanche
}

interrupt_run "sign-o sign-many genpkey pkey" "INT TERM HUP"
finish
