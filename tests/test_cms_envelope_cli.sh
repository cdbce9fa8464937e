#!/usr/bin/env bash
# gostx cms -encrypt / -decrypt, -EncryptedData_encrypt / _decrypt and
# -digest_create / -digest_verify. First with no peer: R 1323565.1.025-2019's
# examples (tests/vectors/tc26_cms: KTRI 256 and 512, EncryptedData,
# DigestedData) decrypted or verified byte for byte; refusals by name, exit
# 4 and nothing written (another recipient, a changed OMAC'd ciphertext);
# the note that plain CTR-ACPKM is not authenticated; -out 0600; -kari
# (ephemeral and static originator) and -keyid recipients, decryption by
# -inkey alone. Then with
# `openssl cms -engine gost` both ways for each content cipher and 256/512
# keys (tests/support/gost_pki.sh's leaves), KARI and -keyid toward
# gost-engine, its -keyid toward gostx's -inkey alone, at most one ACPKM section
# toward gost-engine (its decryption returns wrong bytes from byte 1025
# with Magma and 4097 with Kuznyechik, its own messages too: docs/CMS.md);
# gostx decrypts gost-engine's longer messages. Skipped (77) without
# openssl and gost-engine after the first part.
. "$(dirname "$0")/cli_common.sh" cms_envelope_cli
tc26=$here/vectors/tc26_cms
hex() { od -An -tx1 -v "$1" | tr -d ' \n'; }
# "Контрольный пример для структуры " in CP1251, then the structure's name
prefix=caeeedf2f0eeebfcedfbe920eff0e8ece5f020e4ebff20f1f2f0f3eaf2f3f0fb20
enveloped_text=${prefix}456e76656c6f706564446174612e   # EnvelopedData.
encrypted_text=${prefix}456e63727970746564446174612e   # EncryptedData.
digested_text=${prefix}446967657374446174612e          # DigestData.

for ex in "a231 256" "a241 512"; do
  set -- $ex
  "$G" cms -decrypt -recip "$tc26/recipient$2_cert.pem" -inkey "$tc26/recipient$2_key.pem" \
    -in "$tc26/encrypted_keytrans_$1.pem" -out "$T/$1.out" 2>"$T/err"
  check "TC26 $1 (KTRI $2) decrypts: $(cat "$T/err")" [ "$(hex "$T/$1.out")" = "$enveloped_text" ]
  check "TC26 $1: the content is written 0600" [ "$(stat -c %a "$T/$1.out")" = 600 ]
done
"$G" cms -decrypt -recip "$tc26/recipient256_cert.pem" -inkey "$tc26/recipient256_key.pem" \
  -in "$tc26/encrypted_keytrans_a231.pem" -out "$T/x" 2>"$T/err"
check "a231: said not authenticated" grep -q "CTR-ACPKM without OMAC: not authenticated" "$T/err"
"$G" cms -decrypt -recip "$tc26/recipient512_cert.pem" -inkey "$tc26/recipient512_key.pem" \
  -in "$tc26/encrypted_keytrans_a231.pem" -out "$T/other.out" 2>"$T/err"
check "a231 for another certificate: exit 4" [ $? = 4 ]
check "a231 for another certificate: named" grep -q "recipient: no recipient info names" "$T/err"
check "a231 for another certificate: nothing written" [ ! -e "$T/other.out" ]
# A.2.1 (KARI, ephemeral originator) and A.2.2 (KARI, static originator)
"$G" cms -decrypt -recip "$tc26/recipient512_cert.pem" -inkey "$tc26/recipient512_key.pem" \
  -in "$tc26/encrypted_keyagree_a211.pem" -out "$T/a211.out" 2>"$T/err"
check "TC26 a211 (KARI, ephemeral) decrypts: $(cat "$T/err")" [ "$(hex "$T/a211.out")" = "$enveloped_text" ]
"$G" cms -decrypt -recip "$tc26/recipient256_cert.pem" -inkey "$tc26/recipient256_key.pem" \
  -originator "$tc26/sender256_cert.pem" -in "$tc26/encrypted_keyagree_a221.pem" -out "$T/a221.out" 2>"$T/err"
check "TC26 a221 (KARI, static) decrypts: $(cat "$T/err")" [ "$(hex "$T/a221.out")" = "$enveloped_text" ]
"$G" cms -decrypt -recip "$tc26/recipient256_cert.pem" -inkey "$tc26/recipient256_key.pem" \
  -in "$tc26/encrypted_keyagree_a221.pem" -out "$T/a221-no.out" 2>"$T/err"
check "a221 without -originator: exit 4, nothing written" [ $? = 4 -a ! -e "$T/a221-no.out" ]
check "a221 without -originator: named" grep -q "originator: the static originator" "$T/err"
# A.2.4's ciphertext changed (its last byte before the MAC attribute)
grep -v -- ----- "$tc26/encrypted_keytrans_a241.pem" | base64 -d >"$T/a241.der"
flip_byte "$T/a241.der" $(($(stat -c %s "$T/a241.der") - 28))
"$G" cms -decrypt -recip "$tc26/recipient512_cert.pem" -inkey "$tc26/recipient512_key.pem" \
  -in "$T/a241.der" -out "$T/changed.out" 2>"$T/err"
check "a241 changed: exit 4" [ $? = 4 ]
check "a241 changed: the OMAC named" grep -q "content: the OMAC does not verify" "$T/err"
check "a241 changed: nothing written" [ ! -e "$T/changed.out" ]

# the recipient's key encrypted (PKCS#8 PBES2): -passin; a wrong one writes nothing
"$G" pkey -in "$tc26/recipient256_key.pem" -passout pass:secret -out "$T/enc.key" 2>"$T/err" || bad "pkey: $(cat "$T/err")"
"$G" cms -decrypt -recip "$tc26/recipient256_cert.pem" -inkey "$T/enc.key" -passin pass:secret \
  -in "$tc26/encrypted_keytrans_a231.pem" -out "$T/enc.out" 2>"$T/err"
check "a231 with an encrypted key and -passin: $(cat "$T/err")" [ "$(hex "$T/enc.out")" = "$enveloped_text" ]
"$G" cms -decrypt -recip "$tc26/recipient256_cert.pem" -inkey "$T/enc.key" -passin pass:wrong \
  -in "$tc26/encrypted_keytrans_a231.pem" -out "$T/enc-wrong.out" 2>"$T/err"
check "a wrong -passin: exit 1, nothing written" [ $? = 1 -a ! -e "$T/enc-wrong.out" ]

# A.4: the key file has the key's bytes reversed (its README)
key=$(fold -w2 "$tc26/encryption_key.hex" | tac | tr -d '\n')
for ex in encrypted_magma_a411 encrypted_kuznyechik_a421; do
  "$G" cms -EncryptedData_decrypt -secretkey "$key" -in "$tc26/$ex.pem" -out "$T/$ex.out" 2>"$T/err"
  check "TC26 $ex decrypts: $(cat "$T/err")" [ "$(hex "$T/$ex.out")" = "$encrypted_text" ]
done
"$G" cms -EncryptedData_decrypt -secretkey "$(cat "$tc26/encryption_key.hex")" \
  -in "$tc26/encrypted_magma_a411.pem" -out "$T/wrong.out" 2>"$T/err"
check "a411 with another key: exit 4, nothing written" [ $? = 4 -a ! -e "$T/wrong.out" ]
check "a411 with another key: the OMAC named" grep -q "OMAC does not verify" "$T/err"
for ex in hashed_a311 hashed_a321; do
  "$G" cms -digest_verify -in "$tc26/$ex.pem" -out "$T/$ex.out" 2>"$T/err"
  check "TC26 $ex verifies: $(cat "$T/err")" [ "$(hex "$T/$ex.out")" = "$digested_text" ]
done

# made and read by gostx: each cipher, EncryptedData and DigestedData too
head -c 30000 /dev/urandom >"$T/doc.bin"
for c in "" -omac -magma "-magma -omac"; do
  "$G" cms -EncryptedData_encrypt -secretkey "$key" $c -in "$T/doc.bin" -out "$T/ed.pem" &&
    "$G" cms -EncryptedData_decrypt -secretkey "$key" -in "$T/ed.pem" -out "$T/ed.out" 2>/dev/null
  check "EncryptedData $c: round trip" cmp -s "$T/doc.bin" "$T/ed.out"
done
for md in streebog256 streebog512; do
  "$G" cms -digest_create -md $md -in "$T/doc.bin" -outform DER -out "$T/dd.der" &&
    "$G" cms -digest_verify -in "$T/dd.der" -out "$T/dd.out" 2>/dev/null
  check "DigestedData $md: round trip" cmp -s "$T/doc.bin" "$T/dd.out"
done
"$G" cms -encrypt -in "$T/doc.bin" -out "$T/u.p7m" 2>/dev/null
check "-encrypt without -recip: exit 2" [ $? = 2 -a ! -e "$T/u.p7m" ]
"$G" cms -encrypt -kuznyechik -magma -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>/dev/null
check "two ciphers: exit 2" [ $? = 2 -a ! -e "$T/u.p7m" ]

# -kari (KeyAgreeRecipientInfo, ephemeral originator) and -keyid, each
# read back by certificate and by -inkey alone (openssl's way)
for k in "" -kari; do
  for id in "" -keyid; do
    "$G" cms -encrypt $k $id -magma -omac -recip "$tc26/recipient256_cert.pem" \
      -recip "$tc26/recipient512_cert.pem" -in "$T/doc.bin" -out "$T/ri.p7m" 2>"$T/err"
    for r in 256 512; do
      gdec_tc26() { "$G" cms -decrypt "$@" -inkey "$tc26/recipient${r}_key.pem" -in "$T/ri.p7m" -out "$T/ri.out" 2>"$T/err"; }
      rm -f "$T/ri.out"; gdec_tc26 -recip "$tc26/recipient${r}_cert.pem"
      check "${k:-ktri} ${id:-ias}: recipient $r decrypts: $(cat "$T/err")" cmp -s "$T/doc.bin" "$T/ri.out"
      rm -f "$T/ri.out"; gdec_tc26
      check "${k:-ktri} ${id:-ias}: recipient $r decrypts by -inkey alone: $(cat "$T/err")" cmp -s "$T/doc.bin" "$T/ri.out"
    done
  done
done
"$G" cms -decrypt -inkey "$tc26/sender256_key.pem" -in "$T/ri.p7m" -out "$T/ri-other.out" 2>"$T/err"
check "-inkey alone, a key of no recipient: exit 4, nothing written" [ $? = 4 -a ! -e "$T/ri-other.out" ]
check "-inkey alone, a key of no recipient: said" grep -q "none of its 2 recipients opens with the key of" "$T/err"
"$G" cms -decrypt -inkey "$tc26/recipient256_key.pem" -originator "$tc26/sender256_cert.pem" \
  -in "$tc26/encrypted_keyagree_a221.pem" -out "$T/a221-key.out" 2>"$T/err"
check "a221 by -inkey alone with -originator: $(cat "$T/err")" [ "$(hex "$T/a221-key.out")" = "$enveloped_text" ]
"$G" cms -encrypt -keyid -recip "$here/vectors/pkcs12/cert256.pem" -in "$T/doc.bin" -out "$T/noski.p7m" 2>"$T/err"
check "-keyid, a certificate without subjectKeyIdentifier: exit 2, nothing written" [ $? = 2 -a ! -e "$T/noski.p7m" ]
check "-keyid, a certificate without subjectKeyIdentifier: said" grep -q "has no subjectKeyIdentifier" "$T/err"
"$G" cms -decrypt -kari -inkey "$tc26/recipient256_key.pem" -in "$T/ri.p7m" -out "$T/u.out" 2>/dev/null
check "-kari with -decrypt: exit 2" [ $? = 2 -a ! -e "$T/u.out" ]
# -kari with a static originator (A.2.2's shape: sender256 named, its key
# in KEG), from a pipe too; read back by certificate and by -inkey alone
# with -originator; without it, or with another, refused by name
for id in "" -keyid; do
  "$G" cms -encrypt -kari $id -originator "$tc26/sender256_cert.pem" -originator-key "$tc26/sender256_key.pem" \
    -recip "$tc26/recipient256_cert.pem" -in - -out "$T/st.p7m" <"$T/doc.bin" 2>"$T/err"
  check "static originator ${id:-ias}: written: $(cat "$T/err")" [ -s "$T/st.p7m" ]
  for by in "-recip $tc26/recipient256_cert.pem" ""; do
    rm -f "$T/st.out"
    "$G" cms -decrypt $by -inkey "$tc26/recipient256_key.pem" -originator "$tc26/sender256_cert.pem" \
      -in "$T/st.p7m" -out "$T/st.out" 2>"$T/err"
    check "static originator ${id:-ias} ${by:+by certificate}: decrypts: $(cat "$T/err")" cmp -s "$T/doc.bin" "$T/st.out"
  done
  rm -f "$T/st.out"
  "$G" cms -decrypt -inkey "$tc26/recipient256_key.pem" -in "$T/st.p7m" -out "$T/st.out" 2>"$T/err"
  check "static originator ${id:-ias}, no -originator: exit 4, nothing written" [ $? = 4 -a ! -e "$T/st.out" ]
  check "static originator ${id:-ias}, no -originator: named" grep -q "originator: the static originator" "$T/err"
  "$G" cms -decrypt -inkey "$tc26/recipient256_key.pem" -originator "$tc26/recipient256_cert.pem" \
    -in "$T/st.p7m" -out "$T/st.out" 2>"$T/err"
  check "static originator ${id:-ias}, another -originator: exit 4, nothing written" [ $? = 4 -a ! -e "$T/st.out" ]
  check "static originator ${id:-ias}, another -originator: named" grep -q "originator: the static originator" "$T/err"
done
"$G" cms -encrypt -kari -originator "$tc26/sender256_cert.pem" -originator-key "$tc26/recipient256_key.pem" \
  -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>"$T/err"
check "-originator-key not -originator's: exit 2, nothing written" [ $? = 2 -a ! -e "$T/u.p7m" ]
check "-originator-key not -originator's: said" grep -q "is not the private key of" "$T/err"
"$G" cms -encrypt -kari -originator "$tc26/sender256_cert.pem" -originator-key "$tc26/sender256_key.pem" \
  -recip "$tc26/recipient512_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>"$T/err"
check "a static originator on another curve: exit 2, nothing written" [ $? = 2 -a ! -e "$T/u.p7m" ]
"$G" cms -encrypt -originator "$tc26/sender256_cert.pem" -originator-key "$tc26/sender256_key.pem" \
  -recip "$tc26/recipient256_cert.pem" -in "$T/doc.bin" -out "$T/u.p7m" 2>"$T/err"
check "a static originator without -kari: exit 2, nothing written" [ $? = 2 -a ! -e "$T/u.p7m" ]

engine_pki_or_finish
head -c 1024 /dev/urandom >magma.bin   # one Magma section (gost-engine's limit)
head -c 4096 /dev/urandom >kuz.bin     # one Kuznyechik section
head -c 20000 /dev/urandom >big.bin    # past gost-engine's decryption bug
odec() { openssl cms -engine gost -decrypt -binary -inform PEM -in "$1" -recip "$2.pem" -inkey "$2.key" -out "$3" 2>/dev/null; }
oenc() { openssl cms -engine gost -encrypt -binary "-$1" -in "$2" -outform PEM -out "$3" "$4.pem" 2>/dev/null; }
gdec() { "$G" cms -decrypt -recip "$2.pem" -inkey "$2.key" -in "$1" -out "$3" 2>"$T/err"; }
for leaf in leaf-256A leaf-256B leaf-512A leaf-512C; do
  for ci in kuznyechik-ctr-acpkm kuznyechik-ctr-acpkm-omac magma-ctr-acpkm magma-ctr-acpkm-omac; do
    f=kuz.bin
    case $ci in magma*) f=magma.bin ;; esac
    oenc $ci $f o.p7m $leaf && gdec o.p7m $leaf o.out
    check "openssl -> gostx, $leaf $ci: $(cat "$T/err")" cmp -s $f o.out
    "$G" cms -encrypt -recip $leaf.pem -$ci -in $f -out g.p7m && odec g.p7m $leaf g.out
    check "gostx -> openssl, $leaf $ci" cmp -s $f g.out
    rm -f o.out g.out
  done
done
# KARI and -keyid with gost-engine: it decrypts gostx's KARI (by -recip and
# with -inkey alone) and key-id recipients; it writes KTRI only (no option
# of openssl cms asks for KARI, and its key method answers
# CMS_RECIPINFO_TRANS): docs/CMS.md
for leaf in leaf-256A leaf-512C; do
  for opt in "-kari kuznyechik-ctr-acpkm-omac kuz.bin" "-kari -keyid magma-ctr-acpkm magma.bin" \
             "-keyid kuznyechik-ctr-acpkm kuz.bin"; do
    set -- $opt
    f=${*: -1} ci=${*: -2:1}
    "$G" cms -encrypt ${*:1:$#-2} -$ci -recip $leaf.pem -in $f -out gk.p7m && odec gk.p7m $leaf gk.out
    check "gostx -> openssl, $leaf ${*:1:$#-2} $ci" cmp -s $f gk.out
    rm -f gk.out
  done
  openssl cms -engine gost -decrypt -binary -inform PEM -in gk.p7m -inkey $leaf.key -out gk.out 2>/dev/null
  check "gostx -> openssl -decrypt -inkey alone, $leaf -keyid" cmp -s kuz.bin gk.out
  openssl cms -engine gost -encrypt -keyid -binary -magma-ctr-acpkm-omac -in magma.bin -outform PEM \
    -out ok.p7m $leaf.pem 2>/dev/null &&
    "$G" cms -decrypt -inkey $leaf.key -in ok.p7m -out ok.out 2>"$T/err"
  check "openssl -keyid -> gostx -inkey alone, $leaf: $(cat "$T/err")" cmp -s magma.bin ok.out
  check "openssl writes a KTRI for $leaf (no KARI)" \
    sh -c "openssl cms -cmsout -print -inform PEM -in ok.p7m | grep -q 'd.ktri:' &&
           ! openssl cms -cmsout -print -inform PEM -in ok.p7m | grep -q 'd.kari:'"
  rm -f ok.out gk.out
done
# gost-engine encrypts past a section right (it decrypts wrong): gostx reads it
for ci in kuznyechik-ctr-acpkm magma-ctr-acpkm-omac; do
  oenc $ci big.bin ob.p7m leaf-512A && gdec ob.p7m leaf-512A ob.out
  check "openssl -> gostx, 20000 bytes, $ci: $(cat "$T/err")" cmp -s big.bin ob.out
done
# EncryptedData and DigestedData both ways
openssl cms -engine gost -EncryptedData_encrypt -binary -kuznyechik-ctr-acpkm -secretkey "$key" \
  -in kuz.bin -outform PEM -out oed.pem 2>/dev/null &&
  "$G" cms -EncryptedData_decrypt -secretkey "$key" -in oed.pem -out oed.out 2>/dev/null
check "EncryptedData openssl -> gostx" cmp -s kuz.bin oed.out
"$G" cms -EncryptedData_encrypt -secretkey "$key" -in kuz.bin -out ged.pem &&
  openssl cms -engine gost -EncryptedData_decrypt -binary -secretkey "$key" -inform PEM -in ged.pem \
    -out ged.out 2>/dev/null
check "EncryptedData gostx -> openssl" cmp -s kuz.bin ged.out
openssl cms -engine gost -digest_create -binary -md md_gost12_512 -in big.bin -outform PEM -out odd.pem 2>/dev/null &&
  "$G" cms -digest_verify -in odd.pem -out odd.out 2>/dev/null
check "DigestedData openssl -> gostx" cmp -s big.bin odd.out
"$G" cms -digest_create -in big.bin -out gdd.pem &&
  openssl cms -engine gost -digest_verify -binary -inform PEM -in gdd.pem -out gdd.out 2>/dev/null
check "DigestedData gostx -> openssl" cmp -s big.bin gdd.out
finish
