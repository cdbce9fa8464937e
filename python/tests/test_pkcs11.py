"""gostx.pkcs11: keys on a PKCS#11 token used through every call that takes
a key. The token is gostx's own module (libgostx-pkcs11.so: GOSTX_PKCS11_MODULE,
else beside the gostx command), made by `gostx p11 init/import` under a
scratch GOSTX_PKCS11_DIR, holding the keys and certificates of
tests/support/gost_pki.sh's PKI. Skips without the module or the command."""
import copy
import gc
import os
import pathlib
import shutil
import ssl
import subprocess
import time

import pytest

import gostx
from gostx import cms, pkcs11, pkcs12, tls, x509, xmldsig
from conftest import time_scale
from test_sharing import _hammer
from test_tls import PyServer, client_ctx, connect

PIN, SOPIN, WRONG = "4321-py", "8765-so", "0000-no"


class Token:
    def __init__(self, cli, module, d):
        self.cli, self.module, self.d = cli, module, d

    def p11(self, *args, check=True):
        env = dict(os.environ, PIN=PIN, SOPIN=SOPIN, WRONG=WRONG)
        return subprocess.run([self.cli, "p11", "--module", self.module, *map(str, args)],
                              env=env, capture_output=True, text=True, timeout=60, check=check)

    def uri(self, token, label, query=""):
        return f"pkcs11:token={token};object={label};type=private?module-path={self.module}{query}"


@pytest.fixture(scope="module")
def token(cli, pki, tmp_path_factory):
    """Token "py": the PKI's leaf-256A (with its certificate) and leaf-512B;
    token "spare": one key, for the wrong PIN (no login on it before)."""
    named = os.environ.get("GOSTX_PKCS11_MODULE")
    module = named or str(pathlib.Path(cli).resolve().parent / "libgostx-pkcs11.so")
    if named and not os.path.exists(named):  # CI names it (scripts/ci_python.sh)
        pytest.fail(f"GOSTX_PKCS11_MODULE={named}: no such file")
    if not os.path.exists(module):
        pytest.skip(f"gostx's PKCS#11 module not built ({module}: make build, or set "
                    "GOSTX_PKCS11_MODULE)")
    d = tmp_path_factory.mktemp("tokens")
    # read by the module when this process loads it: every test here shares it
    saved = {k: os.environ.get(k) for k in ("GOSTX_PKCS11_DIR", "GOSTX_PKCS11_KDF_ITER")}
    os.environ["GOSTX_PKCS11_DIR"] = str(d)
    os.environ["GOSTX_PKCS11_KDF_ITER"] = "1000"  # a short PIN KDF for a scratch token
    t = Token(cli, module, d)
    t.p11("init", "--label", "py", "-sopin", "env:SOPIN", "-pin", "env:PIN")
    t.p11("import", "-k", pki + "leaf-256A.key", "-cert", pki + "leaf-256A.pem",
          "--token", "py", "--label", "leaf", "--id", "01", "-pin", "env:PIN")
    t.p11("import", "-k", pki + "leaf-512B.key", "-cert", pki + "leaf-512B.pem",
          "--token", "py", "--label", "leaf512", "--id", "02", "-pin", "env:PIN")
    t.p11("init", "--label", "spare", "-sopin", "env:SOPIN", "-pin", "env:PIN")
    t.p11("import", "-k", pki + "leaf-256A.key", "--token", "spare", "--label", "k",
          "-pin", "env:PIN")
    yield t
    pkcs11.finalize()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def cert_of(pki, name):
    with open(pki + name, "rb") as f:
        return x509.load_pem_x509_certificates(f.read())


@pytest.fixture(scope="module")
def leaf(token):
    return pkcs11.open_key(token.uri("py", "leaf"), pin=PIN)


def test_sign_raw_digests_256_and_512(token, pki, leaf):
    big = pkcs11.open_key(token.uri("py", "leaf512"), pin=PIN.encode())
    for key, name, n in ((leaf, "leaf-256A.pem", 32), (big, "leaf-512B.pem", 64)):
        pub = cert_of(pki, name)[0].public_key()
        assert key.public_key() == pub
        digest = os.urandom(n)
        pub.verify(key.sign(digest, prehashed=True), digest, prehashed=True)
        pub.verify(key.sign(b"a message"), b"a message")
        assert "PKCS#11" in repr(key)


def test_one_key_many_threads_and_copies_outlive_it(token, pki):
    """The C token key lives while any object bound to it does: a copy
    signs after the original is gone; threads sign at once (a session each)."""
    key = pkcs11.open_key(token.uri("py", "leaf"), pin=PIN)
    twin = copy.copy(key)
    del key
    gc.collect()
    pub = cert_of(pki, "leaf-256A.pem")[0].public_key()
    msg = b"from many threads"
    for sig in _hammer(lambda: twin.sign(msg), rounds=5):
        pub.verify(sig, msg)


def test_cms_sign_verify_and_xmldsig(token, pki, leaf):
    leaf_cert, inter = cert_of(pki, "chain-256A.pem")
    store = x509.Store()
    store.load_verify_locations(cafile=pki + "ca.pem")
    sig = cms.sign(b"document", leaf_cert, leaf, cades=True, chain=[inter])
    got = cms.verify(sig, b"document", store=store)
    assert got.signers[0].certificate == leaf_cert
    doc = b'<root><data Id="d1">hello</data></root>'
    signed = xmldsig.sign(doc, leaf, leaf_cert, ref="d1")
    assert xmldsig.verify(signed, store=store, untrusted=[inter])


def test_certificate_read_from_the_token(token, pki):
    der = pkcs11.read_cert(token.uri("py", "leaf").replace("type=private", "type=cert"))
    assert x509.load_der_x509_certificate(der) == cert_of(pki, "leaf-256A.pem")[0]


def test_cms_decrypt_with_vko_on_the_token(token, pki, leaf):
    cert = cert_of(pki, "leaf-256A.pem")[0]
    p7m = cms.encrypt(b"for the token's eyes", [cert])
    assert cms.decrypt(p7m, cert, leaf) == b"for the token's eyes"


def test_tls_server_key_on_the_token(token, pki):
    sctx = tls.Context(tls.PROTOCOL_TLS_SERVER)
    # the certificate from the PKI's chain file, the key by its URI
    sctx.load_cert_chain(pki + "chain-256A.pem", token.uri("py", "leaf"), password=PIN)
    srv = PyServer(sctx, lambda conn: conn.sendall(conn.recv(100)))
    with connect(client_ctx(pki), srv.port) as s:
        s.sendall(b"through the token")
        assert s.recv(100) == b"through the token"
    srv.join()
    assert not srv.errors, srv.errors


def test_export_refused(leaf, pki):
    with pytest.raises(gostx.GostxValueError, match="on a PKCS#11 token and cannot be exported"):
        leaf.private_bytes()
    with pytest.raises(gostx.GostxValueError, match="cannot be exported"):
        leaf.private_bytes_raw()
    with pytest.raises(gostx.GostxValueError, match="cannot be exported"):
        pkcs12.dump(leaf, cert_of(pki, "leaf-256A.pem")[0].public_bytes("DER"), password=b"pw")


def test_refusals(token):
    with pytest.raises(pkcs11.PKCS11Error, match="pin-value") as e:
        pkcs11.open_key(token.uri("py", "leaf", "&pin-value=" + PIN))
    assert e.value.kind == pkcs11.Kind.BAD_URI
    with pytest.raises(pkcs11.PKCS11Error) as e:
        pkcs11.open_key(token.uri("py", "nosuch"), pin=PIN)
    assert e.value.kind == pkcs11.Kind.NO_OBJECT
    with pytest.raises(pkcs11.PKCS11Error) as e:
        pkcs11.open_key(token.uri("nosuch", "leaf"), pin=PIN)
    assert e.value.kind == pkcs11.Kind.NO_TOKEN
    with pytest.raises(pkcs11.PKCS11Error, match="/nonexistent/x.so") as e:
        pkcs11.open_key("pkcs11:token=py;object=leaf?module-path=/nonexistent/x.so", pin=PIN)
    assert e.value.kind == pkcs11.Kind.MODULE


def test_wrong_pin_tried_once(token):
    """A wrong PIN is one failed login: PIN_INCORRECT, the callable asked
    once. The token's count proves it: 1 (Python) + 7 (the command) is 8
    failures, and the next wrong PIN is the 9th, the one after which the
    token says a final try is left; a retry in either call would have made
    it the 10th, which locks the PIN."""
    asked = []
    uri = token.uri("spare", "k")
    with pytest.raises(pkcs11.PKCS11Error, match="wrong PIN.*counts failed logins") as e:
        pkcs11.open_key(uri, pin=lambda: asked.append(1) or WRONG)
    assert e.value.kind == pkcs11.Kind.PIN_INCORRECT and asked == [1]
    for _ in range(7):
        r = token.p11("list", "--token", "spare", "-pin", "env:WRONG", check=False)
        assert r.returncode == 1 and "wrong PIN" in r.stderr, r.stderr
    with pytest.raises(pkcs11.PKCS11Error, match="one more wrong PIN will lock it") as e:
        pkcs11.open_key(uri, pin=WRONG)
    assert e.value.kind == pkcs11.Kind.PIN_INCORRECT
    with pytest.raises(pkcs11.PKCS11Error) as e:
        pkcs11.open_key(uri)
    assert e.value.kind == pkcs11.Kind.PIN_NEEDED


def test_token_removed_under_calls(token, pki):
    """A token removed while its key is open: a call that uses the key (cms.sign, a
    TLS server's handshake: TLSTokenError, a TLSError too; sign) raises PKCS11Error
    of kind REMOVED, as open_key
    would, with the call's own error as its cause; check() says so too. The removal
    is the token's folder moved away (docs/PKCS11.md: its sessions then answer
    CKR_DEVICE_REMOVED)."""
    before = set(os.listdir(token.d))
    token.p11("init", "--label", "gone", "-sopin", "env:SOPIN", "-pin", "env:PIN")
    token.p11("import", "-k", pki + "leaf-256A.key", "--token", "gone", "--label", "k",
              "-pin", "env:PIN")
    (folder,) = set(os.listdir(token.d)) - before
    key = pkcs11.open_key(token.uri("gone", "k"), pin=PIN)
    cert = cert_of(pki, "leaf-256A.pem")[0]
    pkcs11.check(key)  # there
    cms.sign(b"before", cert, key)
    sctx = tls.Context(tls.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(pki + "chain-256A.pem", key)
    os.rename(token.d / folder, token.d / (folder + ".away"))
    deadline = time.monotonic() + 5 * time_scale()
    while True:  # the module looks at the folder at most once a millisecond
        try:
            pkcs11.check(key)
        except pkcs11.PKCS11Error as e:
            assert e.kind == pkcs11.Kind.REMOVED, e
            break
        assert time.monotonic() < deadline, "the removal was never seen"
        time.sleep(0.001)
    with pytest.raises(pkcs11.PKCS11Error, match="'gone' was removed") as e:
        cms.sign(b"after", cert, key)
    assert e.value.kind == pkcs11.Kind.REMOVED and e.value.__cause__ is not None
    with pytest.raises(pkcs11.PKCS11Error) as e:
        key.sign(b"after")
    assert e.value.kind == pkcs11.Kind.REMOVED
    srv = PyServer(sctx, lambda conn: None)
    with pytest.raises(OSError):  # the client sees the server give up
        connect(client_ctx(pki), srv.port).close()
    srv.join()
    # the server's handshake error: a PKCS11Error naming the removal that is
    # a TLSError (an ssl.SSLError) too, so a server loop's ssl handler has it
    assert [type(e) for e in srv.errors] == [tls.TLSTokenError], srv.errors
    err = srv.errors[0]
    assert isinstance(err, pkcs11.PKCS11Error) and isinstance(err, ssl.SSLError), srv.errors
    assert err.kind == pkcs11.Kind.REMOVED and isinstance(err.__cause__, tls.TLSError), srv.errors
    with pytest.raises(ValueError, match="open_key"):
        pkcs11.check(gostx.generate_private_key(gostx.Curve.GOST3410_256_A))


def test_2001_key_refused(token):
    """A GOST R 34.10-2001 key on the token (OpenSC's GOSTR3410 type: its hash
    parameters are GOST R 34.11-94's) is refused by name: PrivateKey and
    PublicKey are 2012 keys, whose signatures and key files would mislabel it."""
    tool = shutil.which("pkcs11-tool")
    if tool is None:
        pytest.skip("pkcs11-tool (OpenSC) not installed: it makes the 2001 key")
    subprocess.run([tool, "--module", token.module, "--token-label", "py", "-l", "--pin", PIN,
                    "--keypairgen", "--key-type", "GOSTR3410:A", "--label", "k2001",
                    "--id", "0e01"], capture_output=True, timeout=60, check=True)
    with pytest.raises(pkcs11.PKCS11Error, match="is a GOST R 34.10-2001 key") as e:
        pkcs11.open_key(token.uri("py", "k2001"), pin=PIN)
    assert e.value.kind == pkcs11.Kind.UNSUPPORTED


def test_finalize_closes_token_keys(token):
    key = pkcs11.open_key(token.uri("py", "leaf512"), pin=PIN)
    copy = key.__copy__()
    pkcs11.finalize()
    for k in (key, copy):
        with pytest.raises(ValueError, match="closed"):
            k.sign(b"x")
    again = pkcs11.open_key(token.uri("py", "leaf512"), pin=PIN)  # the module loads again
    again.public_key().verify(again.sign(b"x"), b"x")
