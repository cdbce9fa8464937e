#!/usr/bin/env python3
"""Rewrites C code written against an older gostx API for the current one
(docs/API_CHANGES.md lists the changes).

    python3 scripts/migrate_api.py [--from 0.1|0.2] FILE_OR_DIR...

--from says which API the code was written for: 0.1 (the default) gets the
0.2 changes and then the later ones; 0.2 gets only the changes made since
0.2.0 (issue 30: one order of first_sector and the sector size in the XTS
many-sector calls; one batch API). The argument swaps cannot be told from the
new order by looking, so give the right --from and run it once per file.

Mechanical changes are made in place: renamed identifiers and the new
argument order of the data calls ("inputs, each followed by its length,
then outputs"). Calls are found by name, their arguments split at the
top-level commas and put in the new order, so nested calls and macros
inside arguments survive. The changes that need a person (raw keys
replaced by key objects in the GOST 28147-89 and KExp15 calls, loops over
the old 0-based primitive ids, the removed sector-batch calls
gostx_batch_{cbc,ctr,omac,xts}_* that become gostx_batch_streams calls) are
listed, not made.
"""
import os
import re
import sys

# Identifiers renamed one for one (whole words).
RENAMES = {
    # One id space: enum gostx_alg for ciphers and implementation-selected primitives.
    "GOSTX_CIPHER_KUZNYECHIK": "GOSTX_ALG_KUZNYECHIK",
    "GOSTX_CIPHER_MAGMA": "GOSTX_ALG_MAGMA",
    "GOSTX_PRIM_KUZNYECHIK": "GOSTX_ALG_KUZNYECHIK",
    "GOSTX_PRIM_MAGMA": "GOSTX_ALG_MAGMA",
    "GOSTX_PRIM_STREEBOG": "GOSTX_ALG_STREEBOG",
    "GOSTX_PRIM_MGM": "GOSTX_ALG_MGM",
    "gostx_cipher_id": "gostx_alg",
    "gostx_primitive": "gostx_alg",
    "gostx_primitive_name": "gostx_alg_name",
    "gostx_cipher_name": "gostx_alg_name",
    "gostx_cipher_by_name": "gostx_alg_by_name",
    # "ct" means constant-time everywhere else: the file format is gostx_file_*.
    "gostx_ct": "gostx_file",
    "gostx_ct_header": "gostx_file_header",
    "gostx_ct_stream": "gostx_file_stream",
    "gostx_ct_write_fn": "gostx_file_write_fn",
    "gostx_ct_progress_fn": "gostx_file_progress_fn",
    "gostx_ct_header_encode": "gostx_file_header_encode",
    "gostx_ct_header_parse": "gostx_file_header_parse",
    "gostx_ct_tag_len": "gostx_file_tag_len",
    "gostx_ct_init_encrypt": "gostx_file_init_encrypt",
    "gostx_ct_init_decrypt": "gostx_file_init_decrypt",
    "gostx_ct_init_decrypt_limit": "gostx_file_init_decrypt_limit",
    "gostx_ct_clear": "gostx_file_clear",
    "gostx_ct_nonce": "gostx_file_nonce",
    "gostx_ct_seal_chunk": "gostx_file_seal_chunk",
    "gostx_ct_open_chunk": "gostx_file_open_chunk",
    "gostx_ct_encrypt_stream": "gostx_file_encrypt_stream",
    "gostx_ct_decrypt_stream": "gostx_file_decrypt_stream",
}
# The format's constants, named one by one: other GOSTX_CT_* names (a
# constant-time checker's GOSTX_CT_CHECK, say) mean something else.
RENAMES["GOSTX_CT_HEADER_LEN"] = "GOSTX_FILE_HEADER_LEN"
RENAMES["GOSTX_CT_KDF_RAW"] = "GOSTX_FILE_KDF_RAW"
RENAMES["GOSTX_CT_KDF_PBKDF2"] = "GOSTX_FILE_KDF_PBKDF2"
RENAMES["GOSTX_CT_ITER_MAX"] = "GOSTX_FILE_ITER_MAX"
RENAMES["GOSTX_CT_ITER_MIN"] = "GOSTX_FILE_ITER_MIN"
RENAMES["GOSTX_CT_ITER_DEFAULT"] = "GOSTX_FILE_ITER_DEFAULT"
RENAMES["GOSTX_CT_SALT_LEN"] = "GOSTX_FILE_SALT_LEN"
RENAMES["GOSTX_CT_CHECK_LEN"] = "GOSTX_FILE_CHECK_LEN"
RENAMES["GOSTX_CT_MAX_CHUNKS"] = "GOSTX_FILE_MAX_CHUNKS"
RENAMES["GOSTX_CT_VERSION"] = "GOSTX_FILE_VERSION"
RENAMES["GOSTX_CT_MAGIC_LEN"] = "GOSTX_FILE_MAGIC_LEN"
RENAMES["GOSTX_CT_MAGIC"] = "GOSTX_FILE_MAGIC"
RENAMES["GOSTX_CT_CHUNK_MIN"] = "GOSTX_FILE_CHUNK_MIN"
RENAMES["GOSTX_CT_CHUNK_MAX"] = "GOSTX_FILE_CHUNK_MAX"
RENAMES["GOSTX_CT_CHUNK_DEFAULT"] = "GOSTX_FILE_CHUNK_DEFAULT"
INCLUDES = {"gostx/container.h": "gostx/file.h"}

# Argument permutations: new argument k is old argument perm[k].


def last_two(n):
    return list(range(n - 2)) + [n - 1, n - 2]


REORDER = {
    # name: (old argument count, permutation)
    "gostx_kuz_encrypt_blocks": (4, last_two(4)),
    "gostx_kuz_decrypt_blocks": (4, last_two(4)),
    "gostx_magma_encrypt_blocks": (4, last_two(4)),
    "gostx_magma_decrypt_blocks": (4, last_two(4)),
    "gostx_gost89_encrypt_blocks": (4, last_two(4)),
    "gostx_gost89_decrypt_blocks": (4, last_two(4)),
    "gostx_cipher_encrypt_blocks": (4, last_two(4)),
    "gostx_cipher_decrypt_blocks": (4, last_two(4)),
    "gostx_ecb_encrypt": (4, last_two(4)),
    "gostx_ecb_decrypt": (4, last_two(4)),
    "gostx_cbc_encrypt": (6, last_two(6)),
    "gostx_cbc_decrypt": (6, last_two(6)),
    "gostx_cfb_encrypt": (7, last_two(7)),
    "gostx_cfb_decrypt": (7, last_two(7)),
    "gostx_ofb_crypt": (7, last_two(7)),
    "gostx_ctr_crypt": (7, last_two(7)),
    # (c, section_len, iv, iv_len, in, out, len) -> (c, iv, iv_len, section_len, in, len, out)
    "gostx_ctr_acpkm_crypt": (7, [0, 2, 3, 1, 4, 6, 5]),
    "gostx_xts_encrypt": (5, last_two(5)),
    "gostx_xts_decrypt": (5, last_two(5)),
    "gostx_xts_encrypt_sector": (5, last_two(5)),
    "gostx_xts_decrypt_sector": (5, last_two(5)),
    "gostx_gost89_ecb_encrypt": (4, last_two(4)),
    "gostx_gost89_ecb_decrypt": (4, last_two(4)),
    "gostx_ctr_crypt_mt": (7, last_two(7)),
    "gostx_ctr_acpkm_crypt_mt": (8, [0, 1, 3, 4, 2, 5, 7, 6]),
    "gostx_ecb_encrypt_mt": (5, last_two(5)),
    "gostx_ecb_decrypt_mt": (5, last_two(5)),
    "gostx_xts_encrypt_mt": (7, last_two(7)),
    "gostx_xts_decrypt_mt": (7, last_two(7)),
    # (pool, keys, nkeys, ivs, iv_len, in, out, sector_len, nsectors) -> (…, in, sector_len, nsectors, out)
    "gostx_batch_cbc_encrypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_batch_cbc_decrypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_batch_ctr_crypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_batch_xts_encrypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_batch_xts_decrypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_xts_encrypt_disk": (8, last_two(8)),
    "gostx_xts_decrypt_disk": (8, last_two(8)),
    # The GPU backend follows the CPU calls.
    "gostx_gpu_ctr_crypt": (7, last_two(7)),
    "gostx_gpu_ecb_encrypt": (5, last_two(5)),
    "gostx_gpu_ecb_decrypt": (5, last_two(5)),
    "gostx_gpu_xts_encrypt": (7, last_two(7)),
    "gostx_gpu_xts_decrypt": (7, last_two(7)),
    "gostx_gpu_gost89_cnt": (6, last_two(6)),
    "gostx_gpu_batch_ctr_crypt": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_gpu_batch_gost89_cnt": (8, [0, 1, 2, 3, 4, 6, 7, 5]),
    "gostx_gpu_ctr_crypt_split": (9, last_two(9)),
    "gostx_gpu_ctr_crypt_dev": (7, last_two(7)),
    "gostx_gpu_ecb_encrypt_dev": (5, last_two(5)),
    "gostx_gpu_ecb_decrypt_dev": (5, last_two(5)),
    "gostx_gpu_xts_encrypt_dev": (7, last_two(7)),
    "gostx_gpu_xts_decrypt_dev": (7, last_two(7)),
    "gostx_gpu_gost89_cnt_dev": (6, last_two(6)),
    "gostx_gpu_batch_ctr_crypt_dev": (9, [0, 1, 2, 3, 4, 5, 7, 8, 6]),
    "gostx_gpu_batch_gost89_cnt_dev": (8, [0, 1, 2, 3, 4, 6, 7, 5]),
}

# Since 0.2.0 (issue 30): every XTS many-sector call takes first_sector, then
# the sector size, both before the data.
REORDER_SINCE_0_2 = {
    # (pool, keys, nkeys, nums, first, in, sector_len, nsectors, out) -> (..., first, sector_len, in, nsectors, out)
    "gostx_batch_xts_encrypt": (9, [0, 1, 2, 3, 4, 6, 5, 7, 8]),
    "gostx_batch_xts_decrypt": (9, [0, 1, 2, 3, 4, 6, 5, 7, 8]),
    # (pool, key, sector_size, tweak_unit, first, in, nsectors, out) -> (pool, key, first, sector_size, tweak_unit, ...)
    "gostx_xts_encrypt_disk": (8, [0, 1, 4, 2, 3, 5, 6, 7]),
    "gostx_xts_decrypt_disk": (8, [0, 1, 4, 2, 3, 5, 6, 7]),
}

# Calls whose meaning changed beyond order: reported for a person to fix.
MANUAL = {
    "gostx_gost89_cnt": "takes a gostx_gost89_key * (gostx_gost89_set_key) instead of key, sbox; then iv, meshing, in, len, out",
    "gostx_gost89_cfb": "takes a gostx_gost89_key * instead of key, sbox; then iv, meshing, decrypt, in, len, out",
    "gostx_gost89_init": "is (ctx, const gostx_gost89_key *k, mode, decrypt, iv, meshing)",
    "gostx_gost89_imit_init": "is (ctx, const gostx_gost89_key *k, iv, meshing)",
    "gostx_gost89_imit": "is (const gostx_gost89_key *k, iv, meshing, in, len, mac, mac_len)",
    "gostx_kexp15": "takes two gostx_cipher * (enc, mac) instead of cipher_id, key_enc, key_mac",
    "gostx_kimp15": "takes two gostx_cipher * (enc, mac) instead of cipher_id, key_enc, key_mac",
    "GOSTX_PRIM_COUNT": "ids now run from 1 to GOSTX_ALG_END - 1",
}

# Removed since 0.2.0 (issue 30, one batch API): a call becomes a
# gostx_batch_streams call over one gostx_stream per sector, which needs an
# array the old call did not: listed for a person, with every --from.
_STREAMS = ("removed: fill a gostx_stream per sector (.key, .iv, .in, .len = sector_len, "
            ".out, .tag) and call gostx_batch_streams(pool, {op}, &params, streams, nsectors)"
            "{extra} (docs/API_CHANGES.md)")
REMOVED = {
    "gostx_batch_cbc_encrypt": _STREAMS.format(op="GOSTX_BATCH_CBC_ENCRYPT", extra=", params.iv_len = iv_len"),
    "gostx_batch_cbc_decrypt": _STREAMS.format(op="GOSTX_BATCH_CBC_DECRYPT", extra=", params.iv_len = iv_len"),
    "gostx_batch_ctr_crypt": _STREAMS.format(op="GOSTX_BATCH_CTR", extra=""),
    "gostx_batch_omac": _STREAMS.format(op="GOSTX_BATCH_OMAC", extra=", params.tag_len = tag_len"),
    "gostx_batch_xts_encrypt": _STREAMS.format(
        op="GOSTX_BATCH_XTS_ENCRYPT", extra=", .iv = the sector number as a 16-byte little-endian tweak"),
    "gostx_batch_xts_decrypt": _STREAMS.format(
        op="GOSTX_BATCH_XTS_DECRYPT", extra=", .iv = the sector number as a 16-byte little-endian tweak"),
}

SUFFIXES = (".c", ".h", ".cu", ".inc", ".cc", ".cpp", ".py", ".pyx", ".pyi", ".md")


def split_args(s):
    """Top-level comma split of an argument list (no outer parentheses)."""
    args, depth, cur, i = [], 0, [], 0
    while i < len(s):
        ch = s[i]
        if ch in "\"'":  # string or char literal
            j = i + 1
            while j < len(s) and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i : j + 1])
            i = j + 1
            continue
        if s.startswith("/*", i):
            j = s.find("*/", i + 2)
            cur.append(s[i : j + 2])
            i = j + 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    args.append("".join(cur))
    return args


def matching_paren(text, open_pos):
    depth, i = 0, open_pos
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def reorder_calls(text, path, problems, table=REORDER):
    names = "|".join(sorted(table, key=len, reverse=True))
    # f(...), and (cond ? f_dec : f_enc)(...) where both take the same order
    call = re.compile(r"(?<!\w)(" + names + r")\s*\(|\([^()?;]*\?\s*(" + names + r")\s*:\s*(?:"
                      + names + r")\s*\)\s*\(")
    out, pos = [], 0
    for m in call.finditer(text):
        if m.start() < pos:
            continue
        open_pos = m.end() - 1
        close = matching_paren(text, open_pos)
        if close < 0:
            continue
        inner = text[open_pos + 1 : close]
        args = split_args(inner)
        name = m.group(1) or m.group(2)
        count, perm = table[name]
        if len(args) != count:
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{path}:{line}: {name} with {len(args)} arguments, expected {count}: not changed")
            continue
        stripped = [a.replace("\\\n", " ").strip() for a in args]
        new = [stripped[k] for k in perm]
        if "\\\n" in inner:  # inside a macro: one line, the continuations stay outside
            new_inner = ", ".join(new)
        elif "\n" in inner:  # keep a multi-line call multi-line, wrapped at 98 columns
            indent = re.search(r"\n([ \t]*)", inner).group(1)
            joined, width = "", len(text[text.rfind("\n", 0, m.start()) + 1 : open_pos + 1])
            for k, a in enumerate(new):
                piece = a + (", " if k + 1 < len(new) else "")
                if width + len(piece.rstrip()) > 98 and joined:
                    joined = joined.rstrip() + "\n" + indent
                    width = len(indent)
                joined += piece
                width += len(piece)
            new_inner = joined
        else:
            new_inner = ", ".join(new)
        out.append(text[pos : open_pos + 1])
        out.append(new_inner)
        pos = close
    out.append(text[pos:])
    return "".join(out)


def migrate(text, path, problems, since="0.1"):
    if since == "0.1":
        for old, new in INCLUDES.items():
            text = text.replace(old, new)
        words = re.compile(r"\b(" + "|".join(sorted(RENAMES, key=len, reverse=True)) + r")\b")
        text = words.sub(lambda m: RENAMES[m.group(1)], text)
        text = reorder_calls(text, path, problems)
        for name, why in MANUAL.items():
            for m in re.finditer(r"\b" + name + r"\b(?!_)", text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{path}:{line}: {name} {why}")
    text = reorder_calls(text, path, problems, REORDER_SINCE_0_2)
    for name, why in REMOVED.items():
        for m in re.finditer(r"\b" + name + r"\b", text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{path}:{line}: {name} {why}")
    return text


def files(args):
    for a in args:
        if os.path.abspath(a) == os.path.abspath(__file__):
            continue  # its own tables name the old API
        if os.path.isdir(a):
            for root, dirs, names in os.walk(a):
                dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
                for n in names:
                    if n.endswith(SUFFIXES) and os.path.abspath(os.path.join(root, n)) != os.path.abspath(__file__):
                        yield os.path.join(root, n)
        else:
            yield a


def main(argv):
    args, since = argv[1:], "0.1"
    if args and args[0].startswith("--from"):
        if args[0] == "--from" and len(args) > 1:
            since, args = args[1], args[2:]
        else:
            since, args = args[0].partition("=")[2], args[1:]
        if since not in ("0.1", "0.2"):
            print(f"--from {since}: give 0.1 or 0.2", file=sys.stderr)
            return 2
    if not args:
        print(__doc__.strip())
        return 2
    problems = []
    for path in files(args):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = migrate(old, path, problems, since)
        if new != old:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("changed", path)
    for p in problems:
        print("check by hand:", p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
