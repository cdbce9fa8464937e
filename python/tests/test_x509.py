"""gostx.x509 on tests/support/gost_pki.sh's PKI: the fields read back as
openssl wrote them, and each kind of bad chain refused with its status."""
import datetime
import pickle
import subprocess

import pytest

import gostx
from gostx import x509

from conftest import pki_certs


def test_fields(pki):
    leaf, inter = pki_certs(pki, "chain-256A.pem")
    assert leaf.subject == "CN=localhost, O=gostx test"
    assert leaf.issuer == inter.subject == "CN=gostx test intermediate, O=gostx test"
    assert leaf.version == 3 and not leaf.is_ca and inter.is_ca
    assert leaf.subject_alt_names == [("DNS", "localhost"), ("IP Address", "127.0.0.1")]
    assert leaf.curve == gostx.Curve.from_name("id-tc26-gost-3410-2012-256-paramSetA")
    with open(pki + "leaf-256A.key", "rb") as f:
        assert leaf.public_key() == gostx.load_pem_private_key(f.read()).public_key()
    # serial and dates as openssl reads them
    out = subprocess.run(["openssl", "x509", "-noout", "-serial", "-startdate", "-enddate",
                          "-in", pki + "leaf-256A.pem"], capture_output=True, text=True).stdout
    fields = dict(line.split("=", 1) for line in out.splitlines())
    assert leaf.serial_number == int(fields["serial"], 16)
    fmt = "%b %d %H:%M:%S %Y GMT"
    assert leaf.not_valid_before == datetime.datetime.strptime(
        " ".join(fields["notBefore"].split()), fmt).replace(tzinfo=datetime.timezone.utc)
    assert leaf.not_valid_after.tzinfo is datetime.timezone.utc


def test_pem_der_round_trip(pki):
    leaf = pki_certs(pki, "leaf-256A.pem")[0]
    der = leaf.public_bytes("DER")
    assert x509.load_der_x509_certificate(der) == leaf
    assert x509.load_pem_x509_certificate(leaf.public_bytes()) == leaf
    assert x509.load_pem_x509_certificate(leaf.public_bytes().decode()) == leaf
    assert pickle.loads(pickle.dumps(leaf)) == leaf
    assert len({leaf, x509.load_der_x509_certificate(der)}) == 1
    with pytest.raises(x509.VerificationError) as e:
        x509.load_der_x509_certificate(der[:-1])
    assert e.value.status == x509.Status.MALFORMED
    with pytest.raises(ValueError):
        x509.load_pem_x509_certificates(b"no PEM here")


def test_verify_path(pki, store):
    leaf, inter = pki_certs(pki, "chain-256A.pem")
    path = store.verify(leaf, [inter], purpose="server", hostname="localhost")
    assert [c.subject for c in path] == [leaf.subject, inter.subject, "CN=gostx test root, O=gostx test"]
    store.verify(leaf, [inter], hostname="127.0.0.1")


@pytest.mark.parametrize("name,status,kw", [
    ("chain-bad-expired.pem", x509.Status.EXPIRED, {}),
    ("chain-bad-notyet.pem", x509.Status.NOT_YET_VALID, {}),
    ("chain-bad-unknownca.pem", x509.Status.UNKNOWN_CA, {}),
    ("chain-bad-signature.pem", x509.Status.BAD_SIGNATURE, {}),
    ("chain-bad-notca.pem", x509.Status.NOT_CA, {}),
    ("chain-bad-eku.pem", x509.Status.EXT_KEY_USAGE, {"purpose": "server"}),
    ("chain-256A.pem", x509.Status.NAME_MISMATCH, {"hostname": "other.test"}),
    ("chain-256A.pem", x509.Status.NOT_YET_VALID, {"at": datetime.datetime(2000, 1, 1)}),
])
def test_refusals_named(pki, store, name, status, kw):
    leaf, *rest = pki_certs(pki, name)
    with pytest.raises(x509.VerificationError) as e:
        store.verify(leaf, rest, **kw)
    assert e.value.status == status
    assert e.value.why and e.value.why in str(e.value)
    assert status.name in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, gostx.GostxError)


def test_store_sources(pki, tmp_path):
    s = x509.Store()
    with pytest.raises(FileNotFoundError):
        s.load_verify_locations(cafile=str(tmp_path / "none.pem"))
    (tmp_path / "junk.pem").write_text("nothing")
    with pytest.raises(x509.VerificationError):
        s.load_verify_locations(cafile=str(tmp_path / "junk.pem"))
    with pytest.raises(TypeError):
        s.load_verify_locations()
    root = pki_certs(pki, "ca.pem")[0]
    leaf, inter = pki_certs(pki, "chain-256A.pem")
    s.load_verify_locations(cadata=root.public_bytes().decode())
    s.verify(leaf, [inter])
    s2 = x509.Store()
    s2.load_verify_locations(cadata=root.public_bytes("DER"))
    s2.verify(leaf, [inter])
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "root.pem").write_bytes(root.public_bytes())
    s3 = x509.Store()
    s3.load_verify_locations(capath=tmp_path / "d")
    s3.verify(leaf, [inter])
    with pytest.raises(x509.VerificationError) as e:
        x509.Store().verify(leaf, [inter])
    assert e.value.status == x509.Status.UNKNOWN_CA
