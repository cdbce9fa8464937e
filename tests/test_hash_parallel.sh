#!/usr/bin/env bash
# `gostx hash FILE...` hashes several files at once (cli/hash_files.c): its
# output must be that of one `gostx hash FILE` per file, in argument order,
# for every -j; errors in place, stdin read once, -c the same on any -j.
# The biggest file comes first, so that later files finish before it and an
# output in completion order would differ.
# Env: GOSTX = path to the gostx binary. Exit 77 = skip.
. "$(dirname "$0")/cli_common.sh" hashpar

G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G") # the test runs in $T
cd "$T" || exit 1
head -c 3000000 /dev/urandom >big
names=(big)
for n in 0 1 63 64 65 1000 65536 100001 250000; do
  head -c "$n" big >"s$n"
  names+=("s$n")
done
printf 'x' >'back\slash'
printf 'y' >'new
line'
mkdir adir
names+=('back\slash' missing 'new
line' adir s1)

# The reference: one process per file (stdout and stderr, exit statuses).
: >ref.out
: >ref.err
for f in "${names[@]}"; do
  "$G" hash -a 512 "$f" >>ref.out 2>>ref.err
done
for j in 1 2 4 0; do
  "$G" hash -a 512 -j $j "${names[@]}" >j.out 2>j.err
  check "-j $j: exit status 1 (a missing file and a directory)" [ $? = 1 ]
  check "-j $j: output = one run per file, in argument order" cmp -s j.out ref.out
  check "-j $j: messages = one run per file, in argument order" cmp -s j.err ref.err
done

# stdin: the first "-" gets the data, the second an empty input.
"$G" hash s1000 - s65 - <s65536 >stdin.out
{ "$G" hash s1000; "$G" hash - <s65536; "$G" hash s65; "$G" hash - </dev/null; } >stdin.ref
check "two stdin arguments on a pool" cmp -s stdin.out stdin.ref

# -c on a pool: the same lines as on one thread, and failures in place.
"$G" hash big s0 s1 s64 s250000 'back\slash' >list
check "-c -j 4: all OK" "$G" hash -c --quiet -j 4 list
flip_byte s64 10 # a fixed byte left s64 intact where the random data had it
rm s1
"$G" hash -c -j 1 list >c1.out 2>c1.err
r1=$?
"$G" hash -c -j 4 list >c4.out 2>c4.err
r4=$?
check "-c after damage: exit status 1 on both" [ "$r1$r4" = 11 ]
check "-c -j 4 = -c -j 1 (stdout)" cmp -s c1.out c4.out
check "-c -j 4 = -c -j 1 (stderr)" cmp -s c1.err c4.err
check "-c: the damaged file FAILED in its place" \
  [ "$(sed -n 4p c4.out)" = "s64: FAILED" ]
check "-c: the missing file reported" grep -qx 's1: FAILED open or read' c4.out
refused() { ! "$G" hash -j 2000 s0 2>/dev/null; }
check "-j: out of range refused" refused
finish
