"""gostx.pkcs12: load the PFX files gost-engine, certtool and RFC 9548 made
(tests/vectors/pkcs12), dump and load back with every cipher, and the
refusals (wrong password, a certificate that is not the key's, the work
limit); the gostx command reads what dump writes."""
import base64
import os
import pathlib
import subprocess

import pytest

import gostx
from gostx import pkcs12

VEC = pathlib.Path(os.environ.get("GOSTX_VECTORS", pathlib.Path(__file__).resolve().parents[2]
                                  / "tests" / "vectors")) / "pkcs12"


def pem_certs(name):
    text = (VEC / name).read_text()
    blocks = text.split("-----BEGIN CERTIFICATE-----")[1:]
    return [base64.b64decode(b.split("-----END CERTIFICATE-----")[0]) for b in blocks]


def test_load_gost_engine_file():
    key, cert, chain = pkcs12.load((VEC / "engine-gost89-512.pfx").read_bytes(), "пароль".encode())
    want = gostx.load_pem_private_key((VEC / "key512.pem").read_bytes())
    assert key.private_bytes_raw() == want.private_bytes_raw()
    assert [cert] + chain == pem_certs("chain512.pem")


def test_load_rfc9548_example():
    key, cert, chain = pkcs12.load((VEC / "rfc9548-a2.pfx").read_bytes(), "Пароль для PFX".encode())
    assert key.private_bytes_raw().hex().upper() == (
        "F95A5D44C5245F63F2E7DF8E782C1924EADCB8D06C52D91023179786154CBDB1"
        "561B4DF759D69F67EE1FBD5B68800E134BAA12818DA4F3AC75B0E5E6F9256911")
    assert cert == (VEC / "rfc9548-cert.der").read_bytes() and chain == []


@pytest.mark.parametrize("pbe", ["gost89", "kuznyechik", "magma", "kuznyechik-omac", "magma-omac"])
def test_dump_load(pbe):
    key = gostx.load_pem_private_key((VEC / "key512.pem").read_bytes())
    certs = pem_certs("chain512.pem")
    data = pkcs12.dump(key, certs[0], certs[1:], bytearray(b"pw"), name="ключ", key_pbe=pbe,
                       iterations=10)
    key2, cert, chain = pkcs12.load(data, b"pw")
    assert key2.private_bytes_raw() == key.private_bytes_raw()
    assert [cert] + chain == certs
    with pytest.raises(ValueError, match="Invalid password"):
        pkcs12.load(data, b"pW")


def test_refusals():
    key = gostx.load_pem_private_key((VEC / "key256.pem").read_bytes())
    other = pem_certs("chain512.pem")[0]
    with pytest.raises(ValueError, match="not key's certificate"):
        pkcs12.dump(key, other, password=b"pw")
    with pytest.raises(ValueError, match="chain certificate is no GOST certificate"):
        pkcs12.dump(key, pem_certs("cert256.pem")[0], [bytes.fromhex("3003020100")], password=b"pw")
    with pytest.raises(ValueError, match="key_pbe"):
        pkcs12.dump(key, pem_certs("cert256.pem")[0], password=b"pw", key_pbe="aes")
    with pytest.raises(TypeError):
        pkcs12.load((VEC / "engine-gost89-256.pfx").read_bytes(), "secret")
    # 2048 iterations: the MAC alone costs 4096
    with pytest.raises(ValueError, match="iterations"):
        pkcs12.load((VEC / "engine-gost89-256.pfx").read_bytes(), b"secret", max_work=4000)
    with pytest.raises(ValueError, match="malformed"):
        pkcs12.load((VEC / "engine-gost89-256.pfx").read_bytes()[:-1], b"secret")


@pytest.mark.parametrize("name", ["engine-gost89-256-mac256.pfx", "engine-des3-256.pfx"])
def test_load_openssl_only_read(name):
    """-macalg md_gost12_256, -keypbe/-certpbe DES-EDE3-CBC (issue 67 9c)."""
    key, cert, chain = pkcs12.load((VEC / name).read_bytes(), b"secret")
    want = gostx.load_pem_private_key((VEC / "key256.pem").read_bytes())
    assert key.private_bytes_raw() == want.private_bytes_raw()
    assert [cert] + chain == pem_certs("cert256.pem")


def test_bad_certificate_bag(cli, tmp_path):
    """A certificate bag that is no certificate: skipped, named (issue 67 9b)."""
    (tmp_path / "tiny.der").write_bytes(bytes.fromhex("3003020100"))
    craft = pathlib.Path(__file__).resolve().parents[2] / "tests" / "support" / "pfx_craft.py"
    subprocess.run(["python3", str(craft), cli, str(tmp_path / "b.pfx"), "pw",
                    f"key={VEC / 'key256.pem'}@01", f"cert={tmp_path / 'tiny.der'}",
                    f"cert={VEC / 'cert256.pem'}@01"], check=True)
    with pytest.warns(UserWarning, match="certificate bag 2 skipped: parse"):
        key, cert, chain = pkcs12.load((tmp_path / "b.pfx").read_bytes(), b"pw")
    assert cert == pem_certs("cert256.pem")[0] and chain == []


def test_cli_reads_dump(cli, tmp_path):
    key = gostx.load_pem_private_key((VEC / "key256.pem").read_bytes())
    cert = pem_certs("cert256.pem")[0]
    (tmp_path / "k.pfx").write_bytes(pkcs12.dump(key, cert, password=b"pw", iterations=10))
    out = subprocess.run([cli, "pkcs12", "-in", str(tmp_path / "k.pfx"), "-passin", "pass:pw",
                          "-nocerts", "-noenc"], capture_output=True, check=True).stdout
    assert gostx.load_pem_private_key(out).private_bytes_raw() == key.private_bytes_raw()
