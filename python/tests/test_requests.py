"""gostx.tls.RequestsAdapter: requests through `gostx tls serve` in front of
an HTTP/1.1 server on a thread of this process: keep-alive (several
requests, one TLS connection), a chunked body, a redirect, a POST, read
timeouts, verify= (a path, False) and cert=, and a refused chain reported
as requests.exceptions.SSLError naming the check. Skips without requests,
build/gostx or openssl with gost-engine (the PKI)."""
import hashlib
import http.server
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from gostx import tls

from conftest import body_of

requests = pytest.importorskip("requests")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    peers = set()  # the backend connections seen (serve opens one per TLS connection)

    def log_message(self, *args):
        pass

    def _send(self, code, body, **headers):
        self.send_response(code)
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        Handler.peers.add(self.client_address)
        path, _, query = self.path.partition("?")
        if path == "/data":
            self._send(200, body_of(int(query or 0)))
        elif path == "/redirect":
            self._send(302, b"", Location="/data?1000")
        elif path == "/slow":
            time.sleep(1.5)
            self._send(200, b"late")
        elif path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(50):
                piece = body_of(1000 + i)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._send(404, b"")

    def do_POST(self):
        data = self.rfile.read(int(self.headers["Content-Length"]))
        self._send(200, hashlib.sha256(data).hexdigest().encode())


@pytest.fixture(scope="module")
def http_port():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def https(serve_before, http_port):
    """serve(*args, cert=, key=) in front of the HTTP server: the base URL."""
    return lambda *args, **kw: f"https://localhost:{serve_before(http_port, *args, **kw)}"


def session_with(pki, **kw):
    ctx = tls.create_default_context(cafile=pki + "ca.pem")
    s = requests.Session()
    s.mount("https://", tls.RequestsAdapter(ctx, **kw))
    return s


def test_keep_alive_chunked_redirect_post(pki, https):
    url = https()
    Handler.peers.clear()
    with session_with(pki) as s:
        for n in (10, 1 << 20, 0, 77777):
            r = s.get(f"{url}/data?{n}", timeout=20)
            assert r.status_code == 200 and r.content == body_of(n)
        r = s.get(f"{url}/chunked", timeout=20)
        assert r.headers["Transfer-Encoding"] == "chunked"
        assert r.content == b"".join(body_of(1000 + i) for i in range(50))
        r = s.get(f"{url}/redirect", timeout=20)
        assert [h.status_code for h in r.history] == [302]
        assert r.url == f"{url}/data?1000" and r.content == body_of(1000)
        data = body_of(3 << 20)
        r = s.post(f"{url}/upload", data=data, timeout=20)
        assert r.text == hashlib.sha256(data).hexdigest()
    assert len(Handler.peers) == 1, Handler.peers  # every request on one TLS connection


def test_read_timeout(pki, https):
    url = https()
    with session_with(pki) as s:
        t = time.monotonic()
        with pytest.raises(requests.exceptions.ReadTimeout):
            s.get(f"{url}/slow", timeout=(5, 0.3))
        assert time.monotonic() - t < 1.4


def test_verify_path_false_and_refusal(pki, https):
    url = https()
    bad = https(cert="chain-bad-unknownca.pem", key="bad-unknownca.key")
    s = requests.Session()
    s.mount("https://", tls.RequestsAdapter())  # trusts nothing until told
    with pytest.raises(requests.exceptions.SSLError, match="no trust store"):
        s.get(f"{url}/data?5", timeout=20)
    assert s.get(f"{url}/data?5", verify=pki + "ca.pem", timeout=20).content == body_of(5)
    with pytest.raises(requests.exceptions.SSLError, match="unknown CA"):
        s.get(f"{bad}/data?5", verify=pki + "ca.pem", timeout=20)
    with pytest.warns(requests.urllib3.exceptions.InsecureRequestWarning):  # as urllib3 says it
        assert s.get(f"{bad}/data?6", verify=False, timeout=20).content == body_of(6)


def test_client_certificate(pki, https):
    url = https("--ca", pki + "ca.pem", "--require-client")
    with session_with(pki) as s:
        r = s.get(f"{url}/data?9", cert=(pki + "chain-256B.pem", pki + "leaf-256B.key"),
                  timeout=20)
        assert r.content == body_of(9)
        with pytest.raises(requests.exceptions.ConnectionError, match="certificate_required"):
            s.get(f"{url}/data?9", timeout=20)


# ---- the README's example, as written ----

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"

# Run in a network namespace of its own (so localhost:8443 is ours): lo up,
# an HTTP backend on a thread, `gostx tls serve` on 127.0.0.1:8443 in front
# of it, then the example's text.
_IN_NAMESPACE = r"""
import http.server, subprocess, sys, threading
from conftest import read_port

cli, chain, key, example = sys.argv[1:5]
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "19")
        self.end_headers()
        self.wfile.write(b"hello from the test")

    def log_message(self, *args):
        pass

backend = http.server.HTTPServer(("127.0.0.1", 0), Hello)
threading.Thread(target=backend.serve_forever, daemon=True).start()
serve = subprocess.Popen([cli, "tls", "serve", "--listen", "127.0.0.1:8443", "--backend",
                          "127.0.0.1:%d" % backend.server_address[1], "--cert", chain,
                          "--key", key], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
try:
    read_port(serve, r"listening on [^ ]*:(\d+),")
    exec(compile(example, "python/README.md requests example", "exec"), {})
finally:
    serve.kill()
    serve.wait()
"""


TOP_README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def readme_requests_example():
    """The README's indented requests example, dedented; the top-level
    README carries the same five lines (checked here, so neither rots)."""
    m = re.search(r"\n((?: {6}.*\n)+)", README.read_text().split("`RequestsAdapter(context)`", 1)[1])
    example = textwrap.dedent(m.group(1))
    if TOP_README.exists():  # an sdist's tests have no top-level README
        top = TOP_README.read_text().split("A GOST TLS endpoint from `requests`", 1)
        assert len(top) == 2, "the top-level README lost its requests example"
        t = re.search(r"\n((?: {4}.*\n)+)", top[1])
        assert t and textwrap.dedent(t.group(1)) == example, "the two READMEs' examples differ"
    return example


def test_readme_example_runs_as_written(cli, pki, tmp_path):
    example = readme_requests_example()
    assert len(example.splitlines()) == 5 and "RequestsAdapter" in example, example
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare and ip are needed for a network namespace")
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode:
        pytest.skip("cannot make a network namespace (not root?)")
    shutil.copy(pki + "ca.pem", tmp_path / "ca.pem")
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parent))
    r = subprocess.run(["unshare", "--net", sys.executable, "-c", _IN_NAMESPACE, cli,
                        pki + "chain-256A.pem", pki + "leaf-256A.key", example],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "hello from the test\n"
