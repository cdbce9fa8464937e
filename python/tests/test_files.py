"""The gostx file format: Python and the gostx command read each other's
files, and any change to a file is refused."""
import io
import os
import subprocess

import pytest

import gostx


@pytest.fixture
def plain(tmp_path):
    p = tmp_path / "plain"
    p.write_bytes(os.urandom(3 * 4096 + 123))
    return p


@pytest.fixture
def keyfile(tmp_path):
    k = tmp_path / "k.key"
    k.write_bytes(os.urandom(32))
    return k


@pytest.mark.parametrize("alg", ["kuznyechik", "magma"])
def test_python_to_cli_and_back(cli, tmp_path, plain, keyfile, alg):
    enc = tmp_path / "enc"
    gostx.encrypt_file(plain, enc, key=keyfile.read_bytes(), alg=alg, chunk_size=4096, threads=2)
    out = tmp_path / "out"
    subprocess.run([cli, "dec", "-k", str(keyfile), "-i", str(enc), "-o", str(out)], check=True)
    assert out.read_bytes() == plain.read_bytes()
    enc2 = tmp_path / "enc2"
    subprocess.run([cli, "enc", "-k", str(keyfile), "-a", alg, "--chunk", "4K", "-i", str(plain),
                    "-o", str(enc2)], check=True)
    out2 = tmp_path / "out2"
    gostx.decrypt_file(enc2, out2, key=keyfile.read_bytes())
    assert out2.read_bytes() == plain.read_bytes()
    with gostx.open_file(enc2, "rb", key=keyfile.read_bytes()) as r:
        assert r.read() == plain.read_bytes()


def test_passphrase_interop(cli, tmp_path, plain):
    pw = tmp_path / "pw"
    pw.write_text("correct horse\n")
    enc = tmp_path / "enc"
    subprocess.run([cli, "enc", "--pass-file", str(pw), "--iter", "1000", "-i", str(plain), "-o",
                    str(enc)], check=True)
    out = tmp_path / "out"
    gostx.decrypt_file(enc, out, passphrase="correct horse")
    assert out.read_bytes() == plain.read_bytes()
    with pytest.raises(gostx.InvalidTag):
        gostx.decrypt_file(enc, tmp_path / "x", passphrase="wrong")
    gostx.encrypt_file(plain, enc, passphrase=b"correct horse", iterations=1000)
    r = subprocess.run([cli, "dec", "--pass-file", str(pw), "-i", str(enc)], check=True,
                       capture_output=True)
    assert r.stdout == plain.read_bytes()


@pytest.mark.parametrize("chunk_multiple", [False, True])
def test_writer_reader_any_split(cli, tmp_path, keyfile, chunk_multiple):
    key = keyfile.read_bytes()
    data = os.urandom(4 * 1024 if chunk_multiple else 5000)
    enc = tmp_path / "w.gostx"
    with gostx.open_file(enc, "wb", key=key, chunk_size=1024, alg="magma") as w:
        for i in range(0, len(data), 333):
            w.write(data[i:i + 333])
    r = subprocess.run([cli, "dec", "-k", str(keyfile), "-i", str(enc)], capture_output=True,
                       check=True)
    assert r.stdout == data
    with gostx.Reader(io.BytesIO(enc.read_bytes()), key=key) as rd:
        got = b"".join(iter(lambda: rd.read(100), b""))
    assert got == data


def test_every_change_is_refused(tmp_path, keyfile):
    key = keyfile.read_bytes()
    data = os.urandom(5000)
    enc = tmp_path / "e"
    with gostx.open_file(enc, "wb", key=key, chunk_size=1024) as w:
        w.write(data)
    blob = enc.read_bytes()
    variants = {
        "header byte": blob[:20] + bytes([blob[20] ^ 1]) + blob[21:],
        "ciphertext byte": blob[:200] + bytes([blob[200] ^ 1]) + blob[201:],
        "last byte": blob[:-1] + bytes([blob[-1] ^ 1]),
        "truncated to a chunk boundary": blob[:84 + 2 * (1024 + 16)],
        "truncated mid-chunk": blob[:-7],
        "trailing data": blob + b"\x00",
        "chunks swapped": blob[:84] + blob[84 + 1040:84 + 2080] + blob[84:84 + 1040]
                          + blob[84 + 2080:],
    }
    for name, bad in variants.items():
        p = tmp_path / "bad"
        p.write_bytes(bad)
        out = tmp_path / "out"
        with pytest.raises((gostx.InvalidTag, gostx.FormatError)):
            gostx.decrypt_file(p, out, key=key)
        assert not out.exists(), name  # no unverified plaintext left behind
        with pytest.raises((gostx.InvalidTag, gostx.FormatError)):
            with gostx.open_file(p, "rb", key=key) as r:
                r.read()
    with pytest.raises(gostx.InvalidTag):
        gostx.decrypt_file(enc, tmp_path / "o", key=os.urandom(32))
    p = tmp_path / "notgostx"
    p.write_bytes(b"hello world" * 20)
    with pytest.raises(gostx.FormatError):
        gostx.decrypt_file(p, tmp_path / "o", key=key)
