"""A qualified-signature PKI made by the gostx command alone, for
test_ocsp.py and test_cades.py: a root CA (512A) that issues through
`gostx ca` (an openssl-format index), a delegated OCSP responder (EKU
OCSPSigning) and one without the EKU, a signer (good) and a revoked
certificate, a TSA (critical EKU timeStamping), a CRL (`gostx ca -gencrl`)
and OCSP responses from `gostx ocsp -reqin -respout` (no network)."""
import os
import pathlib
import shutil
import subprocess

import gostx
from gostx import x509

REPO = pathlib.Path(__file__).resolve().parents[2]
ENGINE_CNF = REPO / "tests" / "support" / "gost_engine.cnf"


class Pki:
    def __init__(self, cli, d):
        self.cli, self.d = cli, pathlib.Path(d)

    def run(self, *args, **kw):
        return subprocess.run([self.cli, *map(str, args)], cwd=self.d, check=True,
                              capture_output=True, timeout=60, **kw)

    def path(self, name):
        return str(self.d / name)

    def cert(self, name):
        return x509.load_pem_x509_certificate((self.d / f"{name}.pem").read_bytes())

    def key(self, name):
        return gostx.load_pem_private_key((self.d / f"{name}.key").read_bytes())

    def store(self):
        s = x509.Store()
        s.load_verify_locations(cafile=self.path("ca.pem"))
        return s

    def ocsp_respond(self, req_der, name, signer="rsp", *extra, ca="ca"):
        """`gostx ocsp` as responder for CA, once, from a file: the response's DER."""
        (self.d / f"{name}.req").write_bytes(req_der)
        self.run("ocsp", "-index", "index.txt", "-CA", f"{ca}.pem", "-rsigner", f"{signer}.pem",
                 "-rkey", f"{signer}.key", "-nmin", "5", "-reqin", f"{name}.req",
                 "-respout", f"{name}.resp", *extra)
        return (self.d / f"{name}.resp").read_bytes()

    def ts_reply(self, query, name="q"):
        """`gostx ts -reply` for a TimeStampReq: the TimeStampResp's DER."""
        (self.d / f"{name}.tsq").write_bytes(query)
        self.run("ts", "-reply", "-queryfile", f"{name}.tsq", "-signer", "tsa.pem", "-inkey",
                 "tsa.key", "-chain", "ca.pem", "-serial", "tsa.serial", "-out", f"{name}.tsr")
        return (self.d / f"{name}.tsr").read_bytes()


def make(cli, d):
    p = Pki(cli, d)
    p.run("genpkey", "-c", "512A", "-o", "ca.key")
    p.run("req", "-x509", "-ca", "-key", "ca.key", "-subj", "/CN=esign test CA", "-days", "30",
          "-set_serial", "1", "-out", "ca.pem")
    exts = {"rsp": "extendedKeyUsage = OCSPSigning\n",
            "leaf": "keyUsage = critical,digitalSignature,nonRepudiation\n",
            "tsa": "basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\n"
                   "extendedKeyUsage = critical,timeStamping\n"}
    for kind, text in exts.items():
        (p.d / f"{kind}.ext").write_text(text)
    for name, kind in (("rsp", "rsp"), ("norsp", "leaf"), ("signer", "leaf"), ("revoked", "leaf"),
                       ("tsa", "tsa")):
        p.run("genpkey", "-c", "256A", "-o", f"{name}.key")
        p.run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr")
        p.run("ca", "-in", f"{name}.csr", "-cert", "ca.pem", "-keyfile", "ca.key", "-index",
              "index.txt", "-extfile", f"{kind}.ext", "-out", f"{name}.pem")
    p.run("ca", "-revoke", "revoked.pem", "-index", "index.txt", "-cert", "ca.pem",
          "-crl_reason", "keyCompromise")
    p.run("ca", "-gencrl", "-cert", "ca.pem", "-keyfile", "ca.key", "-index", "index.txt",
          "-out", "ca.crl")
    return p


def openssl_gost():
    """openssl with gost-engine, or None."""
    if shutil.which("openssl") is None:
        return None
    env = dict(os.environ, OPENSSL_CONF=str(ENGINE_CNF))
    r = subprocess.run(["openssl", "engine", "gost"], capture_output=True, env=env)
    return env if r.returncode == 0 else None
