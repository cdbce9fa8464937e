"""Shared fixtures: the standards' vectors (tests/vectors of the repository,
or GOSTX_VECTORS), the gostx command (GOSTX_CLI, else build/gostx), the
GOST test PKI of tests/support/gost_pki.sh (GOSTX_TLS_PKI, else made), its
certificates and a Store trusting its root, `gostx tls serve` in front of a
backend and a port that never answers."""
import hashlib
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def time_scale():
    """What a peer's time limit is multiplied by on a busy or slow machine,
    as the C and shell tests do (tests/README.md, "Waiting on a busy or slow
    machine"): GOSTX_TEST_TIME_SCALE, else GOSTX_TEST_TIME_FACTOR (default 1)
    times the load per core rounded up, 1 to 8. Never what a test checks."""
    fixed = os.environ.get("GOSTX_TEST_TIME_SCALE")
    if fixed:
        return float(fixed)
    factor = float(os.environ.get("GOSTX_TEST_TIME_FACTOR") or 1)
    if factor <= 0:
        raise ValueError(f"GOSTX_TEST_TIME_FACTOR={factor}: not a positive number")
    per_core = -(-os.getloadavg()[0] // (os.cpu_count() or 1))
    return factor * min(max(per_core, 1), 8)


def load_vectors(name):
    base = pathlib.Path(os.environ.get("GOSTX_VECTORS", REPO / "tests" / "vectors"))
    with open(base / name) as f:
        return json.load(f)["cases"]


@pytest.fixture(scope="session")
def cli():
    """Path of the gostx command; tests that need it skip when it is absent."""
    path = os.environ.get("GOSTX_CLI") or shutil.which("gostx")
    if not path and (REPO / "build" / "gostx").exists():
        path = str(REPO / "build" / "gostx")
    if not path:
        pytest.skip("gostx command not built (make build, or set GOSTX_CLI)")
    return path


@pytest.fixture(scope="session")
def pki(cli, tmp_path_factory):
    """The test PKI's folder (with a trailing /): beside a gostx built in the
    repository, as tests/net/tls_common.sh keeps it (made under the same
    lock), else a fresh one. Skips without openssl and gost-engine."""
    path = os.environ.get("GOSTX_TLS_PKI")
    if not path:
        here = pathlib.Path(cli).resolve().parent
        inside = REPO in here.parents
        path = str(here / "test-pki-tls") if inside else str(tmp_path_factory.mktemp("pki") / "pki")
    if shutil.which("flock") is None or shutil.which("openssl") is None:
        pytest.skip("flock and openssl are needed for the test PKI")
    r = subprocess.run(["flock", path + ".lock", "bash", str(REPO / "tests/support/gost_pki.sh"),
                        path], capture_output=True, text=True, timeout=120)
    if r.returncode == 77:
        pytest.skip("openssl with gost-engine is needed for the test PKI")
    assert r.returncode == 0, r.stderr
    return path + "/"


def pki_certs(pki, name):
    """The certificates of the PEM file NAME in the test PKI."""
    from gostx import x509
    with open(pki + name, "rb") as f:
        return x509.load_pem_x509_certificates(f.read())


@pytest.fixture
def store(pki):
    """An x509.Store that trusts the test PKI's root (ca.pem)."""
    from gostx import x509
    s = x509.Store()
    s.load_verify_locations(cafile=pki + "ca.pem")
    return s


@pytest.fixture(scope="module")
def silent_port():
    """A listener that never answers (its backlog takes the connections:
    room for every test's, so none times out in TCP's connect)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1024)
    yield s.getsockname()[1]
    s.close()


def body_of(n):
    """n deterministic bytes."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha512(i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:n])


def read_port(proc, pattern, seconds=20):
    """The port a starting process names on stderr (bounded wait)."""
    lines = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(pattern, line)
        if m:
            return int(m.group(1))
    proc.kill()
    raise AssertionError("peer did not start: " + "".join(lines))


@pytest.fixture
def serve_before(cli, pki):
    """serve_before(backend_port, *args, cert=, key=): `gostx tls serve` on
    a free loopback port in front of 127.0.0.1:backend_port (chain-256A by
    default); its port. Every one started is killed at the end."""
    procs = []

    def start(backend_port, *args, cert="chain-256A.pem", key="leaf-256A.key"):
        cmd = [cli, "tls", "serve", "--listen", "127.0.0.1:0", "--backend",
               f"127.0.0.1:{backend_port}", "--cert", pki + cert, "--key", pki + key, *args]
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        procs.append(p)
        return read_port(p, r"listening on [^ ]*:(\d+),")

    yield start
    for p in procs:
        p.kill()
        p.wait()
        p.stderr.close()


@pytest.fixture(scope="session")
def esign(cli, tmp_path_factory):
    """esign_pki.py's PKI (CA, OCSP responders, signer, revoked, TSA, CRL),
    made once by the gostx command."""
    import esign_pki
    return esign_pki.make(cli, tmp_path_factory.mktemp("esign"))
