#!/usr/bin/env bash
# `gostx p11` (init, list, keygen, import) and `gostx key import -p11` (a
# CryptoPro and a ViPNet container)
# end to end against gostx's token, then seen by a consumer we did not
# write: OpenSC's pkcs11-tool lists the objects and signs with the keys,
# and the signatures verify with `gostx verify` against the key written
# out at keygen and against the imported certificates. The private keys
# are asked for their CKA_VALUE through the module (p11_value.py): refused.
# A key that is not its certificate's, a wrong PIN, -p11 with -out: refused.
# usage: test_p11_cli.sh MODULE. Skips (77) without pkcs11-tool.
. "$(dirname "$0")/../cli_common.sh" p11cli
M=$1
command -v pkcs11-tool >/dev/null || { echo "SKIP: pkcs11-tool missing (Debian: opensc)"; exit 77; }
export GOSTX_PKCS11_DIR=$T/tokens GOSTX_PKCS11_MODULE=$M
# a short PIN KDF: the test logs in often (docs/PKCS11.md)
export GOSTX_PKCS11_KDF_ITER=2000
# the PINs come from the environment, never the command line
export SOPIN=87654321 PIN=4321 WRONG=9999
cont="$here/../vectors/cryptopro/91team-srv"
p11() { pkcs11-tool --module "$M" --token-label t1 --pin $PIN "$@" 2>>"$T/err"; }
n_objects() { "$G" p11 list -pin env:PIN | grep -c '^    [a-z]'; }

check "init" "$G" p11 init --label t1 -sopin env:SOPIN -pin env:PIN
"$G" p11 list >"$T/list"
check "list names the token" grep -q '^slot 0: token "t1"' "$T/list"
check "list shows the free slot" grep -q '^slot 1: free' "$T/list"

for c in 256B 512A; do
  bits=${c%[A-D]}
  check "keygen $c" "$G" p11 keygen --label "k$c" --id "0$bits" -c $c -pin env:PIN -pubout "$T/$c.pub"
  check "list: $c private key, sensitive" grep -q "private key, GOST R 34.10-2012 $bits: label \"k$c\", id 0$bits, private, sensitive, not extractable, made on the token" \
    <("$G" p11 list -pin env:PIN)
  p11 -O >"$T/O"
  grep -A5 "label: *k$c" "$T/O" >"$T/Ok"
  check "pkcs11-tool sees the $c key, never extractable" \
    grep -q "sensitive, always sensitive, never extractable" "$T/Ok"
  check "pkcs11-tool signs with the $c key" \
    p11 --sign -m GOSTR3410-WITH-GOSTR3411-12-$bits --id "0$bits" -i "$cont/header.key" -o "$T/$c.sig"
  check "gostx verifies the $c signature" "$G" verify -p "$T/$c.pub" -s "$T/$c.sig" "$cont/header.key"
  check "the $c key's CKA_VALUE is refused" python3 "$here/p11_value.py" "$M" t1 $PIN "0$bits"
done

# a key file and its certificate
"$G" genpkey -c 256A -o "$T/imp.key" && "$G" req -x509 -key "$T/imp.key" -subj "/CN=imported" -days 30 -out "$T/imp.crt"
"$G" genpkey -c 256A -o "$T/other.key"
before=$(n_objects)
"$G" p11 import -k "$T/other.key" -cert "$T/imp.crt" --label bad --id bb -pin env:PIN 2>"$T/e"
check "a key that is not the certificate's: exit 1" test $? = 1
check "... named" grep -q "not the key's: nothing written" "$T/e"
check "... nothing written" test "$(n_objects)" = "$before"
check "import a key file and its certificate" \
  "$G" p11 import -k "$T/imp.key" -cert "$T/imp.crt" --label imp --id 1f -pin env:PIN
check "the imported key's CKA_VALUE is refused" python3 "$here/p11_value.py" "$M" t1 $PIN 1f
p11 --read-object --type cert --id 1f -o "$T/imp.der"
python3 "$here/p11_certkey.py" "$T/imp.der" "$T/imp.pub" >/dev/null
check "pkcs11-tool signs with the imported key" \
  p11 --sign -m GOSTR3410-WITH-GOSTR3411-12-256 --id 1f -i "$T/imp.crt" -o "$T/imp.sig"
check "gostx verifies it against the token's certificate" "$G" verify -p "$T/imp.pub" -s "$T/imp.sig" "$T/imp.crt"

# a PFX: the key and its own certificate
"$G" pkcs12 -export -inkey "$T/imp.key" -in "$T/imp.crt" -out "$T/imp.pfx" -passout pass:pw
check "import a PFX" "$G" p11 import -k "$T/imp.pfx" -passin pass:pw --label pfx --id 2f -pin env:PIN
check "the PFX's certificate is on the token" grep -q 'certificate: label "pfx", id 2f' <("$G" p11 list)
check "the PFX key's CKA_VALUE is refused" python3 "$here/p11_value.py" "$M" t1 $PIN 2f

# a CryptoPro container (no PIN) straight into the token
check "key import -p11" "$G" key import "$cont" -p11 "pkcs11:token=t1" -passin pass: -pin env:PIN --id 0c
p11 -O --type pubkey >"$T/O"
tokval=$(awk '/^Public Key Object/ { v = ""; c = 0 } /VALUE:/ { v = $2; c = 1; next }
  c && /^ +[0-9a-f]+$/ { v = v $1; next } { c = 0 } /^  ID:/ && $2 == "0c" { print v; exit }' "$T/O")
p11 --read-object --type cert --id 0c -o "$T/srv.der"
certval=$(python3 "$here/p11_certkey.py" "$T/srv.der" "$T/srv.pub")
check "the token's public key is the container certificate's" test -n "$tokval" -a "$tokval" = "$certval"
check "the container key's CKA_VALUE is refused" python3 "$here/p11_value.py" "$M" t1 $PIN 0c
check "pkcs11-tool signs with the container key" \
  p11 --sign -m GOSTR3410-WITH-GOSTR3411-12-256 --id 0c -i "$T/srv.der" -o "$T/srv.sig"
check "gostx verifies it against the container's certificate" "$G" verify -p "$T/srv.pub" -s "$T/srv.sig" "$T/srv.der"

# a ViPNet container (one file, built from the public description:
# tests/support/vipnet_build.py) straight into the token, labelled with its name
"$G" genpkey -c 256B -o "$T/vip.key" && "$G" pkey -i "$T/vip.key" -pubout >"$T/vip.pub"
"$G" req -x509 -key "$T/vip.key" -subj /CN=vipnet -days 30 -outform DER -out "$T/vip.der"
vf() { "$G" pkey -i "$T/vip.key" -text | sed -n "s/^$1: //p"; }
python3 - "$G" "$(vf d)" "$(vf x)" "$(vf y)" "$T" <<EOF
import sys
sys.path.insert(0, "$here/../support")
from vipnet_build import build, Q256B
G, T = sys.argv[1], sys.argv[5]
d, x, y = (int(v, 16) for v in sys.argv[2:5])
open(T + "/vip", "wb").write(build(G, False, d, x, y, 32, Q256B, "1.2.643.7.1.1.1.1", "1.2.643.2.2.35.1",
                                   "1.2.643.7.1.1.2.2", b"", open(T + "/vip.der", "rb").read()))
EOF
check "key import -p11: a ViPNet container" "$G" key import "$T/vip" -p11 t1 -passin pass: -pin env:PIN --id 0d
check "... its certificate on the token, labelled with the file's name" \
  grep -q 'certificate: label "vip", id 0d' <("$G" p11 list)
check "pkcs11-tool signs with the ViPNet container's key" \
  p11 --sign -m GOSTR3410-WITH-GOSTR3411-12-256 --id 0d -i "$T/vip.der" -o "$T/vip.sig"
check "gostx verifies it against the key" "$G" verify -p "$T/vip.pub" -s "$T/vip.sig" "$T/vip.der"

# refusals
"$G" p11 list -pin env:WRONG >/dev/null 2>"$T/e"
check "a wrong PIN: exit 1" test $? = 1
check "... named" grep -q "wrong PIN" "$T/e"
"$G" key import "$cont" -p11 t1 -out "$T/x.pem" -passin pass: 2>/dev/null
check "key import -p11 with -out: usage" test $? = 2
"$G" p11 keygen --label x --id 01 -c 999Z -pin env:PIN 2>/dev/null
check "an unknown curve: usage" test $? = 2
"$G" p11 import -k "$T/imp.key" --token nosuch --label x -pin env:PIN 2>"$T/e"
check "an unknown token: usage, named" grep -q 'no token labelled "nosuch"' "$T/e"
[ $fail = 0 ] || cat "$T/err"
finish
