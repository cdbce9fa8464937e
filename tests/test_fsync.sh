#!/usr/bin/env bash
# Output files reach the disk before their name does (cli/common/out.c): `gostx enc`,
# `dec`, `cipher` and `keygen`, to a new file and over an existing one, with
# the unnamed temporary file and with the named fallback (GOSTX_TMPFILE=named).
# The calls are logged by an LD_PRELOAD library (tests/preload/trace_sync.c):
# the output's data must be fsynced before the link or rename that gives it
# its final name, and the directory fsynced after it, before the command
# exits with success.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" fsync
lib=$(dirname "$GOSTX")/libgostx_trace_sync.so
if [ ! -f "$lib" ]; then
  echo "$lib not built (not Linux?): skipping"
  exit 77
fi
# An ASan build's runtime would insist on being loaded first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

K=$(printf '%064x' 9)
"$G" keygen -o "$T/key" || exit 1
head -c 300000 /dev/urandom >"$T/plain"
"$G" enc -q -k "$T/key" -i "$T/plain" -o "$T/plain.gx" || exit 1

# traced NAME COMMAND...: runs the command with the log in $T/trace and checks
# the order of events for the output $T/o/out.
traced() {
  local name=$1; shift
  rm -f "$T/trace"
  if ! GOSTX_TRACE="$T/trace" LD_PRELOAD="$lib" "$@" 2>"$T/err"; then
    bad "$name: failed: $(cat "$T/err")"
    return
  fi
  # The first event that makes "out" appear or replaces it.
  local at
  at=$(grep -nE '^(link out|rename [^ ]+ out)$' "$T/trace" | head -1 | cut -d: -f1)
  if [ -z "$at" ]; then
    bad "$name: no link or rename to the output: $(tr '\n' ';' <"$T/trace")"
    return
  fi
  if head -n $((at - 1)) "$T/trace" | grep -qx 'fsync file'; then ok; else
    bad "$name: the data was not fsynced before the output got its name: $(tr '\n' ';' <"$T/trace")"
  fi
  if tail -n +$((at + 1)) "$T/trace" | grep -qx 'fsync dir'; then ok; else
    bad "$name: the directory was not fsynced after the output got its name: $(tr '\n' ';' <"$T/trace")"
  fi
}

for tmpkind in unnamed named; do
  if [ $tmpkind = named ]; then export GOSTX_TMPFILE=named; else unset GOSTX_TMPFILE; fi
  for existing in new existing; do
    run() { # run LABEL COMMAND...
      local label=$1; shift
      rm -rf "$T/o"; mkdir "$T/o"
      [ $existing = existing ] && echo old >"$T/o/out"
      traced "$label ($tmpkind temporary file, $existing output)" "$@"
    }
    run enc "$G" enc -q -k "$T/key" -i "$T/plain" -o "$T/o/out"
    run dec "$G" dec -q -k "$T/key" -i "$T/plain.gx" -o "$T/o/out"
    run "cipher ctr" "$G" cipher kuznyechik-ctr -k "$K" --iv 0102030405060708 -i "$T/plain" -o "$T/o/out"
    run "cipher mgm" "$G" cipher magma-mgm -k "$K" --iv 0102030405060708 -i "$T/plain" -o "$T/o/out"
    if [ $existing = new ]; then run keygen "$G" keygen -o "$T/o/out"
    else run "keygen --force" "$G" keygen --force -o "$T/o/out"; fi
  done
done

finish
