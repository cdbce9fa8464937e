#!/usr/bin/env bash
# gostx cms -sign reads -in once (lib/cms's streaming signer): strace counts
# the opens of -in and the bytes read from it, for a regular file (attached:
# DER, detached) and a FIFO (attached: BER, which can be read only once);
# each message verified back (-noverify: R 1323565.1.025-2019's sender
# certificate has no chain here). Skipped (77) without strace.
. "$(dirname "$0")/cli_common.sh" cms_sign_once_cli
command -v strace >/dev/null || { echo "no strace: skipping"; exit 77; }
v=$here/vectors/tc26_cms
size=$((4 * 65536 + 7))
head -c $size /dev/urandom >"$T/doc.bin"
sign() { "$G" cms -sign -signer "$v/sender256_cert.pem" -inkey "$v/sender256_key.pem" -outform DER "$@"; }
# opens IN: how many times the trace opened IN (a path ending in /IN)
opens() { grep -c "open[a-z]*(.*/$1\", " "$T/trace"; }
# read_bytes IN: the bytes read from IN's descriptors, each from its open to its close
read_bytes() {
  awk -v f="/$1\", " '
    index($0, f) && /open/ { sub(/.*= /, ""); fd[$0] = 1; next }
    /^[0-9]+ +read\(/ { split($2, a, /[(,]/); if (a[2] in fd) { n = $NF; s += n } }
    /^[0-9]+ +close\(/ { split($2, a, /[()]/); delete fd[a[2]] }
    END { print s + 0 }' "$T/trace"
}
for mode in -nodetach ""; do
  strace -f -e trace=openat,open,read,close -o "$T/trace" \
    "$G" cms -sign $mode -signer "$v/sender256_cert.pem" -inkey "$v/sender256_key.pem" -outform DER \
    -in "$T/doc.bin" -out "$T/s.der" 2>"$T/err"
  check "sign ${mode:-detached} a file: -in opened once ($(opens doc.bin)) $(head -1 "$T/err")" [ "$(opens doc.bin)" = 1 ]
  check "sign ${mode:-detached} a file: $(read_bytes doc.bin) bytes read of $size" [ "$(read_bytes doc.bin)" = $size ]
  if [ -n "$mode" ]; then
    "$G" cms -verify -noverify -inform DER -in "$T/s.der" -out "$T/s.out" 2>"$T/err"
  else
    "$G" cms -verify -noverify -inform DER -in "$T/s.der" -content "$T/doc.bin" -out "$T/s.out" 2>"$T/err"
  fi
  check "sign ${mode:-detached} a file: verifies back $(head -1 "$T/err")" cmp -s "$T/doc.bin" "$T/s.out"
  rm -f "$T/s.der" "$T/s.out"
done
# a FIFO can be read once: the attached message whole (BER)
mkfifo "$T/fifo"
cat "$T/doc.bin" >"$T/fifo" &
sign -nodetach -in "$T/fifo" -out "$T/f.der" 2>"$T/err"
wait
check "sign -nodetach a FIFO: BER (30 80) $(head -1 "$T/err")" \
  [ "$(head -c 2 "$T/f.der" | od -An -tx1 | tr -d ' \n')" = 3080 ]
"$G" cms -verify -noverify -inform DER -in "$T/f.der" -out "$T/f.out" 2>"$T/err"
check "sign -nodetach a FIFO: verifies back $(head -1 "$T/err")" cmp -s "$T/doc.bin" "$T/f.out"
finish
