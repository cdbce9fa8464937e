#!/usr/bin/env bash
# gostx cms -decrypt on recipients and contents of other kinds (issue 67):
# RFC 4490's KeyAgreeRecipientInfo as TK26's CMS examples carry it (the
# PyGOST vectors, tests/vectors/tc26_cms/tk26cms_kari*; the recipients'
# private keys written here as PKCS#8 from the hex PyGOST gives) decrypted
# to the known text, by the key alone; and every EnvelopedData refusal
# named by EnvelopedData's own parts, never SignedData's: an AES content
# ("contentEncryptionAlgorithm: not supported (AES-256-CBC, ...)"), nine
# recipients (the limit, 8, said), only password or KEK recipients, a
# contentType that is no CMS content type, an -OMAC content without its
# MAC attribute; with gost-engine, an RSA recipient of GOST content is
# named (not "no recipient opens with the key"). openssl (without the
# engine) makes the foreign messages; without it those parts are skipped.
. "$(dirname "$0")/cli_common.sh" cms_recipients_cli
tc26=$here/vectors/tc26_cms
cd "$T" || exit 1

# PKCS#8 of d (hex, big-endian) on a 256/512-bit parameter set, as gost-engine writes it
pkcs8() {
  python3 - "$@" <<'EOF'
import sys, base64
def tlv(t, b): return bytes([t, len(b)]) + b  # every length here is < 128
def oid(s):
    a = [int(x) for x in s.split('.')]; out = bytearray([40 * a[0] + a[1]])
    for v in a[2:]:
        enc = [v & 0x7f]; v >>= 7
        while v: enc.append(0x80 | (v & 0x7f)); v >>= 7
        out += bytes(reversed(enc))
    return tlv(6, bytes(out))
d, bits, params = bytes.fromhex(sys.argv[1])[::-1], sys.argv[2], sys.argv[3]
key, digest = {"256": ("1.2.643.7.1.1.1.1", "1.2.643.7.1.1.2.2"), "512": ("1.2.643.7.1.1.1.2", "1.2.643.7.1.1.2.3")}[bits]
der = tlv(0x30, tlv(2, b"\0") + tlv(0x30, oid(key) + tlv(0x30, oid(params) + oid(digest))) + tlv(4, tlv(4, d)))
print("-----BEGIN PRIVATE KEY-----\n" + base64.encodebytes(der).decode() + "-----END PRIVATE KEY-----")
EOF
}
pkcs8 BFCF1D623E5CDD3032A7C6EABB4A923C46E43D640FFEAAF2C3ED39A8FA399924 256 1.2.643.2.2.36.0 >k256.pem
pkcs8 3FC01CDCD4EC5F972EB482774C41E66DB7F380528DFE9E67992BA05AEE462435757530E641077CE587B976C8EEB48C48FD33FD175F0C7DE6A44E014E6BCB074B \
  512 1.2.643.7.1.2.1.2.2 >k512.pem
for n in 256 512; do
  "$G" cms -decrypt -inkey k$n.pem -in "$tc26/tk26cms_kari${n}_gost89.pem" -out kari$n.out 2>err
  check "TK26 KARI $n: $(cat err)" [ "$(cat kari$n.out 2>/dev/null)" = "Test message" ]
  check "TK26 KARI $n: said CFB is not authenticated" grep -q "GOST 28147-89 CFB: not authenticated" err
  "$G" cms -decrypt -inkey k$n.pem -inform DER -in "$tc26/tk26cms_kari${n}_gost89.pem" -out no.out 2>err
  check "TK26 KARI $n as DER: refused" [ $? = 4 -a ! -e no.out ]
done
# a key of neither example's recipient: the key is blamed, the recipient read
"$G" cms -decrypt -inkey k512.pem -in "$tc26/tk26cms_kari256_gost89.pem" -out no.out 2>err
check "TK26 KARI 256 with the 512-bit key: none opens" grep -q "none of its 1 recipients opens with the key" err

# refuse WHAT GREP ARGS...: -decrypt refused (exit 4), GREP said, nothing written
refuse() {
  local what=$1 grep=$2
  shift 2
  rm -f never
  "$G" cms -decrypt "$@" -out never 2>err
  local rc=$?
  if [ $rc != 4 ]; then bad "$what: exit $rc, want 4: $(cat err)"; return; fi
  if ! grep -q -- "$grep" err; then bad "$what: '$grep' not said: $(cat err)"; return; fi
  if [ -e never ]; then bad "$what: -out written"; return; fi
  ok
}
# mangle IN OUT OLD_HEX NEW_HEX: the first OLD replaced
mangle() {
  python3 -c 'import sys; s, d, o, n = sys.argv[1:5]; b = open(s, "rb").read(); o = bytes.fromhex(o)
assert o in b; i = b.index(o); open(d, "wb").write(b[:i] + bytes.fromhex(n) + b[i + len(o):])' "$@"
}
r256=(-recip "$tc26/recipient256_cert.pem" -inkey "$tc26/recipient256_key.pem")
head -c 3000 /dev/urandom >doc.bin
"$G" cms -encrypt -recip "$tc26/recipient256_cert.pem" -in doc.bin -outform DER -out env.der
# encryptedContentInfo's contentType id-data (1.2.840.113549.1.7.1) made .7.9
mangle env.der ct.der 06092a864886f70d010701 06092a864886f70d010709
refuse "contentType not a CMS content type" "encryptedContentInfo: contentType is not a CMS content type" \
  "${r256[@]}" -in ct.der
"$G" cms -EncryptedData_encrypt -secretkey "$(cat "$tc26/encryption_key.hex")" -in doc.bin -outform DER -out ed.der
mangle ed.der ed-ct.der 06092a864886f70d010701 06092a864886f70d010709
rm -f never
"$G" cms -EncryptedData_decrypt -secretkey "$(cat "$tc26/encryption_key.hex")" -in ed-ct.der -out never 2>err
check "EncryptedData: contentType named" grep -q "encryptedContentInfo: contentType is not a CMS content type" err
check "EncryptedData: contentType: nothing written" [ ! -e never ]
# the -OMAC content's id-cms-mac-attr (1.2.643.7.1.0.6.1.1) made another attribute
"$G" cms -encrypt -omac -recip "$tc26/recipient256_cert.pem" -in doc.bin -outform DER -out omac.der
mangle omac.der nomac.der 06092a8503070100060101 06092a8503070100060102
refuse "-OMAC content without its MAC" "unprotectedAttrs: the -OMAC content's id-cms-mac-attr" "${r256[@]}" -in nomac.der

command -v openssl >/dev/null || { echo "openssl not found: its messages skipped"; finish; }
export OPENSSL_CONF=/dev/null
for i in 1 2 3 4 5 6 7 8 9; do
  openssl req -x509 -newkey rsa:1024 -nodes -subj /CN=r$i -keyout rk$i.pem -out rc$i.pem -days 1 2>/dev/null
done
openssl cms -encrypt -aes256 -in doc.bin -outform PEM -out aes.pem rc1.pem
refuse "an AES content, the key alone" "contentEncryptionAlgorithm: not supported (AES-256-CBC, OID 2.16.840.1.101.3.4.1.42)" \
  -inkey "$tc26/recipient256_key.pem" -in aes.pem
openssl cms -encrypt -aes128 -in doc.bin -outform PEM -out nine.pem rc1.pem rc2.pem rc3.pem rc4.pem rc5.pem \
  rc6.pem rc7.pem rc8.pem rc9.pem
refuse "nine recipients" "recipientInfos: more recipients than the 8 read" "${r256[@]}" -in nine.pem
refuse "nine recipients, the key alone" "recipientInfos: more recipients than the 8 read" \
  -inkey "$tc26/recipient256_key.pem" -in nine.pem
openssl cms -encrypt -aes128 -pwri_password secret -in doc.bin -outform PEM -out pwri.pem
refuse "a password recipient only" "recipientInfos: only kinds not read" "${r256[@]}" -in pwri.pem
openssl cms -encrypt -aes128 -secretkey 000102030405060708090a0b0c0d0e0f -secretkeyid 01 -in doc.bin \
  -outform PEM -out kek.pem
refuse "a KEK recipient only" "recipientInfos: only kinds not read" "${r256[@]}" -in kek.pem

openssl engine gost >/dev/null 2>&1 || { echo "gost-engine not found: its message skipped"; finish; }
# GOST 28147-89 content, an RSA recipient: named, the key not blamed
openssl cms -engine gost -encrypt -gost89 -in doc.bin -outform PEM -out rsa89.pem rc1.pem 2>/dev/null
refuse "an RSA recipient of GOST content, the key alone" \
  "recipient: keyEncryptionAlgorithm not supported (RSA, OID 1.2.840.113549.1.1.1)" \
  -inkey "$tc26/recipient256_key.pem" -in rsa89.pem
finish
