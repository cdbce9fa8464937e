#!/usr/bin/env bash
# gostx cms -encrypt -gost89 / -decrypt: GOST 28147-89 CFB content with
# RFC 4490's key transport (VKO + CryptoPro key wrap). Without a peer: the
# TK26 examples (tests/vectors/tc26_cms/tk26cms_*, PyGOST's values) have no
# certificates, so tests/test_cms_gost89.c decrypts them; here gostx's own
# messages, the note that CFB is not authenticated, the refusals (another
# recipient, a changed encryptedKey MAC: named, exit 4, nothing written) and
# usage. Then `openssl cms -engine gost -gost89` both ways for 256- and
# 512-bit leaves at 0, 1, 1023, 1024, 1025 and 100000 bytes (the CryptoPro
# key meshing edges), and an EncryptedData -gost89 each way. Skipped (77)
# there without openssl and gost-engine.
. "$(dirname "$0")/cli_common.sh" cms_gost89_cli
tc26=$here/vectors/tc26_cms
r256="-recip $tc26/recipient256_cert.pem -inkey $tc26/recipient256_key.pem"
r512="-recip $tc26/recipient512_cert.pem -inkey $tc26/recipient512_key.pem"
head -c 3000 /dev/urandom >"$T/doc.bin"

"$G" cms -encrypt -gost89 -recip "$tc26/recipient256_cert.pem" -recip "$tc26/recipient512_cert.pem" \
  -in "$T/doc.bin" -outform DER -out "$T/g.der"
check "-encrypt -gost89 to two recipients" [ -s "$T/g.der" ]
for r in "$r256" "$r512"; do
  "$G" cms -decrypt $r -in "$T/g.der" -out "$T/g.out" 2>"$T/err"
  check "-decrypt ${r##*/}: $(cat "$T/err")" cmp -s "$T/doc.bin" "$T/g.out"
  rm -f "$T/g.out"
done
check "said CFB is not authenticated" grep -q "GOST 28147-89 CFB: not authenticated" "$T/err"

# the macKey of the first recipient's Gost28147-89-EncryptedKey (30 28 04 20
# <32 bytes> 04 04 <mac>): the unwrap refuses it
at=$(grep -obUaP '\x30\x28\x04\x20' "$T/g.der" | head -1 | cut -d: -f1)
cp "$T/g.der" "$T/mac.der"
flip_byte "$T/mac.der" $((at + 4 + 32 + 2))
"$G" cms -decrypt $r256 -in "$T/mac.der" -out "$T/mac.out" 2>"$T/err"
check "a changed macKey: exit 4" [ $? = 4 ]
check "a changed macKey: named" grep -q "does not unwrap the content-encryption key" "$T/err"
check "a changed macKey: nothing written" [ ! -e "$T/mac.out" ]
"$G" cms -encrypt -gost89 -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/one.pem"
"$G" cms -decrypt $r512 -in "$T/one.pem" -out "$T/other.out" 2>"$T/err"
check "another recipient: exit 4" [ $? = 4 ]
check "another recipient: named" grep -q "no recipient info names this certificate" "$T/err"
check "another recipient: nothing written" [ ! -e "$T/other.out" ]
"$G" cms -encrypt -gost89 -omac -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>/dev/null
check "-gost89 -omac: exit 2" [ $? = 2 -a ! -e "$T/u.p7m" ]
"$G" cms -encrypt -gost89 -magma -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>/dev/null
check "-gost89 -magma: exit 2" [ $? = 2 -a ! -e "$T/u.p7m" ]

engine_pki_or_finish
for n in 0 1 1023 1024 1025 100000; do head -c $n /dev/urandom >$n.bin; done
# each side's exit status counts too: openssl writes -out before it fails
agree() { [ "$1" = 0 ] && cmp -s "$2" "$3"; }
for leaf in leaf-256A leaf-256B leaf-512A leaf-512C; do
  for n in 0 1 1023 1024 1025 100000; do
    openssl cms -engine gost -encrypt -binary -gost89 -in $n.bin -outform PEM -out o.p7m $leaf.pem 2>/dev/null &&
      "$G" cms -decrypt -recip $leaf.pem -inkey $leaf.key -in o.p7m -out o.out 2>"$T/err"
    check "openssl -> gostx, $leaf, $n bytes: $(cat "$T/err")" agree $? $n.bin o.out
    "$G" cms -encrypt -gost89 -recip $leaf.pem -in $n.bin -out g.p7m &&
      openssl cms -engine gost -decrypt -binary -inform PEM -in g.p7m -recip $leaf.pem -inkey $leaf.key \
        -out g.out 2>/dev/null
    check "gostx -> openssl, $leaf, $n bytes" agree $? $n.bin g.out
    rm -f o.out g.out
  done
done
# EncryptedData with GOST 28147-89 content, both ways
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
openssl cms -engine gost -EncryptedData_encrypt -binary -gost89 -secretkey $key -in 1025.bin \
  -outform PEM -out oed.pem 2>/dev/null &&
  "$G" cms -EncryptedData_decrypt -secretkey $key -in oed.pem -out oed.out 2>/dev/null
check "EncryptedData -gost89 openssl -> gostx" agree $? 1025.bin oed.out
"$G" cms -EncryptedData_encrypt -gost89 -secretkey $key -in 1025.bin -out ged.pem &&
  openssl cms -engine gost -EncryptedData_decrypt -binary -secretkey $key -inform PEM -in ged.pem \
    -out ged.out 2>/dev/null
check "EncryptedData -gost89 gostx -> openssl" agree $? 1025.bin ged.out
finish
