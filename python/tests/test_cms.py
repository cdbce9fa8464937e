"""gostx.cms on tests/support/gost_pki.sh's PKI: sign and verify bytes,
paths and file objects (detached ones hashed in chunks, in constant
memory), attached and PEM, both ways with the gostx command, and the
refusals with their statuses, all of them GostxError."""
import datetime
import pathlib
import subprocess
import tracemalloc

import pytest

import gostx
from gostx import cms, x509

from conftest import pki_certs


def key(pki, name):
    with open(pki + name, "rb") as f:
        return gostx.load_pem_private_key(f.read())


@pytest.mark.parametrize("curve", ["256A", "512B"])
def test_sign_verify_bytes(pki, store, curve):
    leaf, inter = pki_certs(pki, f"chain-{curve}.pem")
    sig = cms.sign(b"document", leaf, key(pki, f"leaf-{curve}.key"), cades=True, chain=[inter])
    got = cms.verify(sig, b"document", store=store)
    assert got.content is None and len(got.signers) == 1
    signer = got.signers[0]
    assert signer.certificate == leaf and signer.timestamps == []
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - signer.signing_time).total_seconds()) < 120


def test_attached_pem(pki, store):
    leaf, inter = pki_certs(pki, "chain-256B.pem")
    sig = cms.sign(bytearray(b"inside"), leaf, key(pki, "leaf-256B.key"), detached=False,
                   signing_time=False, encoding="PEM")
    assert sig.startswith(b"-----BEGIN CMS-----")
    got = cms.verify(sig, store=store, untrusted=[inter])
    assert got.content == b"inside" and got.signers[0].signing_time is None


def test_files_in_chunks_and_the_command(pki, store, cli, tmp_path):
    doc = tmp_path / "doc.bin"
    doc.write_bytes(bytes(range(256)) * 12289)  # 3 MiB and a bit: several chunks
    leaf, inter = pki_certs(pki, "chain-512A.pem")
    sig = cms.sign(doc, leaf, key(pki, "leaf-512A.key"), chain=[inter])
    with open(doc, "rb") as f:
        assert cms.verify(sig, f, store=store).signers[0].certificate == leaf
    assert cms.verify(sig, str(doc), store=store).signers[0].certificate == leaf
    (tmp_path / "py.sig").write_bytes(sig)
    r = subprocess.run([cli, "cms", "-verify", "-in", str(tmp_path / "py.sig"), "-content", str(doc),
                        "-CAfile", pki + "ca.pem"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    subprocess.run([cli, "cms", "-sign", "-in", str(doc), "-signer", pki + "leaf-256C.pem",
                    "-inkey", pki + "leaf-256C.key", "-certfile", pki + "int.pem", "-cades",
                    "-out", str(tmp_path / "cli.sig")], check=True)
    got = cms.verify(tmp_path / "cli.sig", doc, store=store)
    assert got.signers[0].certificate == pki_certs(pki, "leaf-256C.pem")[0]


def test_detached_file_in_constant_memory(pki, tmp_path):
    doc = tmp_path / "big.bin"
    with open(doc, "wb") as f:
        for _ in range(16):
            f.write(b"\x5a" * (1 << 20))
    leaf = pki_certs(pki, "leaf-256A.pem")[0]
    k = key(pki, "leaf-256A.key")
    tracemalloc.start()
    try:
        sig = cms.sign(doc, leaf, k)
        cms.verify(sig, doc, store=None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"{peak} bytes for a 16 MiB detached content"


def test_refusals(pki, store, tmp_path):
    leaf, inter = pki_certs(pki, "chain-256A.pem")
    k = key(pki, "leaf-256A.key")
    sig = cms.sign(b"document", leaf, k, chain=[inter])
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(sig, b"documenT", store=store)
    assert e.value.status == cms.Status.DIGEST_MISMATCH and e.value.signer == 0
    assert isinstance(e.value, gostx.GostxError)
    rogue = x509.Store()
    rogue.load_verify_locations(cafile=pki + "rogue-ca.pem")
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(sig, b"document", store=rogue)
    assert e.value.status == cms.Status.CHAIN and e.value.x509_status == x509.Status.UNKNOWN_CA
    bad = bytearray(sig)
    bad[-3] ^= 1  # inside the signature value, the SignedData's last field
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(bytes(bad), b"document", store=store)
    assert e.value.status == cms.Status.BAD_SIGNATURE
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(sig[:-1], b"document", store=store)
    assert e.value.status == cms.Status.TRUNCATED
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(b"not a signature", b"document", store=store)
    assert e.value.status == cms.Status.MALFORMED
    with pytest.raises(gostx.GostxValueError, match="not the private key"):
        cms.sign(b"x", leaf, key(pki, "leaf-256B.key"))
    with pytest.raises(gostx.GostxValueError, match="content is needed"):
        cms.verify(sig, store=store)
    with pytest.raises(TypeError):
        cms.verify(sig, b"document")  # store=None must be said, not forgotten
    with pytest.raises(gostx.GostxTypeError):
        cms.sign(b"x", leaf, b"not a key")


def test_cades_t_timestamps(cli, tmp_path):
    """CAdES-T on tests/vectors/cms_ts (a real TSA's reply, made once): the
    gostx command embeds it, verify() checks and reports its time, a changed
    token and more tokens than are checked are refused."""
    vec = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vectors" / "cms_ts"
    store = x509.Store()
    store.load_verify_locations(cafile=vec / "ca.pem")
    when = datetime.datetime(2026, 11, 27, 19, 41, 6, tzinfo=datetime.timezone.utc)  # genTime
    sig = tmp_path / "t.sig"
    for i in range(9):
        subprocess.run([cli, "cms", "-tsa-reply", str(vec / "reply.tsr"), "-in", str(sig if i else vec / "signed.der"),
                        "-CAfile", str(vec / "ca.pem"), "-attime", str(int(when.timestamp())),
                        "-outform", "DER", "-out", str(tmp_path / "next.sig")], check=True, capture_output=True)
        (tmp_path / "next.sig").replace(sig)
        if i == 0:
            one = sig.read_bytes()
    content = (vec / "content.txt").read_bytes()
    got = cms.verify(one, content, store=store, at=when)
    assert got.signers[0].timestamps == [when]
    bad = bytearray(one)
    at = bad.find(b"\x18\x132026")  # the first token's genTime, with milliseconds (TSTInfo)
    assert at > 0
    bad[at + 10] ^= 1
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(bytes(bad), content, store=store, at=when)
    assert e.value.status == cms.Status.TS_TOKEN and "messageDigest" in e.value.why
    with pytest.raises(cms.VerificationError) as e:
        cms.verify(sig, content, store=store, at=when)
    assert e.value.status == cms.Status.TOO_MANY


# ---- EnvelopedData: encrypt / decrypt ----

@pytest.mark.parametrize("cipher", ["kuznyechik", "magma"])
@pytest.mark.parametrize("omac", [False, True])
def test_encrypt_decrypt_round_trip(pki, cipher, omac):
    """Both ciphers, with and without OMAC, one 256- and one 512-bit
    recipient in the same message: each opens it with its own key."""
    r256, r512 = pki_certs(pki, "leaf-256A.pem")[0], pki_certs(pki, "leaf-512B.pem")[0]
    doc = bytes(range(256)) * 40 + b"tail"
    p7m = cms.encrypt(doc, [r256, r512], cipher=cipher, omac=omac)
    assert cms.decrypt(p7m, r256, key(pki, "leaf-256A.key")) == doc
    assert cms.decrypt(p7m, r512, key(pki, "leaf-512B.key")) == doc


def test_encrypt_gost89(pki, cli, tmp_path):
    """GOST 28147-89 CFB content with RFC 4490 key transport: both key
    sizes in one message, past the 1024-byte key meshing; `gostx cms
    -decrypt` reads it; a changed encryptedKey MAC is WRONG_KEY; no OMAC."""
    r256, r512 = pki_certs(pki, "leaf-256B.pem")[0], pki_certs(pki, "leaf-512C.pem")[0]
    doc = bytes(range(256)) * 9 + b"tail"
    p7m = cms.encrypt(doc, [r256, r512], cipher="gost89")
    assert cms.decrypt(p7m, r256, key(pki, "leaf-256B.key")) == doc
    assert cms.decrypt(p7m, r512, key(pki, "leaf-512C.key")) == doc
    (tmp_path / "g.p7m").write_bytes(p7m)
    r = subprocess.run([cli, "cms", "-decrypt", "-recip", pki + "leaf-512C.pem", "-inkey",
                        pki + "leaf-512C.key", "-in", str(tmp_path / "g.p7m"), "-out",
                        str(tmp_path / "out.bin")], capture_output=True, text=True)
    assert r.returncode == 0 and "not authenticated" in r.stderr, r.stderr
    assert (tmp_path / "out.bin").read_bytes() == doc
    bad = bytearray(p7m)
    at = bad.index(b"\x30\x28\x04\x20") + 4 + 32 + 2  # the first recipient's macKey
    bad[at] ^= 1
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(bytes(bad), r256, key(pki, "leaf-256B.key"))
    assert e.value.status == cms.Status.WRONG_KEY
    with pytest.raises(gostx.GostxValueError, match="no OMAC"):
        cms.encrypt(doc, [r256], cipher="gost89", omac=True)
    with pytest.raises(gostx.GostxValueError, match="no kari"):
        cms.encrypt(doc, [r256], cipher="gost89", kari=True)


@pytest.mark.parametrize("kari", [False, True])
@pytest.mark.parametrize("key_id", [False, True])
def test_recipient_kinds_and_key_alone(pki, kari, key_id):
    """KARI or KTRI, by issuer and serial or by key id: each recipient opens
    the message by its certificate and by its key alone (cert None); a key
    of no recipient opens nothing."""
    r256, r512 = pki_certs(pki, "leaf-256A.pem")[0], pki_certs(pki, "leaf-512B.pem")[0]
    doc = b"kinds" * 300
    p7m = cms.encrypt(doc, [r512, r256], omac=True, kari=kari, key_id=key_id)
    # a KARI's ukm is [1] EXPLICIT (a KTRI's sits bare in its encryptedKey);
    # issuer and serial name the issuer, a key id does not
    assert (b"\xa1\x22\x04\x20" in p7m) == kari
    issuer_cn = r256.issuer.split("CN=")[1].split(",")[0].encode()
    assert (issuer_cn in p7m) == (not key_id)
    for r, k in ((r256, "leaf-256A.key"), (r512, "leaf-512B.key")):
        assert cms.decrypt(p7m, r, key(pki, k)) == doc
        assert cms.decrypt(p7m, None, key(pki, k)) == doc
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(p7m, None, key(pki, "leaf-256B.key"))
    assert e.value.status == cms.Status.RECIPIENT_NOT_FOUND


def test_encrypt_pem_path_and_empty(pki, tmp_path):
    r = pki_certs(pki, "leaf-512A.pem")[0]
    (tmp_path / "doc").write_bytes(b"from a file")
    p7m = cms.encrypt(tmp_path / "doc", [r], encoding="PEM")
    assert p7m.startswith(b"-----BEGIN CMS-----")
    (tmp_path / "doc.p7m").write_bytes(p7m)
    assert cms.decrypt(tmp_path / "doc.p7m", r, key(pki, "leaf-512A.key")) == b"from a file"
    assert cms.decrypt(cms.encrypt(b"", [r]), r, key(pki, "leaf-512A.key")) == b""


def test_decrypt_refusals(pki):
    r, other = pki_certs(pki, "leaf-256A.pem")[0], pki_certs(pki, "leaf-256B.pem")[0]
    k = key(pki, "leaf-256A.key")
    p7m = cms.encrypt(b"secret" * 100, [r], omac=True)
    bad = bytearray(p7m)
    bad[-60] ^= 1  # inside the 600-byte ciphertext (after it: only the ~35-byte OMAC attribute)
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(bytes(bad), r, k)
    assert e.value.status == cms.Status.BAD_MAC and "BAD_MAC" in str(e.value)
    assert isinstance(e.value, gostx.GostxError)
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(p7m, other, key(pki, "leaf-256B.key"))
    assert e.value.status == cms.Status.RECIPIENT_NOT_FOUND
    with pytest.raises(gostx.GostxValueError, match="not the private key"):
        cms.decrypt(p7m, r, key(pki, "leaf-256B.key"))
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(p7m[:-1], r, k)
    assert e.value.status == cms.Status.TRUNCATED
    with pytest.raises(cms.DecryptionError) as e:
        cms.decrypt(cms.sign(b"x", r, k), r, k)
    assert e.value.status == cms.Status.WRONG_TYPE
    with pytest.raises(gostx.GostxValueError):
        cms.encrypt(b"x", [r], cipher="aes")
    with pytest.raises(gostx.GostxValueError):
        cms.encrypt(b"x", [])
    with pytest.raises(gostx.GostxTypeError):
        cms.encrypt(b"x", r)


def test_encrypt_decrypt_with_the_command(pki, cli, tmp_path):
    """A message of `gostx cms -encrypt` decrypts here, and the command
    decrypts one made here."""
    doc = tmp_path / "doc.bin"
    doc.write_bytes(bytes(range(256)) * 9)
    subprocess.run([cli, "cms", "-encrypt", "-magma", "-omac", "-recip", pki + "leaf-512A.pem",
                    "-in", str(doc), "-out", str(tmp_path / "cli.p7m")], check=True)
    got = cms.decrypt(tmp_path / "cli.p7m", pki_certs(pki, "leaf-512A.pem")[0], key(pki, "leaf-512A.key"))
    assert got == doc.read_bytes()
    (tmp_path / "py.p7m").write_bytes(cms.encrypt(doc, [pki_certs(pki, "leaf-256C.pem")[0]], omac=True))
    r = subprocess.run([cli, "cms", "-decrypt", "-recip", pki + "leaf-256C.pem", "-inkey",
                        pki + "leaf-256C.key", "-in", str(tmp_path / "py.p7m"), "-out",
                        str(tmp_path / "out.bin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.bin").read_bytes() == doc.read_bytes()


def test_status_covers_the_library():
    """Every gostx_cms_status the C library can return has its Status member
    (a verdict without one would raise ValueError where it is reported)."""
    from gostx._native import lib
    for v in range(1, lib.GOSTX_CMS_BAD_DIGEST_ALGORITHMS + 1):
        assert cms.Status(v).text == cms.Status(v).__str__()
