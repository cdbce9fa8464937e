#!/usr/bin/env bash
# cryptsetup (Debian's cryptsetup-bin) reads the LUKS1 headers that
# `gostx disk` writes:
#   - luksDump prints every field as `gostx disk dump` does: version, cipher
#     name and mode, hash spec, payload offset, MK bits, digest, salt and
#     iterations, UUID, and per key slot its state, iterations, salt,
#     key material offset and stripes (slots 0 and 3 enabled, then slot 0
#     removed);
#   - isLuks and luksUUID agree; blkid sees crypto_LUKS version 1 and the UUID;
#   - `cryptsetup open --test-passphrase --volume-key-file` accepts the
#     master key (`gostx disk dump --master-key`) and refuses a changed one:
#     OpenSSL's PBKDF2 and HMAC over Streebog-512 give our mk-digest.
# Stock cryptsetup refuses hash streebog512 (its OpenSSL context has no
# Streebog, and OPENSSL_CONF does not reach that context): the checks run
# with the gostx OpenSSL provider (integrations/openssl/, whose Streebog-512
# is also named streebog512) loaded in place of OpenSSL's "legacy" provider
# through OPENSSL_MODULES (docs/DISK.md). What
# stock cryptsetup says is printed, not checked.
# Usage: test_cryptsetup.sh GOSTX_BINARY PROVIDER.so
. "$(dirname "$0")/../cli_common.sh" cryptsetup no-gostx
gostx=$1
provider=$2
PATH=$PATH:/usr/sbin:/sbin
command -v cryptsetup >/dev/null ||
  { echo "skipped: cryptsetup not installed (cryptsetup-bin)"; exit 77; }
[ -f "$provider" ] || { echo "skipped: no provider $provider"; exit 77; }
tmp=$T
mkdir "$tmp/modules"
ln -s "$(cd "$(dirname "$provider")" && pwd)/$(basename "$provider")" "$tmp/modules/legacy.so"
cs() { OPENSSL_MODULES=$tmp/modules cryptsetup "$@"; }

printf 'first passphrase\n' > "$tmp/p1"
printf 'fourth passphrase\n' > "$tmp/p4"
disk=$tmp/disk.img
uuid=$("$gostx" disk format "$disk" --size 1M --pass-file "$tmp/p1" --iter 1000)
"$gostx" disk add-pass "$disk" --pass-file "$tmp/p1" --new-pass-file "$tmp/p4" --slot 3 \
  --iter 2000 > /dev/null

echo "stock cryptsetup luksDump: $(cryptsetup luksDump "$disk" 2>&1 | head -1)"

# The two dumps, field by field (hex without spaces, per slot).
cat > "$tmp/cmp.py" <<'PY'
import re, sys
def parse(text):
    fields, slot, last = {}, None, None
    for line in text.splitlines():
        m = re.match(r"Key Slot (\d): (ENABLED|DISABLED)", line)
        if m:
            slot = "slot" + m[1]
            fields[slot] = {"state": m[2]}
            continue
        m = re.match(r"\s*([A-Za-z][A-Za-z ]*):\s*(.*?)\s*$", line)
        where = fields[slot] if slot and line.startswith("\t") else fields
        if m:
            last = m[1].strip()
            where[last] = m[2]
        elif line.strip() and last:  # a continued hex field
            where[last] += line.strip()
    for d in [fields] + [v for v in fields.values() if isinstance(v, dict)]:
        for k in ("MK digest", "MK salt", "Salt"):
            if k in d:
                d[k] = d[k].replace(" ", "").replace("\t", "").lower()
    return fields
ours, theirs = parse(open(sys.argv[1]).read()), parse(open(sys.argv[2]).read())
keys = ["Version", "Cipher name", "Cipher mode", "Hash spec", "Payload offset", "MK bits",
        "MK digest", "MK salt", "MK iterations", "UUID"]
bad = [k for k in keys if ours.get(k) != theirs.get(k) or not ours.get(k)]
for i in range(8):
    a, b = ours.get(f"slot{i}"), theirs.get(f"slot{i}")
    if a is None or a != b:
        bad.append(f"slot {i}: {a} vs {b}")
for k in bad:
    print("differs:", k, file=sys.stderr)
enabled = [i for i in range(8) if theirs.get(f"slot{i}", {}).get("state") == "ENABLED"]
print(" ".join(map(str, enabled)))
sys.exit(1 if bad else 0)
PY
compare_dumps() { # compare_dumps "ENABLED SLOTS"
  "$gostx" disk dump "$disk" > "$tmp/ours" &&
    cs luksDump "$disk" > "$tmp/theirs" &&
    [ "$(python3 "$tmp/cmp.py" "$tmp/ours" "$tmp/theirs")" = "$1" ]
}
check "luksDump (with the provider) = gostx disk dump, slots 0 and 3" compare_dumps "0 3"
names='Cipher name:\s*kuznyechik\nCipher mode:\s*xts-plain64\n'
names+='Hash spec:\s*streebog512\nPayload offset:\s*4096\n'
check "luksDump: cipher kuznyechik, mode xts-plain64, hash streebog512, payload 4096" \
  grep -Pzq "$names" "$tmp/theirs"
slot3='Key Slot 3: ENABLED\n\tIterations:\s*2000\n.*\n.*\n'
slot3+='\tKey material offset:\s*1520\n\tAF stripes:\s*4000'
check "luksDump: slot 3's key material at sector 1520, 4000 stripes" grep -Pzq "$slot3" "$tmp/theirs"
check "isLuks" cs isLuks "$disk"
check "luksUUID = the UUID format printed" [ "$(cs luksUUID "$disk")" = "$uuid" ]
if command -v blkid > /dev/null; then
  check "blkid: crypto_LUKS version 1 and the UUID" \
    grep -q "VERSION=\"1\" UUID=\"$uuid\" TYPE=\"crypto_LUKS\"" <(blkid -p "$disk")
fi

# the master key: OpenSSL's PBKDF2-HMAC over the digest confirms it
"$gostx" disk dump "$disk" --master-key --pass-file "$tmp/p4" | sed -n 's/^Master key: *//p' |
  python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' \
    > "$tmp/mk"
check "master key file: 64 bytes" [ "$(stat -c %s "$tmp/mk")" = 64 ]
check "cryptsetup open --test-passphrase --volume-key-file accepts the master key" \
  cs open --test-passphrase --type luks1 --volume-key-file "$tmp/mk" "$disk"
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[17] ^= 1
open(sys.argv[2], "wb").write(b)' "$tmp/mk" "$tmp/mk2"
not_ok() { ! "$@" 2> "$tmp/err" && grep -q "Volume key does not match" "$tmp/err"; }
check "... and refuses a changed one" not_ok cs open --test-passphrase --type luks1 \
  --volume-key-file "$tmp/mk2" "$disk"

"$gostx" disk remove-pass "$disk" --pass-file "$tmp/p1" > /dev/null
check "after remove-pass: luksDump = gostx disk dump, slot 3 only" compare_dumps "3"

finish
