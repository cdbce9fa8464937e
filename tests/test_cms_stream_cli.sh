#!/usr/bin/env bash
# gostx cms encryption and decryption in constant memory, BER input and
# output (docs/CMS.md "Streaming"). With no peer: a 256 MiB EncryptedData
# written as openssl cms -stream writes one (indefinite lengths) through a
# pipe, decrypted under a 64 MiB RSS ceiling (/usr/bin/time); 64 MiB
# encrypted (-omac) from a pipe into a decryption from a pipe, both under
# it; a regular file encrypted to DER, a pipe to BER; cut short or a byte
# changed: TRUNCATED / BAD_MAC, exit 4, no -out and no temporary file
# left; to stdout through the spool. Then `openssl cms -engine gost
# -encrypt -stream` (DER and PEM, past gost-engine's one ACPKM section) and
# -EncryptedData_encrypt -stream read by gostx, and gostx's BER read by
# openssl (also -kari -keyid and -gost89, and read back by -inkey alone;
# openssl -stream -gost89 read by gostx); openssl cms -sign -stream -nodetach verified streaming; gostx
# -sign -nodetach from stdin and a FIFO as BER, verified by openssl and gostx;
# -sign -nodetach of a file streamed, strict DER, verified by openssl; 80
# MiB signed attached and verified back, each under the ceiling. Skipped (77) without openssl
# and gost-engine after the first part.
. "$(dirname "$0")/cli_common.sh" cms_stream_cli
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
size=$((256 * 1024 * 1024))
# ContentInfo(indef) { encryptedData [0](indef) SEQ(indef) { 0,
# EncryptedContentInfo(indef) { data, kuznyechik-ctr-acpkm { ukm },
# [0] (4-byte length) } } }, then $size bytes, then the four 00 00
head_ber() {
  printf '\x30\x80\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x07\x06\xa0\x80\x30\x80\x02\x01\x00'
  printf '\x30\x80\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x07\x01'
  printf '\x30\x1f\x06\x09\x2a\x85\x03\x07\x01\x01\x05\x02\x01\x30\x12\x04\x10'
  printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10'
  printf '\x80\x84%b' "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((size >> 24 & 255)) $((size >> 16 & 255)) \
    $((size >> 8 & 255)) $((size & 255)))"
}
message() { head_ber; head -c "$1" /dev/zero; [ "$1" = $size ] && printf '\0\0\0\0\0\0\0\0'; }

if [ -x /usr/bin/time ]; then
  message $size | /usr/bin/time -f %M -o "$T/rss" "$G" cms -EncryptedData_decrypt -secretkey $key \
    -inform DER -in - -out "$T/big.out" 2>"$T/err"
  rc=$?
  rss=$(tail -1 "$T/rss")
  check "256 MiB BER through a pipe: exit $rc ($(head -1 "$T/err"))" [ $rc = 0 ]
  check "256 MiB: all of it written" [ "$(stat -c %s "$T/big.out" 2>/dev/null)" = $size ]
  echo "256 MiB: max RSS ${rss} KiB"
  check "256 MiB: max RSS ${rss} KiB under 64 MiB" [ "${rss:-999999}" -lt 65536 ]
  rm -f "$T/big.out"
fi
# gostx encrypts a pipe (BER, -OMAC) into gostx decrypting a pipe: 64 MiB,
# both under the ceiling; a regular file gets DER (definite lengths)
if [ -x /usr/bin/time ]; then
  head -c $((64 * 1024 * 1024)) /dev/zero |
    /usr/bin/time -f %M -o "$T/rss.enc" "$G" cms -EncryptedData_encrypt -secretkey $key -omac \
      -in - -outform DER 2>"$T/err.enc" |
    /usr/bin/time -f %M -o "$T/rss.dec" "$G" cms -EncryptedData_decrypt -secretkey $key -in - \
      -out "$T/rt.out" 2>"$T/err"
  echo "64 MiB pipe: encrypt $(tail -1 "$T/rss.enc") KiB, decrypt $(tail -1 "$T/rss.dec") KiB"
  check "64 MiB -omac pipe to pipe: $(head -1 "$T/err.enc") $(head -1 "$T/err")" \
    [ "$(stat -c %s "$T/rt.out" 2>/dev/null)" = $((64 * 1024 * 1024)) ]
  check "64 MiB: encrypt's RSS under 64 MiB" [ "$(tail -1 "$T/rss.enc")" -lt 65536 ]
  check "64 MiB: decrypt's RSS under 64 MiB" [ "$(tail -1 "$T/rss.dec")" -lt 65536 ]
  rm -f "$T/rt.out"
fi
head -c 300000 /dev/urandom >"$T/doc.bin"
"$G" cms -EncryptedData_encrypt -secretkey $key -omac -in "$T/doc.bin" -outform DER -out "$T/doc.der"
check "a regular file: DER ($(od -An -tx1 -N2 "$T/doc.der"))" [ "$(od -An -tx1 -N2 "$T/doc.der")" = " 30 83" ]
"$G" cms -EncryptedData_encrypt -secretkey $key -omac -in - -out "$T/pipe.pem" <"$T/doc.bin" &&
  "$G" cms -EncryptedData_decrypt -secretkey $key -in "$T/pipe.pem" -out "$T/pipe.out" 2>"$T/err"
check "a pipe as PEM (BER inside) decrypts back: $(head -1 "$T/err")" cmp -s "$T/doc.bin" "$T/pipe.out"
# a changed byte in the middle of an -OMAC stream: BAD_MAC, nothing left
mkdir "$T/out"
flip_byte "$T/doc.der" 150000
"$G" cms -EncryptedData_decrypt -secretkey $key -in "$T/doc.der" -out "$T/out/bad.out" 2>"$T/err"
rc=$?
check "a changed ciphertext byte: exit 4 ($rc), BAD_MAC: $(head -1 "$T/err")" \
  sh -c "[ $rc = 4 ] && grep -q OMAC '$T/err'"
check "a changed ciphertext byte: nothing in -out's directory" [ -z "$(ls -A "$T/out")" ]
message 100000 | "$G" cms -EncryptedData_decrypt -secretkey $key -in - -out "$T/out/cut.out" 2>"$T/err"
rc=$?
check "cut short: exit 4 ($rc)" [ $rc = 4 ]
check "cut short: TRUNCATED named: $(head -1 "$T/err")" grep -q truncated "$T/err"
check "cut short: nothing in -out's directory: $(ls -A "$T/out")" [ -z "$(ls -A "$T/out")" ]
message $size | head -c 100000 >"$T/cut.ber"
check "cut short to stdout: exit 4, nothing on stdout" \
  [ "$("$G" cms -EncryptedData_decrypt -secretkey $key -in "$T/cut.ber" 2>/dev/null | wc -c)" = 0 ]

engine_pki_or_finish
head -c 20000 /dev/urandom >big.bin    # past gost-engine's one section: its encryption is right
for form in DER PEM; do
  for ci in kuznyechik-ctr-acpkm-omac magma-ctr-acpkm; do
    openssl cms -engine gost -encrypt -stream -binary -$ci -in big.bin -outform $form -out s.p7m \
      leaf-256A.pem 2>/dev/null
    check "openssl -stream -outform $form ($ci) is BER: $(od -An -tx1 -N2 s.p7m)" \
      sh -c "[ $form = PEM ] || [ \"\$(od -An -tx1 -N2 s.p7m)\" = ' 30 80' ]"
    "$G" cms -decrypt -recip leaf-256A.pem -inkey leaf-256A.key -in s.p7m -out s.out 2>"$T/err"
    check "openssl -stream $form $ci -> gostx: $(head -1 "$T/err")" cmp -s big.bin s.out
    rm -f s.out
  done
done
openssl cms -engine gost -EncryptedData_encrypt -stream -binary -kuznyechik-ctr-acpkm -secretkey $key \
  -in big.bin -outform DER -out sed.der 2>/dev/null
"$G" cms -EncryptedData_decrypt -secretkey $key -in sed.der -out sed.out 2>"$T/err"
check "EncryptedData openssl -stream -> gostx: $(head -1 "$T/err")" cmp -s big.bin sed.out
# gostx's streams (a pipe: BER) read by openssl, one section (its bug)
head -c 4096 big.bin >kuz.bin
for form in DER PEM; do
  "$G" cms -encrypt -recip leaf-512A.pem -kuznyechik-ctr-acpkm-omac -outform $form -in - -out g.p7m <kuz.bin &&
    openssl cms -engine gost -decrypt -binary -inform $form -in g.p7m -recip leaf-512A.pem \
      -inkey leaf-512A.key -out g.out 2>/dev/null
  check "gostx BER $form (a pipe) -> openssl" cmp -s kuz.bin g.out
  rm -f g.out
done
# main's recipient kinds and GOST 28147-89 through the stream: a pipe (BER)
# encrypted -kari -keyid and -gost89 (past two key meshings, 8-byte blocks
# split by odd pipe reads), read by openssl and by gostx with -inkey alone
head -c 3000 big.bin >g89.bin
for opts in "-kari -keyid -kuznyechik-ctr-acpkm-omac" "-gost89"; do  # (kuznyechik: within gost-engine's one section)
  cat g89.bin | "$G" cms -encrypt -recip leaf-256A.pem -recip leaf-512A.pem $opts -outform DER -in -     -out k.der 2>"$T/err"
  check "gostx $opts from a pipe is BER: $(od -An -tx1 -N2 k.der) $(head -1 "$T/err")"     [ "$(od -An -tx1 -N2 k.der)" = " 30 80" ]
  openssl cms -engine gost -decrypt -binary -inform DER -in k.der -recip leaf-512A.pem     -inkey leaf-512A.key -out k.out 2>/dev/null
  check "gostx $opts BER -> openssl" cmp -s g89.bin k.out
  case $opts in -kari*) check "gostx $opts: KARIs written" \
    sh -c "openssl cms -cmsout -print -inform DER -in k.der | grep -q 'd.kari:'" ;; esac
  "$G" cms -decrypt -inkey leaf-512A.key -in - -out k.out <k.der 2>"$T/err"
  check "gostx $opts BER -> gostx -inkey alone from a pipe: $(head -1 "$T/err")" cmp -s g89.bin k.out
  rm -f k.out
done
openssl cms -engine gost -encrypt -stream -binary -gost89 -in g89.bin -outform PEM -out o89.pem \
  leaf-256A.pem 2>/dev/null
"$G" cms -decrypt -inkey leaf-256A.key -in o89.pem -out o89.out 2>"$T/err"
check "openssl -encrypt -stream -gost89 PEM -> gostx -inkey alone: $(head -1 "$T/err")" cmp -s g89.bin o89.out
# openssl cms -sign -stream -nodetach (BER, the content in segments):
# gostx verifies it streamed, -out only after; 80 MiB under the ceiling
for form in DER PEM; do
  openssl cms -engine gost -sign -stream -nodetach -binary -in big.bin -signer leaf-512A.pem \
    -inkey leaf-512A.key -certfile int.pem -outform $form -out ss.p7s 2>/dev/null
  "$G" cms -verify -inform $form -in ss.p7s -CAfile ca.pem -out ss.out 2>"$T/err"
  check "openssl -sign -stream $form -> gostx -verify: $(head -1 "$T/err")" cmp -s big.bin ss.out
  rm -f ss.out
done
head -c 200 big.bin >small.bin
openssl cms -engine gost -sign -stream -nodetach -binary -in small.bin -signer leaf-256A.pem \
  -inkey leaf-256A.key -certfile int.pem -outform DER -out small.p7s 2>/dev/null
at=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().find(open(sys.argv[2], "rb").read(16)) + 5)' \
  small.p7s small.bin)
flip_byte small.p7s "$at"
"$G" cms -verify -inform DER -in small.p7s -CAfile ca.pem -out small.out 2>"$T/err"
rc=$?
check "a changed streamed content: exit 4 ($rc), no -out: $(head -1 "$T/err")" [ $rc = 4 -a ! -e small.out ]
# verified RC WANT GOT: openssl said yes (it writes -out before its verdict) and GOT is WANT
verified() { [ "$1" = 0 ] && cmp -s "$2" "$3"; }
# gostx -sign -nodetach of a file streamed (read once): strict DER (the
# one-shot parser of -cmsout reads it), openssl verifies it, 80 MiB signed
# under the ceiling and verified back
for form in DER PEM; do
  "$G" cms -sign -nodetach -cades -in big.bin -signer leaf-512A.pem -inkey leaf-512A.key \
    -certfile int.pem -outform $form -out gs.p7s 2>"$T/err"
  check "gostx -sign -nodetach $form: strict DER ($(head -1 "$T/err"))" \
    "$G" cms -cmsout -print -inform $form -in gs.p7s -out /dev/null
  openssl cms -engine gost -verify -binary -inform $form -in gs.p7s -CAfile ca.pem -purpose any \
    -out gs.out 2>/dev/null
  check "gostx -sign -nodetach $form -> openssl -verify" verified $? big.bin gs.out
  rm -f gs.out
done
# gostx -sign -nodetach from a pipe (stdin and a FIFO): BER as openssl cms
# -sign -stream writes it (indefinite lengths, the content in OCTET STRING
# segments), signed over the streamed content; openssl verifies it, gostx
# verifies it streamed; 80 MiB piped under the ceiling
for form in DER PEM; do
  "$G" cms -sign -nodetach -cades -in - -signer leaf-512A.pem -inkey leaf-512A.key \
    -certfile int.pem -outform $form -out gp.p7s <big.bin 2>"$T/err"
  openssl cms -engine gost -verify -binary -inform $form -in gp.p7s -CAfile ca.pem -purpose any \
    -out gp.out 2>"$T/oerr"
  rc=$?
  check "gostx -sign -nodetach $form from stdin -> openssl -verify: $(head -1 "$T/err") $(head -1 "$T/oerr")" \
    verified $rc big.bin gp.out
  rm -f gp.out
  "$G" cms -verify -inform $form -in gp.p7s -CAfile ca.pem -out gp.out 2>"$T/err"
  check "gostx -sign -nodetach $form from stdin -> gostx -verify: $(head -1 "$T/err")" cmp -s big.bin gp.out
  rm -f gp.out
done
"$G" cms -sign -nodetach -in - -signer leaf-256A.pem -inkey leaf-256A.key -outform DER -out gb.p7s <small.bin
check "from stdin: BER, as openssl -stream (30 80)" [ "$(head -c 2 gb.p7s | od -An -tx1 | tr -d ' \n')" = 3080 ]
mkfifo fifo.in
cat big.bin >fifo.in &
"$G" cms -sign -nodetach -in fifo.in -signer leaf-256A.pem -inkey leaf-256A.key -certfile int.pem \
  -outform DER -out gf.p7s 2>"$T/err"
wait
openssl cms -engine gost -verify -binary -inform DER -in gf.p7s -CAfile ca.pem -purpose any -out gf.out 2>"$T/oerr"
rc=$?
check "gostx -sign -nodetach from a FIFO -> openssl -verify: $(head -1 "$T/err") $(head -1 "$T/oerr")" \
  verified $rc big.bin gf.out
rm -f fifo.in gf.out
if [ -x /usr/bin/time ]; then
  head -c $((80 * 1024 * 1024)) /dev/zero >z.bin
  /usr/bin/time -f %M -o "$T/rss.sign" "$G" cms -sign -nodetach -in z.bin -signer leaf-256A.pem \
    -inkey leaf-256A.key -certfile int.pem -outform DER -out z.p7s 2>"$T/err"
  check "80 MiB attached sign: RSS $(tail -1 "$T/rss.sign") KiB under 64 MiB ($(head -1 "$T/err"))" \
    [ "$(tail -1 "$T/rss.sign")" -lt 65536 ]
  /usr/bin/time -f %M -o "$T/rss.ver" "$G" cms -verify -inform DER -in z.p7s -CAfile ca.pem -out z.out 2>"$T/err"
  check "80 MiB attached verifies back, streamed: $(head -1 "$T/err")" cmp -s z.bin z.out
  check "80 MiB attached verify: RSS $(tail -1 "$T/rss.ver") KiB under 64 MiB" [ "$(tail -1 "$T/rss.ver")" -lt 65536 ]
  head -c $((80 * 1024 * 1024)) /dev/zero | /usr/bin/time -f %M -o "$T/rss.psign" "$G" cms -sign -nodetach \
    -in - -signer leaf-256A.pem -inkey leaf-256A.key -certfile int.pem -outform DER -out z.p7s 2>"$T/err"
  check "80 MiB piped attached sign: RSS $(tail -1 "$T/rss.psign") KiB under 64 MiB ($(head -1 "$T/err"))" \
    [ "$(tail -1 "$T/rss.psign")" -lt 65536 ]
  "$G" cms -verify -inform DER -in z.p7s -CAfile ca.pem -out z.out 2>"$T/err"
  check "80 MiB piped attached verifies back: $(head -1 "$T/err")" [ "$(stat -c %s z.out 2>/dev/null)" = $((80 * 1024 * 1024)) ]
  rm -f z.p7s z.out
fi
# an -OMAC message cut inside its content: nothing written
openssl cms -engine gost -encrypt -stream -binary -kuznyechik-ctr-acpkm-omac -in big.bin -outform DER \
  -out o.der leaf-256A.pem 2>/dev/null
head -c 10000 o.der >o.cut
"$G" cms -decrypt -recip leaf-256A.pem -inkey leaf-256A.key -in o.cut -out o.out 2>"$T/err"
rc=$?
check "a cut openssl stream: exit 4 ($rc), no -out: $(head -1 "$T/err")" [ $rc = 4 -a ! -e o.out ]
finish
