#!/bin/bash
# gostx genpkey / pkey / sign / verify / vko through the real binaries, and
# against openssl with gost-engine (genpkey, pkey, dgst -sign/-verify,
# pkeyutl -derive) on every curve both know: a few round trips each way
# (the bulk runs in process in test_gost3410_engine). Refusals: bad PEM/DER,
# wrong curve, private key 0 or >= q, a point off the curve, points outside
# the order-q subgroup (and a signature forged under one), exit codes.
# The openssl part skips itself when the engine is missing; the rest runs.
. "$(dirname "$0")/cli_common.sh" pkey
cd "$T"
have_engine=0
command -v openssl >/dev/null && openssl engine gost >/dev/null 2>&1 && have_engine=1
ossl() { openssl "$@" 2>/dev/null; }
same() { [ -n "$1" ] && [ "$1" = "$2" ]; } # same WANT GOT: both the same, not empty
head -c 1000 /dev/urandom > m
head -c 77 /dev/urandom > m2

# gostx curve name / gost-engine algorithm and paramset
curves="256A:gost2012_256:TCA 256B:gost2012_256:A 256C:gost2012_256:B 256D:gost2012_256:C
  512A:gost2012_512:A 512B:gost2012_512:B 512C:gost2012_512:C 256TEST:- 512TEST:-"
for row in $curves; do
  IFS=: read -r c alg ps <<< "$row"
  md=md_gost12_256; [ "${c:0:3}" = 512 ] && md=md_gost12_512
  check "$c genpkey" "$G" genpkey -c "$c" -o "$c.pem"
  check "$c key file is 0600" [ "$(stat -c %a "$c.pem")" = 600 ]
  check "$c genpkey does not replace a key" bash -c "! '$G' genpkey -c '$c' -o '$c.pem' 2>/dev/null"
  check "$c pubout" "$G" pkey -i "$c.pem" -pubout -o "$c.pub"
  check "$c DER round trip" bash -c "'$G' pkey -i '$c.pem' -outform DER -o '$c.der' &&
    '$G' pkey -in '$c.der' | cmp -s - '$c.pem'"
  check "$c public DER round trip" bash -c "'$G' pkey -i '$c.pub' -outform DER | '$G' pkey -i - | cmp -s - '$c.pub'"
  check "$c sign/verify" bash -c "'$G' sign -k '$c.pem' -o s m && '$G' verify -p '$c.pub' -s s m >/dev/null"
  "$G" verify -k "$c.pem" -s s m2 > /dev/null; check "$c other file: exit 1" [ $? = 1 ]
  if [ "$alg" = - ] || [ $have_engine = 0 ]; then continue; fi
  # gostx keys in openssl, openssl's in gostx
  check "$c engine reads gostx key" bash -c "openssl pkey -engine gost -in '$c.pem' 2>/dev/null | cmp -s - '$c.pem'"
  check "$c engine derives the same public key" bash -c \
    "openssl pkey -engine gost -in '$c.pem' -pubout 2>/dev/null | cmp -s - '$c.pub'"
  ossl genpkey -engine gost -algorithm "$alg" -pkeyopt "paramset:$ps" -out "o$c.pem"
  ossl pkey -engine gost -in "o$c.pem" -pubout -out "o$c.pub"
  check "$c gostx reads engine key" bash -c "'$G' pkey -i 'o$c.pem' | cmp -s - 'o$c.pem'"
  check "$c gostx pubout = engine pubout" bash -c "'$G' pkey -i 'o$c.pem' -pubout | cmp -s - 'o$c.pub'"
  # signatures both ways, through the binaries
  for f in m m2; do
    "$G" sign -k "$c.pem" -o g.sig "$f"
    check "$c engine verifies gostx sig of $f" bash -c \
      "openssl dgst -engine gost -$md -verify '$c.pub' -signature g.sig '$f' 2>/dev/null | grep -q 'Verified OK'"
    ossl dgst -engine gost -"$md" -sign "o$c.pem" -out o.sig "$f"
    check "$c gostx verifies engine sig of $f" bash -c "'$G' verify -p 'o$c.pub' -s o.sig '$f' >/dev/null"
  done
  # VKO both ways: engine(its key, our pub) = gostx(our key, its pub)
  ukm=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
  want=$(ossl pkeyutl -engine gost -derive -inkey "o$c.pem" -peerkey "$c.pub" -pkeyopt "ukmhex:$ukm" | od -An -tx1 | tr -d ' \n')
  got=$("$G" vko -k "$c.pem" -peer "o$c.pub" -ukm "$ukm" | od -An -tx1 | tr -d ' \n')
  check "$c vko = pkeyutl -derive" same "$want" "$got"
  # KEG (RFC 9189): a 32-byte UKM (the hash H) in both; H[1..16] != 0 (there
  # gost-engine's UKM differs from the RFC's, tests/vectors/keg-9189.json)
  h=01$(head -c 31 /dev/urandom | od -An -tx1 | tr -d ' \n')
  want=$(ossl pkeyutl -engine gost -derive -inkey "o$c.pem" -peerkey "$c.pub" -pkeyopt "ukmhex:$h" | od -An -tx1 | tr -d ' \n')
  got=$("$G" vko -k "$c.pem" -peer "o$c.pub" -ukm "$h" | od -An -tx1 | tr -d ' \n')
  check "$c vko KEG (32-byte UKM) = pkeyutl -derive" [ "${#want}:$got" = "128:$want" ]
done

# The parameter set's OID as given: several OIDs name one curve, and
# gost-engine derives only between keys naming the same one. Every 256-bit
# alias gost-engine writes goes through gostx pkey (plain, --pubout, DER,
# encrypted) with its OID kept, compared byte for byte with the engine's own
# output.
paramset_oid() { # FILE: the parameter set OID of a PEM key, its second OBJECT, as openssl names it
  openssl asn1parse -in "$1" 2>/dev/null | awk -F: '/OBJECT/ {if (++n == 2) {print $NF; exit}}'
}
oid_name() { openssl asn1parse -genstr "OID:$1" 2>/dev/null | awk -F: '{print $NF}'; }
if command -v openssl >/dev/null; then
  # without the engine: gost-engine's XA and TCB keys (256 B under
  # CryptoPro-XchA and tc26 paramSetB) as it writes them
  printf '%s\n' -----BEGIN\ PRIVATE\ KEY----- \
    MEYCAQAwHwYIKoUDBwEBAQEwEwYHKoUDAgIkAAYIKoUDBwEBAgIEIBOPBq7QQCq2 \
    2sNECvkOUgtTncOq2e/87ZLdQMWpgpjC -----END\ PRIVATE\ KEY----- > "gp1.2.643.2.2.36.0.pem"
  printf '%s\n' -----BEGIN\ PRIVATE\ KEY----- \
    MD4CAQAwFwYIKoUDBwEBAQEwCwYJKoUDBwECAQECBCA9MzUs4w6u0eX+fDrFzrdb \
    QmRUmZUt/kwNCiJBUAfGGQ== -----END\ PRIVATE\ KEY----- > "gp1.2.643.7.1.2.1.1.2.pem"
  for oid in 1.2.643.2.2.36.0 1.2.643.7.1.2.1.1.2; do
    want=$(oid_name "$oid")
    check "$oid: the file names it" same "$want" "$(paramset_oid "gp$oid.pem")"
    check "pkey keeps $oid" bash -c "'$G' pkey -i 'gp$oid.pem' | cmp -s - 'gp$oid.pem'"
    "$G" pkey -i "gp$oid.pem" -pubout -o "gp$oid.pub"
    check "pkey --pubout: $oid kept" same "$want" "$(paramset_oid "gp$oid.pub")"
    check "public key through DER and back: $oid kept" bash -c \
      "'$G' pkey -i 'gp$oid.pub' -outform DER | '$G' pkey -i - | cmp -s - 'gp$oid.pub'"
    check "-passout, -passin: $oid kept" bash -c "'$G' pkey -i 'gp$oid.pem' -passout pass:o -o 'gpe$oid.pem' &&
      '$G' pkey -i 'gpe$oid.pem' -passin pass:o | cmp -s - 'gp$oid.pem'"
  done
  "$G" genpkey -c 256B -o gp256B.pem
  check "genpkey -c 256B: the CryptoPro-A OID (the default)" \
    same "$(oid_name 1.2.643.2.2.35.1)" "$(paramset_oid gp256B.pem)"
fi
if [ $have_engine = 1 ]; then
  for ps in TCA TCB TCC TCD A B C XA XB; do
    ossl genpkey -engine gost -algorithm gost2012_256 -pkeyopt "paramset:$ps" -out "al$ps.pem"
    ossl pkey -engine gost -in "al$ps.pem" -pubout -out "al$ps.pub"
    "$G" pkey -i "al$ps.pem" -o "gal$ps.pem"
    check "engine's $ps key: pkey keeps its OID ($(paramset_oid "al$ps.pem"))" \
      same "$(paramset_oid "al$ps.pem")" "$(paramset_oid "gal$ps.pem")"
    check "engine's $ps key: pkey writes it back byte for byte" cmp -s "gal$ps.pem" "al$ps.pem"
    check "engine's $ps key: --pubout = the engine's" bash -c "'$G' pkey -i 'al$ps.pem' -pubout | cmp -s - 'al$ps.pub'"
    # the engine still derives between the key that went through gostx and
    # its engine peer's key (gost-engine refuses peers of another OID)
    ossl genpkey -engine gost -algorithm gost2012_256 -pkeyopt "paramset:$ps" -out "alp$ps.pem"
    ossl pkey -engine gost -in "alp$ps.pem" -pubout -out "alp$ps.pub"
    derive() { ossl pkeyutl -engine gost -derive -inkey "$1" -peerkey "$2" -pkeyopt ukmhex:0102030405060708 |
      od -An -tx1 | tr -d ' \n'; }
    want=$(derive "al$ps.pem" "alp$ps.pub")
    got=$(derive "gal$ps.pem" "alp$ps.pub")
    check "engine's $ps keys through gostx: the engine derives the same" same "$want" "$got"
  done
fi

# --text: to -o (0600 when d is in it), d only for a private key without --pubout
check "--text -o" "$G" pkey -i 512C.pem -text -out t.txt
check "--text file is 0600" [ "$(stat -c %a t.txt)" = 600 ]
check "--text has d, x, y" bash -c "grep -q '^d: [0-9a-f]\{128\}\$' t.txt && grep -q '^x: ' t.txt && grep -q '^y: ' t.txt"
check "--text --pubout has no d" bash -c "'$G' pkey -i 512C.pem --text --pubout | grep -q '^d:' && exit 1 || exit 0"
check "--text of a private key = of its public key, but d" bash -c \
  "diff <(grep -v -e '^d:' -e '^GOST' t.txt) <('$G' pkey -i 512C.pub --text | grep -v '^GOST')"
# stdin with -o, signature to stdout
check "sign stdin to stdout" bash -c "'$G' sign -k 256A.pem -o - - < m > st.sig && '$G' verify -k 256A.pem -s st.sig - < m >/dev/null"

# sign many files: FILE.sig each, verified by verify
cp m a; cp m2 b
check "sign FILE... writes FILE.sig" "$G" sign -k 256A.pem a b
check "a.sig verifies" bash -c "'$G' verify -p 256A.pub -s a.sig a >/dev/null"
check "b.sig verifies" bash -c "'$G' verify -p 256A.pub -s b.sig b >/dev/null"
flip_byte a.sig 5
"$G" verify -p 256A.pub -s a.sig a > /dev/null; check "flipped signature: exit 1" [ $? = 1 ]

# refusals: one line on stderr, exit 2
refuse() { # name expected-substring command...
  local name=$1 want=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"$want"* ]]; then ok; else
    bad "$name: rc $rc, '$err'"; fi
}
printf 'not a key\n' > junk
refuse "junk key" "malformed" "$G" pkey -i junk
sed '2s/./#/' 256A.pem > badb64.pem
refuse "bad base64" "malformed" "$G" pkey -i badb64.pem
head -c 40 256A.der > short.der
refuse "truncated DER" "malformed" "$G" pkey -i short.der
{ cat 256A.der; printf '\0'; } > trail.der
refuse "trailing byte" "malformed" "$G" pkey -i trail.der
sed 's/PRIVATE KEY/PUBLIC KEY/' 256A.pem > label.pem
refuse "label mismatch" "malformed" "$G" pkey -i label.pem
# text around the PEM block, as certtool writes a key (a description of it
# first): read as openssl reads it, the text skipped
{ printf 'Public Key Info:\n\tPublic Key Algorithm: GOST R 34.10-2012-256\n\n'; cat 256A.pem
  printf 'text after the block\n'; } > txt.pem
{ printf 'Public Key Info:\r\n'; cat 256A.pub; } > txt.pub
check "text around the block: pkey" bash -c "'$G' pkey -i txt.pem | cmp -s - 256A.pem"
check "text around the block: sign, verify" bash -c "'$G' sign -k txt.pem -o txt.sig m &&
  '$G' verify -p txt.pub -s txt.sig m >/dev/null"
{ printf 'x'; cat 256A.pem; } > txtx.pem
refuse "BEGIN not at a line's start" "malformed" "$G" pkey -i txtx.pem
if command -v certtool >/dev/null; then
  certtool --generate-privkey --key-type gost12-256 --outfile ct.pem >/dev/null 2>&1
  # d as certtool's text prints it (hex, 16 bytes a line, without the top
  # zero byte of one key in 256, as its file holds it) = gostx's --text d
  ctd=$(sed -n '/^private key:/,/^$/p' ct.pem | tr -d ' \t\n:' | sed 's/^privatekey//')
  ctd=$(printf '%64s' "$ctd" | tr ' ' 0)
  check "certtool's key file: d as its text says" bash -c \
    "'$G' pkey -i ct.pem --text | grep -qx 'd: $ctd' && [ \${#1} = 64 ]" _ "$ctd"
  check "certtool's key file: sign, verify" bash -c "'$G' sign -k ct.pem -o ct.sig m &&
    '$G' verify -k ct.pem -s ct.sig m >/dev/null"
  # (gost-engine does not read the key certtool writes short, one in 256)
  if [ $have_engine = 1 ] && openssl pkey -engine gost -in ct.pem -out ct.ossl 2>/dev/null; then
    check "certtool's key file: gostx = openssl pkey" bash -c "cmp -s ct.ossl <('$G' pkey -i ct.pem)"
  fi
else
  echo "certtool missing: certtool's own key file skipped"
fi
printf -- '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n' > enc.pem
refuse "encrypted key" "unsupported" "$G" pkey -i enc.pem
refuse "wrong curve for vko" "same curve" "$G" vko -k 256A.pem -peer 512A.pub
refuse "vko: a 9-byte UKM (neither VKO nor KEG)" "or 32 (KEG)" "$G" vko -k 256A.pem -peer 256A.pub -ukm 010203040506070809
refuse "verify: signature length" "bytes" "$G" verify -p 512A.pub -s b.sig b
refuse "sign with a public key" "public key" "$G" sign -k 256A.pub -o x m
refuse "unknown curve" "unknown curve" "$G" genpkey -c 255Z
# DER edits at known offsets (256 paramSetA: key bytes are the last 32, LE)
priv_with() { # KEYHEX(32 bytes, little-endian) OUT: 256A.der with that key
  { head -c $(($(stat -c %s 256A.der) - 32)) 256A.der; printf '%s' "$1" | xxd -r -p; } > "$2"
}
if command -v xxd >/dev/null; then
  priv_with "$(printf '00%.0s' {1..32})" zero.der
  refuse "private key 0" "invalid key" "$G" pkey -i zero.der
  # q of paramSetA, little-endian
  priv_with 670c366c55af15c135667bc8dfcdd80f00000000000000000000000000000040 q.der
  refuse "private key q" "invalid key" "$G" pkey -i q.der
  # public key: y + 1 is off the curve (the last byte of the DER is y's top byte; change y's first)
  n=$(stat -c %s 256A.pub.der 2>/dev/null || { "$G" pkey -i 256A.pub -outform DER -o 256A.pub.der; stat -c %s 256A.pub.der; })
  cp 256A.pub.der off.der
  flip_byte off.der $((n - 32))
  refuse "point off the curve" "invalid key" "$G" pkey -i off.der
  refuse "vko with an off-curve peer" "invalid key" "$G" vko -k 256A.pem -peer off.der
else
  echo "xxd missing: DER edits skipped"
fi

# ---- public keys outside the order-q subgroup (256A and 512C, cofactor 4) ----
# R 50.1.114-2016 gives both sets as Edwards curves u^2 + v^2 = 1 + d u^2 v^2
# too: (+-1, 0) has order 4 there, and x = s (1 + v) / (1 - v) + t,
# y = s (1 + v) / ((1 - v) u), s = (1 - d) / 4, t = (1 + d) / 6 takes it to
# (s + t, +-s). The script derives the points from the published p, a, b, q,
# d (each checked on the curve, with its order), writes them as
# SubjectPublicKeyInfo DER (a good key's encoding with x || y replaced) and
# forges a signature under the point T of order 4: from a key pair (k, R =
# k G), r = x(R) mod q and s = k e verify when 4 divides -r / e mod q
# (multiples of the pair are tried until one does), verify's z1 G + z2 T being
# k G then.
if command -v python3 >/dev/null; then
  cat > small_order.py <<'EOF'
import sys

CURVES = {  # p, a, b, q, d (big-endian hex)
    "256A": [
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97",  # p
        "c2173f1513981673af4892c23035a27ce25e2013bf95aa33b22c656f277e7335",  # a
        "295f9bae7428ed9ccc20e7c359a9d41a22fccd9108e17bf7ba9337a6f8ae9513",  # b
        "400000000000000000000000000000000fd8cddfc87b6635c115af556c360c67",  # q
        "0605f6b7c183fa81578bc39cfad518132b9df62897009af7e522c32d6dc7bffb",  # d
    ],
    "512C": [
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc7",  # p
        "dc9203e514a721875485a529d2c722fb187bc8980eb866644de41c68e1430645"
        "46e861c0e2c9edd92ade71f46fcf50ff2ad97f951fda9f2a2eb6546f39689bd3",  # a
        "b4c4ee28cebc6c2c8ac12952cf37f16ac7efb6a9f69f4b57ffda2e4f0de5ade0"
        "38cbc2fff719d2c18de0284b8bfef3b52b8cc7a5f5bf0a3c8d2319a5312557e1",  # b
        "3fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "c98cdba46506ab004c33a9ff5147502cc8eda9e7a769a12694623cef47f023ed",  # q
        "9e4f5d8c017d8d9f13a5cf3cdf5bfe4dab402d54198e31ebde28a0621050439c"
        "a6b39e0a515c06b304e2ce43e79e369e91a0cfc2bc2a22b4ca302dbb33ee7550",  # d
    ],
}


def add(P, Q, a, p):  # affine, neither point infinity nor P = -Q
    (x1, y1), (x2, y2) = P, Q
    num, den = (3 * x1 * x1 + a, 2 * y1) if P == Q else (y2 - y1, x2 - x1)
    lam = num * pow(den, -1, p) % p
    x3 = (lam * lam - x1 - x2) % p
    return x3, (lam * (x1 - x3) - y1) % p


def main(tag, good_der, digest_hex, key_text):
    p, a, b, q, d = (int(h, 16) for h in CURVES[tag])
    n = (p.bit_length() + 7) // 8
    on = lambda P: (P[1] * P[1] - P[0] ** 3 - a * P[0] - b) % p == 0
    s, t = (1 - d) * pow(4, -1, p) % p, (1 + d) * pow(6, -1, p) % p
    T4 = ((s + t) % p, s)
    T2 = add(T4, T4, a, p)
    assert on(T4) and T2 == (t, 0), "(s + t, s) of order 4"
    # gostx pkey -text of a fresh key: d, x, y in hex
    f = dict(line.split(": ", 1) for line in open(key_text).read().splitlines() if ": " in line)
    k0, R0 = int(f["d"], 16), (int(f["x"], 16), int(f["y"], 16))
    RT = add(R0, T4, a, p)  # k G + T: order 4q
    assert on(RT)
    der = open(good_der, "rb").read()
    for name, P in (("t4", T4), ("t2", T2), ("rt", RT)):
        xy = P[0].to_bytes(n, "little") + P[1].to_bytes(n, "little")
        open(f"{tag}.{name}.der", "wb").write(der[:-2 * n] + xy)
    e = int.from_bytes(bytes.fromhex(digest_hex), "little") % q or 1
    k, R = k0, R0
    for _ in range(200):  # (m k, m R) for m = 1, 2, ...: one in four fits
        r, s_ = R[0] % q, k * e % q
        if r and s_ and (-r * pow(e, -1, q)) % q % 4 == 0:
            open(f"{tag}.forged.sig", "wb").write(s_.to_bytes(n, "big") + r.to_bytes(n, "big"))
            return
        k, R = (k + k0) % q, add(R, R0, a, p)
    sys.exit("no multiple of the key pair gave 4 | z2")


main(*sys.argv[1:])
EOF
  for c in 256A 512C; do
    "$G" pkey -i "$c.pub" -outform DER -o "$c.good.der"
    "$G" pkey -i "$c.pem" -text -o "$c.txt"
    h=$("$G" hash -a streebog${c:0:3} m | cut -d' ' -f1)
    check "$c: small-order points and the forgery derived" python3 small_order.py "$c" "$c.good.der" "$h" "$c.txt"
    refuse "$c: pkey refuses a public key of order 4" "not of order q" "$G" pkey -i "$c.t4.der"
    refuse "$c: pkey refuses a public key of order 2" "not of order q" "$G" pkey -i "$c.t2.der"
    refuse "$c: pkey refuses a public key of order 4q" "not of order q" "$G" pkey -i "$c.rt.der"
    refuse "$c: verify refuses a signature forged under a key of order 4" "not of order q" \
      "$G" verify -p "$c.t4.der" -s "$c.forged.sig" m
    refuse "$c: vko refuses a peer key of order 4q" "not of order q" "$G" vko -k "$c.pem" -peer "$c.rt.der"
  done
else
  echo "python3 missing: small-order key rows skipped"
fi

# ---- encrypted private keys (PKCS#8 PBES2, docs/GOST3410.md "Key files") ----
printf 'pw one\nnot this line\n' > pwfile
check "genpkey -pass file: (first line)" "$G" genpkey -c 256A -pass file:pwfile -o pe.pem
check "encrypted key is 0600" [ "$(stat -c %a pe.pem)" = 600 ]
check "encrypted PEM label" grep -q -- '-----BEGIN ENCRYPTED PRIVATE KEY-----' pe.pem
check "pkey -passin pass:" bash -c "'$G' pkey -i pe.pem -passin 'pass:pw one' -o pd.pem"
check "pkey -passin env:" bash -c "PW='pw one' '$G' pkey -i pe.pem -passin env:PW | cmp -s - pd.pem"
check "pkey -passin fd:" bash -c "'$G' pkey -i pe.pem -passin fd:3 3<pwfile | cmp -s - pd.pem"
check "pkey -passin stdin" bash -c "'$G' pkey -i pe.pem -passin stdin < pwfile | cmp -s - pd.pem"
check "sign -passin with an encrypted key" bash -c "'$G' sign -k pe.pem -passin file:pwfile -o es m &&
  '$G' verify -k pd.pem -s es m >/dev/null"
check "pkey -passout (magma, DER) and back" bash -c "'$G' pkey -i pd.pem -passout pass:x2 -magma-ctr-acpkm \
  -outform DER -o pe2.der && '$G' pkey -i pe2.der -passin pass:x2 | cmp -s - pd.pem"
check "-passout output is 0600" [ "$(stat -c %a pe2.der)" = 600 ]
# wrong password: one line, exit 1, no output file, input untouched
cp pe.pem pe.keep
err=$("$G" pkey -i pe.pem -passin pass:wrong -o wrong.out 2>&1 >/dev/null); rc=$?
check "wrong password: exit 1" [ $rc = 1 ]
check "wrong password: one clear line" bash -c "[ \"\$(printf '%s\n' \"\$1\" | wc -l)\" = 1 ] && [[ \$1 == *'wrong password'* ]]" _ "$err"
check "wrong password: nothing written" [ ! -e wrong.out ]
check "wrong password: input untouched" cmp -s pe.pem pe.keep
refuse "encrypted key without -passin" "give its password with -passin" "$G" pkey -i pe.pem
refuse "bad -passin form" "none of pass:" "$G" pkey -i pe.pem -passin pw
refuse "cipher without a password" "needs a password" "$G" genpkey -c 256A -magma-ctr-acpkm -o nopass.pem
refuse "-passout with --pubout" "not with --pubout" "$G" pkey -i pd.pem -pubout -passout pass:x
refuse "--iter out of range" "--iter" "$G" genpkey -c 256A -pass pass:x --iter 0
# one file for -passin and -passout: line 1 in, line 2 out (openssl's rule)
printf 'pw one\npw two\n' > pwtwo
check "-passin/-passout one file: lines 1 and 2" bash -c "'$G' pkey -i pe.pem -passin file:pwtwo \
  -passout file:pwtwo -o p2.pem && '$G' pkey -i p2.pem -passin 'pass:pw two' | cmp -s - pd.pem"
refuse "key and password both on stdin" "both come from stdin" "$G" pkey -i - -passin stdin
{ printf 'Encrypted key:\n'; cat pe.pem; } > txt.pe.pem
check "text before an encrypted key's block" bash -c "'$G' pkey -i txt.pe.pem -passin file:pwfile | cmp -s - pd.pem"
# a CRLF password file: line 1 up to its "\n", the "\r" kept (openssl 3's rule);
# env: and pass: whole, newlines included
printf 'pw crlf\r\nline two\r\n' > pwcrlf
cr=$(printf '\r')
check "-pass file: CRLF: the CR is part of the password" bash -c "'$G' genpkey -c 256A -pass file:pwcrlf \
  -o pcr.pem && '$G' pkey -i pcr.pem -passin 'pass:pw crlf$cr' >/dev/null"
"$G" pkey -i pcr.pem -passin 'pass:pw crlf' >/dev/null 2>&1
check "-pass file: CRLF: without the CR: wrong password" [ $? = 1 ]
check "-passin/-passout one CRLF file: line 2 keeps its CR too" bash -c "'$G' pkey -i pcr.pem \
  -passin file:pwcrlf -passout file:pwcrlf -o pcr2.pem && '$G' pkey -i pcr2.pem -passin 'pass:line two$cr' >/dev/null"
check "-passout env: the whole value" bash -c "PW=\$'two\nlines' '$G' pkey -i pd.pem -passout env:PW -o penv.pem &&
  '$G' pkey -i penv.pem -passin pass:\$'two\nlines' | cmp -s - pd.pem"
if [ $have_engine = 1 ]; then
  for row in 256A:gost2012_256:TCA 512C:gost2012_512:C; do
    IFS=: read -r c alg ps <<< "$row"
    # gostx writes, the engine reads (both ciphers); the engine writes, gostx reads
    for ciph in kuznyechik-ctr-acpkm magma-ctr-acpkm; do
      "$G" genpkey -c "$c" -pass pass:s3cret "-$ciph" -o "g$c$ciph.pem"
      check "$c engine reads gostx's $ciph key" bash -c "openssl pkey -engine gost -in 'g$c$ciph.pem' \
        -passin pass:s3cret 2>/dev/null | cmp -s - <('$G' pkey -i 'g$c$ciph.pem' -passin pass:s3cret)"
      ossl genpkey -engine gost -algorithm "$alg" -pkeyopt "paramset:$ps" -out "p$c.pem"
      ossl pkcs8 -engine gost -topk8 -in "p$c.pem" -v2 "$ciph" -v2prf id-tc26-hmac-gost-3411-2012-512 \
        -passout pass:s3cret -out "e$c$ciph.pem"
      check "$c gostx reads engine's $ciph key" bash -c "'$G' pkey -i 'e$c$ciph.pem' -passin pass:s3cret | cmp -s - 'p$c.pem'"
      "$G" pkey -i "e$c$ciph.pem" -passin pass:wrong >/dev/null 2>&1
      check "$c engine's $ciph key, wrong password: exit 1" [ $? = 1 ]
    done
  done
  # the same CRLF password file in both tools, both ways
  check "engine reads gostx's key made from a CRLF file" bash -c \
    "openssl pkey -engine gost -in pcr.pem -passin file:pwcrlf 2>/dev/null | grep -q 'BEGIN PRIVATE KEY'"
  ossl pkcs8 -engine gost -topk8 -in p256A.pem -v2 kuznyechik-ctr-acpkm -v2prf id-tc26-hmac-gost-3411-2012-512 \
    -passout file:pwcrlf -out ecr.pem
  check "gostx reads the engine's key made from a CRLF file" bash -c \
    "'$G' pkey -i ecr.pem -passin file:pwcrlf | cmp -s - p256A.pem"
  # openssl takes line 1 of a file named by both -passin and -passout for input too
  ossl pkey -engine gost -in pe.pem -passin file:pwtwo -passout file:pwtwo -out pplain.pem
  check "openssl's -passin/-passout one file: line 1 in too" cmp -s pplain.pem pd.pem
  # openssl with a GOST cipher but its default PRF (PBKDF2-HMAC-SHA256): read
  ossl genpkey -engine gost -algorithm gost2012_256 -pkeyopt paramset:A -kuznyechik-ctr-acpkm \
    -pass pass:x -out sha.pem
  ossl pkey -engine gost -in sha.pem -passin pass:x -out sha.plain.pem
  check "PBKDF2-HMAC-SHA256 with Kuznyechik (genpkey's default) read" bash -c \
    "[ -s sha.plain.pem ] && '$G' pkey -i sha.pem -passin pass:x | cmp -s - sha.plain.pem"
  ossl pkcs8 -engine gost -topk8 -in p512C.pem -v2 magma-ctr-acpkm -passout pass:x -out sha.m.pem
  check "PBKDF2-HMAC-SHA256 with Magma (pkcs8 -v2 without -v2prf) read" bash -c \
    "'$G' pkey -i sha.m.pem -passin pass:x | cmp -s - p512C.pem"
  "$G" pkey -i sha.m.pem -passin pass:y >/dev/null 2>&1
  check "PBKDF2-HMAC-SHA256 file, wrong password: exit 1" [ $? = 1 ]
  # OpenSSL's default scheme (AES-256-CBC, PBKDF2-HMAC-SHA256): refused, named
  ossl genpkey -engine gost -algorithm gost2012_256 -pkeyopt paramset:A -aes256 -pass pass:x -out aes.pem
  refuse "AES-encrypted key refused, the scheme named" "aes-256-cbc" "$G" pkey -i aes.pem -passin pass:x
  ossl pkey -engine gost -in aes.pem -passin pass:x -outform DER -out aes.plain.der
  ossl pkcs8 -engine gost -topk8 -inform DER -in aes.plain.der -outform DER -v2 gost89 \
    -v2prf id-tc26-hmac-gost-3411-2012-512 -passout pass:x -out g89.der
  check "GOST 28147-89 CFB PBES2 (DER) read" bash -c "'$G' pkey -i g89.der -passin pass:x -outform DER |
    cmp -s - aes.plain.der"
fi
# our OpenSSL provider (libcrypto's PBES2 decoder with the provider's
# HMAC-Streebog and CTR-ACPKM) reads gostx's encrypted keys
mods=$(dirname "$G")/ossl-modules
if [ -f "$mods/gostx.so" ] && command -v openssl >/dev/null; then
  prov=(-provider-path "$mods" -provider gostx -provider default)
  check "provider reads gostx's kuznyechik-ctr-acpkm key" bash -c \
    "openssl pkey ${prov[*]} -in pe.pem -passin file:pwfile 2>/dev/null | cmp -s - pd.pem"
  "$G" pkey -i pd.pem -passout pass:x3 -magma-ctr-acpkm -o pm.pem
  check "provider reads gostx's magma-ctr-acpkm key" bash -c \
    "openssl pkey ${prov[*]} -in pm.pem -passin pass:x3 2>/dev/null | cmp -s - pd.pem"
else
  echo "gostx provider or openssl missing: provider rows skipped"
fi
[ $have_engine = 1 ] || echo "openssl gost engine unavailable: interop rows skipped"
finish
