#!/bin/bash
# gostx key import: a CryptoPro CSP file container (tests/vectors/cryptopro/,
# each folder's README.md names its source) to a PKCS#8 key and a PFX. The
# expected key is no decoder's output: it is the key of the certificate the
# container carries (gostx writes the certificate out; openssl with
# gost-engine, where it runs, reads both the key file and the certificate).
# Then the refusals: a wrong PIN (exit 1, said as such), each file truncated
# or changed (exit 2, the file named; a damaged reserve copy is a warning),
# a certificate that is not the key's (a header rebuilt around another
# certificate, its check value recomputed: exit 1); nothing written on
# failure, an existing output kept, and the container folder unchanged.
. "$(dirname "$0")/cli_common.sh" keycont
cd "$T"
V=$here/vectors/cryptopro
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
pub_of_key() { "$G" pkey -i "$1" -passin "${2:-pass:}" -pubout 2>/dev/null; }
# KEY CERT: gostx pkcs12 -export takes only a key with the certificate whose key it is
key_is_certs() { "$G" pkcs12 -export -inkey "$1" -in "$2" -passout pass:x -out chk.pfx 2>/dev/null; }
cert_block() { sed -n '/BEGIN CERTIFICATE/,/END CERTIFICATE/p' "$1"; }
tree_sum() { (cd "$1" && find . -type f -printf '%p %m\n' | sort && cat $(find . -type f | sort) | sha256sum); }
ossl=0
if command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1; then
  ossl=1
  export OPENSSL_CONF=$here/support/gost_engine.cnf
fi

# header.key rebuilt (python3): each element of its content through
# edit(tag, element) -> bytes, its check value made again (gostx mac)
cat >hdr.py <<EOF
import subprocess, sys
sys.path.insert(0, "$here/support")
from der import header, tlv
EOF
cat >>hdr.py <<'EOF'
def rebuild(src, dst, G, edit):
    h = open(src, 'rb').read()
    _, oh, _ = header(h, 0)
    _, ch, cn = header(h, oh)
    content, i, out = h[oh + ch:oh + ch + cn], 0, b''
    while i < len(content):
        t, hl, n = header(content, i)
        out += edit(t, content[i:i + hl + n])
        i += hl + n
    c = tlv(0x30, out)
    mac = subprocess.run([G, 'mac', 'gost89-imit', '-k', '00' * 32, '--sbox', 'tc26-z'],
                         input=c, capture_output=True, check=True).stdout.decode().strip()
    open(dst, 'wb').write(tlv(0x30, c + tlv(0x04, bytes.fromhex(mac))))
EOF

for src in "$V"/*/; do
  name=$(basename "$src")
  cp -r "$src" "c_$name"
  C=c_$name
  before=$(tree_sum "$C")
  # the key, plain; the certificate beside it
  check "$name: import" "$G" key import "$C" -out "$name.pem" -nocrypt -passin pass: -certout "$name.crt"
  check "$name: 0600" [ "$(stat -c %a "$name.pem")" = 600 ]
  check "$name: the key is the certificate's" key_is_certs "$name.pem" "$name.crt"
  want=$(pub_of_key "$name.pem")
  # encrypted by default: needs its password back
  check "$name: encrypted" "$G" key import "$C" -out "$name.enc" -passin pass: -passout pass:пароль
  check "$name: encrypted, no password: refused" bash -c "! '$G' pkey -i '$name.enc' -passin pass:x -pubout >/dev/null 2>&1"
  check "$name: encrypted reads back" same "$want" "$(pub_of_key "$name.enc" pass:пароль)"
  # a PFX with the certificate: gostx reads it back, its key the certificate's
  check "$name: pfx" "$G" key import "$C" -out "$name.pfx" -pfx -passin pass: -passout pass:pw
  check "$name: pfx splits" "$G" pkcs12 -in "$name.pfx" -passin pass:pw -noenc -out "$name.pfx.pem"
  check "$name: pfx key" same "$want" "$(pub_of_key "$name.pfx.pem")"
  check "$name: pfx certificate" same "$(cert_block "$name.crt")" "$(cert_block "$name.pfx.pem")"
  if [ $ossl = 1 ]; then
    o() { openssl "$@" 2>/dev/null; }
    owant=$(o x509 -in "$name.crt" -pubkey -noout)
    check "$name: openssl reads the key" same "$owant" "$(o pkey -in "$name.pem" -pubout)"
    check "$name: openssl reads the encrypted key" same "$owant" "$(o pkey -in "$name.enc" -passin pass:пароль -pubout)"
    o pkcs12 -in "$name.pfx" -passin pass:pw -noenc -nocerts -out "$name.o.pem"
    check "$name: openssl reads the pfx" same "$owant" "$(o pkey -in "$name.o.pem" -pubout)"
  fi

  # a wrong PIN: said as such, exit 1, nothing written, an old file kept
  echo old >old.pem
  "$G" key import "$C" -out old.pem -nocrypt -passin pass:0000 2>err
  check "$name: wrong PIN exit 1" [ $? = 1 ]
  check "$name: wrong PIN said" grep -q "wrong PIN" err
  check "$name: old output kept" [ "$(cat old.pem)" = old ]

  # each file truncated: exit 2, the file named
  for f in header.key masks.key primary.key name.key; do
    [ -f "$C/$f" ] || continue
    rm -rf d t.pem && cp -r "$C" d
    truncate -s $(($(stat -c %s "d/$f") - 1)) "d/$f"
    "$G" key import d -out t.pem -nocrypt -passin pass: 2>err
    check "$name: $f truncated: exit 2" [ $? = 2 ]
    check "$name: $f truncated: named" grep -q "$f" err
    check "$name: $f truncated: nothing written" [ ! -e t.pem ]
  done
  # a byte changed inside each file's content: the check values name the file
  for f in header.key masks.key primary.key; do
    rm -rf d t.pem && cp -r "$C" d
    flip_byte "d/$f" $(($(stat -c %s "d/$f") / 2))
    "$G" key import d -out t.pem -nocrypt -passin pass: 2>err
    rc=$?
    if [ $f = primary.key ] && [ ! -f "$C/primary2.key" ]; then
      check "$name: $f changed, no reserve: a wrong PIN or this file" grep -q "primary.key" err
    else
      check "$name: $f changed: exit 2" [ $rc = 2 ]
      check "$name: $f changed: named" grep -q "$f" err
    fi
    check "$name: $f changed: nothing written" [ ! -e t.pem ]
  done
  if [ -f "$C/primary2.key" ]; then # the reserve copy damaged: the key still comes, with a warning
    for f in masks2.key primary2.key; do
      for how in changed truncated; do
        rm -rf d r.pem && cp -r "$C" d
        if [ $how = changed ]; then flip_byte "d/$f" $(($(stat -c %s "d/$f") / 2))
        else truncate -s $(($(stat -c %s "d/$f") - 1)) "d/$f"; fi
        check "$name: $f $how: read" "$G" key import d -out r.pem -nocrypt -passin pass: 2>err
        check "$name: $f $how: warned" grep -q "reserve copy" err
        check "$name: $f $how: the key" same "$want" "$(pub_of_key r.pem)"
      done
    done
  fi

  # another certificate in header.key (its check value made again): refused
  if command -v python3 >/dev/null; then
    "$G" genpkey -c 256B -o other.key && "$G" req -x509 -key other.key -subj /CN=other -outform DER -out other.der
    rm -rf d t.pem && cp -r "$C" d
    python3 - d/header.key other.der "$G" <<'EOF'
import sys
from hdr import rebuild, tlv
cert = open(sys.argv[2], 'rb').read()
rebuild(sys.argv[1], sys.argv[1], sys.argv[3], lambda t, e: tlv(t, cert) if t in (0x85, 0xa5) else e)
EOF
    "$G" key import d -out t.pem -nocrypt -passin pass: 2>err
    check "$name: another certificate: exit 1" [ $? = 1 ]
    check "$name: another certificate: said" grep -q "not the key of its certificate" err
    check "$name: another certificate: nothing written" [ ! -e t.pem ]
  fi
  check "$name: the folder is unchanged" same "$before" "$(tree_sum "$C")"
done

# A container under a PIN: no PIN-protected container could be copied byte
# for byte, so masks.key and primary.key are built around the published salt
# and PIN-derived key (tests/test_keycont.c names them: PIN "qawsqaws") with
# the key of 91team-srv (mask = k / d mod q), under its header and certificate
if command -v python3 >/dev/null; then
  S=$V/91team-srv
  mkdir pin && cp "$S/header.key" "$S/name.key" pin/
  "$G" key import "$S" -out plain.pem -nocrypt -passin pass: 2>/dev/null
  d=$("$G" pkey -i plain.pem -text | sed -n 's/^d: //p')
  python3 - "$d" "$G" <<'EOF'
import subprocess, sys
q = 0xffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893  # XchA's (CryptoPro-A's) q
d, G = int(sys.argv[1], 16), sys.argv[2]
salt = bytes.fromhex("98e4f49415555d8ab20567a0")
K = "b551b39608787399ba85c59c68906b8f83c289ccee3c6141700dfc75ec0fd9f5"
k = int("01" + "5a" * 31, 16)
m = k * pow(d, -1, q) % q
le = lambda v: v.to_bytes(32, "little")
run = lambda *a, data: subprocess.run([G, *a], input=data, capture_output=True, check=True).stdout
mac = bytes.fromhex(run("mac", "gost89-imit", "-k", le(m).hex(), "--sbox", "tc26-z", data=salt).decode().strip())
enc = run("cipher", "gost89-ecb", "--sbox", "tc26-z", "-k", K, data=le(k))
open("pin/masks.key", "wb").write(b"\x30\x36\x04\x20" + le(m) + b"\x04\x0c" + salt + b"\x04\x04" + mac)
open("pin/primary.key", "wb").write(b"\x30\x22\x04\x20" + enc)
EOF
  want=$(pub_of_key plain.pem)
  check "PIN: import" "$G" key import pin -out pin.pem -nocrypt -passin pass:qawsqaws
  check "PIN: the key" same "$want" "$(pub_of_key pin.pem)"
  printf 'qawsqaws\n' >pin.txt
  check "PIN from a file" "$G" key import pin -out pin2.pem -nocrypt -passin file:pin.txt
  for p in "" qawsqawS qawsqaw; do
    "$G" key import pin -out bad.pem -nocrypt -passin "pass:$p" 2>err
    check "PIN '$p': exit 1" [ $? = 1 ]
    check "PIN '$p': said wrong" grep -q "wrong PIN" err
    check "PIN '$p': nothing written" [ ! -e bad.pem ]
  done
  # Two keys (the secondary key as rudonick/crypto's gostASN1.js and
  # gostKeys.js describe it: header.key [4] its parameters, [6] its
  # certificate, [11] its fingerprint; primary.key's second OCTET STRING,
  # under the same PIN-derived key and mask), built on the container above
  # with a signature key of gostx's own: no public container holds two keys
  "$G" genpkey -c 256B -o sig.key && "$G" req -x509 -key sig.key -subj /CN=sig -outform DER -out sig.der
  ds=$("$G" pkey -i sig.key -text | sed -n 's/^d: //p')
  xs=$("$G" pkey -i sig.key -text | sed -n 's/^x: //p')
  two() { # two DIR CERT: the container with the secondary key, CERT its [6]
    mkdir "$1" && cp pin/name.key pin/masks.key "$1"/
    python3 - "$1" "$2" "$ds" "$xs" "$G" <<'EOF'
import subprocess, sys
from hdr import rebuild, tlv
out, cert, G = sys.argv[1], open(sys.argv[2], 'rb').read(), sys.argv[5]
q = 0xffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893
K = "b551b39608787399ba85c59c68906b8f83c289ccee3c6141700dfc75ec0fd9f5"
run = lambda *a, data: subprocess.run([G, *a], input=data, capture_output=True, check=True).stdout
masks = open("pin/masks.key", "rb").read()
m = int.from_bytes(masks[4:36], "little")
k2 = int(sys.argv[3], 16) * m % q
primary = open("pin/primary.key", "rb").read()
second = run("cipher", "gost89-ecb", "--sbox", "tc26-z", "-k", K, data=k2.to_bytes(32, "little"))
open(out + "/primary.key", "wb").write(tlv(0x30, primary[2:] + tlv(0x04, second)))
oid = lambda t: bytes([6, len(t)]) + t
params = tlv(0xa4, bytes.fromhex("03020780") + tlv(0xa0, oid(bytes.fromhex("2a85030701010101")) +
             tlv(0x30, oid(bytes.fromhex("2a850302022301")) + oid(bytes.fromhex("2a85030701010202")))))
fp = tlv(0x8b, bytes.fromhex(sys.argv[4])[::-1][:8])
add = {0x82: params, 0x85: tlv(0x86, cert), 0x8a: fp}  # after [2], [5], [10]
rebuild("pin/header.key", out + "/header.key", G, lambda t, e: e + add.get(t, b''))
EOF
  }
  two two sig.der
  sigpub=$(pub_of_key sig.key)
  check "two keys: the primary by default" "$G" key import two -out p.pem -nocrypt -passin pass:qawsqaws 2>err
  check "two keys: the primary is the exchange key" same "$want" "$(pub_of_key p.pem)"
  check "two keys: the other listed" grep -q "secondary key too: signature" err
  check "two keys: -keyspec exchange" "$G" key import two -out e.pem -nocrypt -passin pass:qawsqaws -keyspec exchange
  check "two keys: -keyspec exchange: the key" same "$want" "$(pub_of_key e.pem)"
  check "two keys: -keyspec signature" "$G" key import two -out s.pem -nocrypt -passin pass:qawsqaws -keyspec signature -certout s.crt 2>err
  check "two keys: the signature key" same "$sigpub" "$(pub_of_key s.pem)"
  check "two keys: said secondary" grep -q "secondary signature key" err
  check "two keys: the signature key's certificate" key_is_certs s.pem s.crt
  check "two keys: the signature key as a PFX" "$G" key import two -out s.pfx -passin pass:qawsqaws -keyspec signature -pfx -passout pass:pw
  "$G" key import two -out bad.pem -nocrypt -passin pass:qawsqawS -keyspec signature 2>err
  check "two keys: a wrong PIN: exit 1" [ $? = 1 ]
  check "two keys: a wrong PIN: said" grep -q "wrong PIN" err
  # [6] another key's certificate: the signature key refused, the primary still read
  cert_block 91team-srv.crt | sed '1d;$d' | base64 -d >xch.der
  two badcert xch.der
  "$G" key import badcert -out bad.pem -nocrypt -passin pass:qawsqaws -keyspec signature 2>err
  check "two keys: another key's certificate: exit 1" [ $? = 1 ]
  check "two keys: another key's certificate: said" grep -q "not the key of its certificate" err
  check "two keys: another key's certificate: nothing written" [ ! -e bad.pem ]
  check "two keys: the primary still read" "$G" key import badcert -out p2.pem -nocrypt -passin pass:qawsqaws
  # the secondary key missing from primary.key: primary.key named
  rm -rf one && cp -r two one && cp pin/primary.key one/
  "$G" key import one -out bad.pem -nocrypt -passin pass:qawsqaws -keyspec signature 2>err
  check "two keys: primary.key without the secondary key: exit 2" [ $? = 2 ]
  check "two keys: primary.key without the secondary key: named" grep -q "primary.key" err
  # A 512-bit key: masks.key and primary.key made as above for a GOST R
  # 34.10-2012 512-bit key and certificate of gostx's own (header.key's key
  # parameters, certificate and fingerprint replaced): the 64-byte mask, its
  # IMIT under its last 32 bytes, d = k / mask mod q
  "$G" genpkey -c 512A -o k512.key && "$G" req -x509 -key k512.key -subj /CN=k512 -outform DER -out k512.der
  mkdir k512 && cp pin/name.key k512/
  python3 - "$("$G" pkey -i k512.key -text | sed -n 's/^d: //p')" \
    "$("$G" pkey -i k512.key -text | sed -n 's/^x: //p')" "$G" <<'EOF'
import subprocess, sys
from hdr import rebuild, tlv
q = int("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "27e69532f48d89116ff22b8d4e0560609b4b38abfad2b85dcacdb1411f10b275", 16)  # 512 A's
d, G = int(sys.argv[1], 16), sys.argv[3]
salt = bytes.fromhex("98e4f49415555d8ab20567a0")
K = "b551b39608787399ba85c59c68906b8f83c289ccee3c6141700dfc75ec0fd9f5"
m = int("01" + "a5" * 63, 16)
le = lambda v: v.to_bytes(64, "little")
run = lambda *a, data: subprocess.run([G, *a], input=data, capture_output=True, check=True).stdout
mac = bytes.fromhex(run("mac", "gost89-imit", "-k", le(m)[32:].hex(), "--sbox", "tc26-z", data=salt).decode().strip())
open("k512/masks.key", "wb").write(tlv(0x30, tlv(4, le(m)) + tlv(4, salt) + tlv(4, mac)))
key = run("cipher", "gost89-ecb", "--sbox", "tc26-z", "-k", K, data=le(d * m % q))
open("k512/primary.key", "wb").write(tlv(0x30, tlv(4, key)))
oid = lambda t: tlv(6, bytes.fromhex(t))
params = tlv(0x30, bytes.fromhex("03020780") + tlv(0xa0, oid("2a85030701010102") +
             tlv(0x30, oid("2a8503070102010201") + oid("2a85030701010203"))))
new = {0x30: params, 0x85: tlv(0x85, open("k512.der", "rb").read()),
       0x8a: tlv(0x8a, bytes.fromhex(sys.argv[2])[::-1][:8])}
rebuild("pin/header.key", "k512/header.key", G, lambda t, e: new.get(t, e))
EOF
  check "512: import under the PIN" "$G" key import k512 -out k512.pem -nocrypt -passin pass:qawsqaws -certout k512.crt 2>err
  check "512: said" grep -q "512 bits" err
  check "512: the key" same "$(pub_of_key k512.key)" "$(pub_of_key k512.pem)"
  check "512: the key is the certificate's" key_is_certs k512.pem k512.crt
  "$G" key import k512 -out bad.pem -nocrypt -passin pass:qawsqawS 2>err
  check "512: a wrong PIN: exit 1" [ $? = 1 ]
  check "512: a wrong PIN: said" grep -q "wrong PIN" err
fi

# A GOST R 34.10-2001 key: no public container holds one, so one is built
# (as the 512-bit one above, without a PIN) around a 2001 key and
# self-signed certificate made by openssl with gost-engine; its KDF hashes
# with GOST R 34.11-94 (openssl's md_gost94), primary.key is under the
# CryptoPro-A S-box. gostx writes the key as gost-engine writes 2001 keys:
# openssl reads the key file, the encrypted one and the PFX, their public
# key is the certificate's (a 2012 algorithm OID would give another SPKI),
# and a signature made with the written key verifies under the certificate.
if command -v python3 >/dev/null && [ $ossl = 1 ] && [ -d pin ]; then
  o() { openssl "$@" 2>/dev/null; }
  o genpkey -algorithm gost2001 -pkeyopt paramset:A -out k01.key &&
    o req -x509 -new -key k01.key -subj /CN=k2001 -days 30 -outform DER -out k01.der
  mkdir k01 && cp pin/name.key k01/
  python3 - "$(o pkey -in k01.key -noout -text | sed -n 's/^Private key: //p')" \
    "$(o pkey -in k01.key -noout -text | sed -n 's/^ *X://p')" "$G" <<'EOF'
import subprocess, sys
from hdr import rebuild, tlv
q = 0xffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893  # CryptoPro-A's
d, G = int(sys.argv[1], 16), sys.argv[3]
salt = bytes.fromhex("5f3cb1e2a4d6970812345678")
m = int("01" + "3c" * 31, 16)
le = lambda v: v.to_bytes(32, "little")
run = lambda *a, data: subprocess.run(list(a), input=data, capture_output=True, check=True).stdout
H = lambda *p: run("openssl", "dgst", "-md_gost94", "-binary", data=b"".join(p))
x = lambda a, c: bytes(b ^ c for b in a)
C, hs = b"DENEFH028.760246785.IUEFHWUIO.EF", H(salt)  # no PIN: P empty, 2 rounds
for _ in range(2):
    C = H(x(C, 0x36), hs, x(C, 0x5c), hs)
K = H(H(x(C, 0x36), salt, x(C, 0x5c)))
mac = bytes.fromhex(run(G, "mac", "gost89-imit", "-k", le(m).hex(), "--sbox", "tc26-z", data=salt).decode().strip())
open("k01/masks.key", "wb").write(tlv(0x30, tlv(4, le(m)) + tlv(4, salt) + tlv(4, mac)))
key = run(G, "cipher", "gost89-ecb", "--sbox", "cryptopro-a", "-k", K.hex(), data=le(d * m % q))
open("k01/primary.key", "wb").write(tlv(0x30, tlv(4, key)))
oid = lambda t: tlv(6, bytes.fromhex(t))
params = tlv(0x30, bytes.fromhex("03020780") + tlv(0xa0, oid("2a85030202" "13") +
             tlv(0x30, oid("2a850302022301") + oid("2a850302021e01"))))
new = {0x30: params, 0x85: tlv(0x85, open("k01.der", "rb").read()),
       # openssl prints X without its leading zeros (1 key in 16 has an odd count)
       0x8a: tlv(0x8a, bytes.fromhex(sys.argv[2].zfill(64))[::-1][:8])}
rebuild("pin/header.key", "k01/header.key", G, lambda t, e: new.get(t, e))
EOF
  cpub=$(o x509 -in k01.der -inform DER -pubkey -noout)
  check "2001: the certificate's key" same "$(o pkey -in k01.key -pubout)" "$cpub"
  check "2001: import" "$G" key import k01 -out k01.pem -nocrypt -passin pass: -certout k01.crt 2>err
  check "2001: said" grep -q "GOST R 34.10-2001" err
  check "2001: written as a 2001 key" bash -c "openssl asn1parse -in k01.pem | grep -q ':GOST R 34.10-2001\$'"
  check "2001: openssl reads the key" same "$cpub" "$(o pkey -in k01.pem -pubout)"
  check "2001: encrypted" "$G" key import k01 -out k01.enc -passin pass: -passout pass:pw
  check "2001: openssl reads the encrypted key" same "$cpub" "$(o pkey -in k01.enc -passin pass:pw -pubout)"
  check "2001: pfx" "$G" key import k01 -out k01.pfx -pfx -passin pass: -passout pass:pw
  o pkcs12 -in k01.pfx -passin pass:pw -noenc -out k01.o.pem
  check "2001: openssl reads the pfx's key" same "$cpub" "$(o pkey -in k01.o.pem -pubout)"
  check "2001: openssl reads the pfx's certificate" same "$(cert_block k01.crt)" "$(cert_block k01.o.pem)"
  echo "signed with a 2001 key" >msg
  o dgst -md_gost94 -sign k01.pem -out msg.sig msg
  echo "$cpub" >k01.pub
  check "2001: a signature with the written key verifies" o dgst -md_gost94 -verify k01.pub -signature msg.sig msg
  "$G" key import k01 -p11 none -passin pass: -pin pass:x 2>err
  check "2001: -p11 refused: exit 2" [ $? = 2 ]
  check "2001: -p11 refused: said" grep -q "2001 key: gostx's token" err
fi

# ViPNet CSP containers (one file; tests/test_vipnet.c covers the reader's
# every refusal): no container ViPNet CSP wrote is public, so they are built
# (support/vipnet_build.py) from the public description lib/keycont/vipnet.c
# names, around keys and a certificate of gostx's own, with openssl +
# gost-engine's GOST R 34.11-94, GOST 28147-89 CFB and IMIT where it runs
# (else gostx's): the key block under K = H(PIN) - H(PIN || H(PIN)) (32-bit
# words), CryptoPro-A S-boxes, d = a * b mod q. gostx key import tells the
# file from CryptoPro's folder and writes the key as for CryptoPro; the file
# is never changed.
if command -v python3 >/dev/null; then
  "$G" genpkey -c 256B -o v256.key && "$G" req -x509 -key v256.key -subj /CN=vipnet -outform DER -out v256.der
  "$G" genpkey -c 512A -o v512.key && "$G" genpkey -c 256B -o vo.key
  f() { "$G" pkey -i "$1" -text | sed -n "s/^$2: //p"; }
  python3 - "$G" $ossl "$(f v256.key d)" "$(f v256.key x)" "$(f v256.key y)" "$(f v512.key d)" \
    "$(f v512.key x)" "$(f v512.key y)" "$(f vo.key x)" "$(f vo.key y)" <<EOF2
import sys
sys.path.insert(0, "$here/support")
from vipnet_build import build, Q256B, Q512A
G, ossl = sys.argv[1], sys.argv[2] == "1"
d256, x256, y256, d512, x512, y512, xo, yo = (int(v, 16) for v in sys.argv[3:11])
a256 = ("1.2.643.7.1.1.1.1", "1.2.643.2.2.35.1", "1.2.643.7.1.1.2.2")  # as gostx names 256B
cert = open("v256.der", "rb").read()
def put(path, *a, **k):
    open(path, "wb").write(build(G, ossl, *a, **k))
put("v256.vip", d256, x256, y256, 32, Q256B, *a256, b"1234", cert)
put("v512.vip", d512, x512, y512, 64, Q512A, "1.2.643.7.1.1.1.2", "1.2.643.7.1.2.1.2.1",
    "1.2.643.7.1.1.2.3", b"")
put("vmis.vip", d256, xo, yo, 32, Q256B, *a256, b"1234")
put("vtag.vip", d256, x256, y256, 32, Q256B, *a256, b"1234", tag=b"XXXX")
put("vnone.vip", d256, x256, y256, 32, Q256B, *a256, b"1234", pub=False)
EOF2
  before=$(sha256sum v256.vip)
  check "ViPNet: import" "$G" key import v256.vip -out v.pem -nocrypt -passin pass:1234 -certout v.crt 2>err
  check "ViPNet: said" grep -q "ViPNet container \"v256.vip\", GOST R 34.10-2012 key (256 bits" err
  check "ViPNet: the key" same "$(pub_of_key v256.key)" "$(pub_of_key v.pem)"
  check "ViPNet: the key is the certificate's" key_is_certs v.pem v.crt
  check "ViPNet: pfx" "$G" key import v256.vip -out v.pfx -pfx -passin pass:1234 -passout pass:pw
  check "ViPNet: pfx splits" "$G" pkcs12 -in v.pfx -passin pass:pw -noenc -out v.pfx.pem
  check "ViPNet: pfx key" same "$(pub_of_key v256.key)" "$(pub_of_key v.pfx.pem)"
  check "ViPNet: encrypted" "$G" key import v256.vip -out v.enc -passin pass:1234 -passout pass:pw
  check "ViPNet: encrypted reads back" same "$(pub_of_key v256.key)" "$(pub_of_key v.enc pass:pw)"
  check "ViPNet 512, no PIN" "$G" key import v512.vip -out v512.pem -nocrypt -passin pass:
  check "ViPNet 512: the key" same "$(pub_of_key v512.key)" "$(pub_of_key v512.pem)"
  vfail() { # vfail NAME EXIT TEXT FILE ARGS...: refused with EXIT, TEXT said, nothing written
    local name=$1 want=$2 text=$3
    shift 3
    rm -f t.pem
    "$G" key import "$@" -out t.pem -nocrypt 2>err
    check "ViPNet: $name: exit $want" [ $? = "$want" ]
    check "ViPNet: $name: said" grep -q "$text" err
    check "ViPNet: $name: nothing written" [ ! -e t.pem ]
  }
  vfail "wrong PIN" 1 "wrong PIN" v256.vip -passin pass:4321
  head -c -1 v256.vip >vcut.vip
  vfail "truncated" 2 "entry 1 is truncated" vcut.vip -passin pass:1234
  vfail "another public key" 1 "public key mismatch" vmis.vip -passin pass:1234
  vfail "a type tag not ViPNet's" 2 "type tag" vtag.vip -passin pass:1234
  vfail "no public key, no certificate" 2 "neither a public key" vnone.vip -passin pass:1234
  vfail "-keyspec" 2 "keyspec is for CryptoPro" v256.vip -passin pass:1234 -keyspec exchange
  check "ViPNet: the file is unchanged" same "$before" "$(sha256sum v256.vip)"
fi

# usage: no folder, not a container, -nocrypt with -pfx
"$G" key import -out x.pem -passin pass: 2>/dev/null
check "no folder: exit 2" [ $? = 2 ]
mkdir empty
"$G" key import empty -out x.pem -passin pass: -nocrypt 2>err
check "not a container: exit 2" [ $? = 2 ]
check "not a container: said" grep -q "header.key" err
"$G" key import "$V/91team-srv" -out x.pem -nocrypt -passin pass: -keyspec signature 2>err
check "-keyspec signature, an exchange key alone: exit 2" [ $? = 2 ]
check "-keyspec signature, an exchange key alone: said" grep -q "holds no signature key" err
"$G" key import "$V/91team-srv" -out x.pem -nocrypt -passin pass: -keyspec other 2>/dev/null
check "-keyspec other: exit 2" [ $? = 2 ]
"$G" key import empty -out x.pem -nocrypt -pfx 2>/dev/null
check "-nocrypt -pfx: exit 2" [ $? = 2 ]
check "nothing written" [ ! -e x.pem ]
finish
