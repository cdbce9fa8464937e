"""requests (gostx.tls.RequestsAdapter) and httpx (gostx.tls.HTTPTransport,
AsyncHTTPTransport) downloading from nginx behind `gostx tls serve` (TLS
1.3): keep-alive (several requests on one TLS connection: nginx's access
log shows them on one of its connections, and serve opens one backend
connection per TLS connection), a chunked body (nginx gzips on the fly:
chunked), a redirect, a read timeout, a handshake timeout and a refused
chain as each library names them. Skips without nginx, build/gostx, the
PKI, or the client library."""
import asyncio
import os
import pickle
import shutil
import socket
import subprocess
import time

import pytest

from gostx import tls

from conftest import body_of, time_scale


SIZES = (10, 1 << 20, 0, 77777, 1000)
CHUNKED = b"".join(b"line %d of a compressible body\n" % i for i in range(20000))
NGINX_CONF = """daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 256; }}
http {{
  log_format conn '$connection $request_uri';
  access_log {d}/access.log conn;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {d}/www;
    keepalive_timeout 60;
    absolute_redirect off;
    location /chunked/ {{ gzip on; gzip_types *; gzip_min_length 0; }}
    location = /redirect {{ return 302 /data/1000; }}
    location = /slow {{ proxy_pass http://127.0.0.1:{silent}; proxy_read_timeout 30s; }}
  }}
}}
"""


def _start_nginx(d, silent):
    """nginx on a free port (another one when it is taken): (process, port)."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for _ in range(5):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with open(f"{d}/nginx.conf", "w") as f:
            f.write(NGINX_CONF.format(d=d, port=port, silent=silent))
        p = subprocess.Popen([nginx, "-p", f"{d}/", "-e", f"{d}/error.log", "-c",
                              f"{d}/nginx.conf"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and p.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return p, port
            except OSError:
                time.sleep(0.05)
        p.kill()
        p.wait()
    with open(f"{d}/error.log") as f:
        raise AssertionError("nginx did not start: " + f.read()[-500:])


@pytest.fixture(scope="module")
def nginx(tmp_path_factory, silent_port):
    """nginx serving the test files: (port, the access log's path)."""
    if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        pytest.skip("nginx is not installed")
    d = tmp_path_factory.mktemp("nginx")
    for sub in ("www/data", "www/chunked"):
        (d / sub).mkdir(parents=True)
    for n in SIZES:
        (d / f"www/data/{n}").write_bytes(body_of(n))
    (d / "www/chunked/text").write_bytes(CHUNKED)
    p, port = _start_nginx(d, silent_port)
    yield port, d / "access.log"
    p.kill()
    p.wait()


@pytest.fixture
def https(serve_before, nginx):
    """serve(cert=, key=) in front of nginx: the base URL."""
    return lambda **kw: f"https://localhost:{serve_before(nginx[0], **kw)}"


# ---- the three clients, behind one shape ----

class RequestsClient:
    def __init__(self, ctx):
        requests = pytest.importorskip("requests")
        self.read_timeout = requests.exceptions.ReadTimeout
        # as with ssl: urllib3 reports a TLS handshake that outlasts the
        # connect timeout as a read timeout (timed by the connect timeout)
        self.connect_timeout = requests.exceptions.ReadTimeout
        self.refused = requests.exceptions.SSLError
        self.s = requests.Session()
        self.s.mount("https://", tls.RequestsAdapter(ctx))

    def get(self, url, read_timeout=20.0, connect_timeout=5.0):
        return self.s.get(url, timeout=(connect_timeout, read_timeout))

    def close(self):
        self.s.close()


class HttpxClient:
    def __init__(self, ctx):
        httpx = pytest.importorskip("httpx")
        self.httpx = httpx
        self.read_timeout, self.connect_timeout = httpx.ReadTimeout, httpx.ConnectTimeout
        self.refused = httpx.ConnectError
        self.c = httpx.Client(transport=tls.HTTPTransport(ctx), follow_redirects=True)

    def get(self, url, read_timeout=20.0, connect_timeout=5.0):
        return self.c.get(url, timeout=self.httpx.Timeout(connect_timeout, read=read_timeout))

    def close(self):
        self.c.close()


class AsyncHttpxClient(HttpxClient):
    """httpx.AsyncClient, its calls run one by one on a loop of its own (so
    its pooled connections live across them)."""

    def __init__(self, ctx):
        httpx = pytest.importorskip("httpx")
        self.httpx = httpx
        self.read_timeout, self.connect_timeout = httpx.ReadTimeout, httpx.ConnectTimeout
        self.refused = httpx.ConnectError
        self.loop = asyncio.new_event_loop()
        self.c = httpx.AsyncClient(transport=tls.AsyncHTTPTransport(ctx), follow_redirects=True)

    def get(self, url, read_timeout=20.0, connect_timeout=5.0):
        coro = self.c.get(url, timeout=self.httpx.Timeout(connect_timeout, read=read_timeout))
        return self.loop.run_until_complete(asyncio.wait_for(coro, 30))

    def close(self):
        if not self.loop.is_closed():
            self.loop.run_until_complete(self.c.aclose())
            self.loop.close()


CLIENTS = [RequestsClient, HttpxClient, AsyncHttpxClient]


@pytest.fixture(params=CLIENTS, ids=lambda c: c.__name__)
def client_of(request, pki):
    made = []

    def make(ca="ca.pem"):
        c = request.param(tls.create_default_context(cafile=pki + ca))
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def _connections_of(log, since, want):
    """nginx's connection numbers of the requests logged after byte since,
    once want of them are there or a load-scaled 5 s passed: nginx writes a
    request's line after its response went out, so the client may already
    hold the last response before its line is written (CI, 2026-11-30: 7
    of 8 lines read)."""
    deadline = time.monotonic() + 5 * time_scale()
    while True:
        with open(log, "rb") as f:
            f.seek(since)
            lines = [line.split()[0] for line in f.read().splitlines()]
        if len(lines) >= want or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_keep_alive_chunked_redirect(client_of, https, nginx):
    url = https()
    log = nginx[1]
    since = log.stat().st_size if log.exists() else 0
    c = client_of()
    for n in SIZES:
        r = c.get(f"{url}/data/{n}")
        assert r.status_code == 200 and r.content == body_of(n)
    r = c.get(f"{url}/chunked/text")
    assert r.headers["Transfer-Encoding"] == "chunked"
    assert r.headers["Content-Encoding"] == "gzip" and r.content == CHUNKED
    r = c.get(f"{url}/redirect")
    assert [h.status_code for h in r.history] == [302]
    assert str(r.url) == f"{url}/data/1000" and r.content == body_of(1000)
    conns = _connections_of(log, since, len(SIZES) + 3)
    assert len(conns) == len(SIZES) + 3, conns
    assert len(set(conns)) == 1, conns  # every request on one TLS connection


def test_read_timeout(client_of, https):
    url = https()
    c = client_of()
    t = time.monotonic()
    with pytest.raises(c.read_timeout):
        c.get(f"{url}/slow", read_timeout=0.3)
    assert time.monotonic() - t < 2.0
    assert c.get(f"{url}/data/10").content == body_of(10)  # the client goes on


def test_handshake_timeout(client_of, silent_port):
    """A server that accepts TCP but never answers the ClientHello."""
    c = client_of()
    t = time.monotonic()
    with pytest.raises(c.connect_timeout):
        c.get(f"https://localhost:{silent_port}/", connect_timeout=0.3)
    assert time.monotonic() - t < 2.0


def test_no_descriptor_left_by_failing_requests(client_of, https, silent_port):
    """100 requests failing (an unknown CA, a 10 ms handshake timeout), then
    the client closed: the descriptors as before it was made."""
    bad = https(cert="chain-bad-unknownca.pem", key="bad-unknownca.key")
    urls = [f"{bad}/data/10", f"https://localhost:{silent_port}/"]
    before = len(os.listdir("/proc/self/fd"))
    c = client_of()
    failed = 0
    for i in range(100):
        try:
            c.get(urls[i % 2], read_timeout=0.01, connect_timeout=0.01)
        except (c.refused, c.connect_timeout):
            failed += 1
    c.close()
    assert failed == 100
    assert len(os.listdir("/proc/self/fd")) <= before


def test_refused_chain(client_of, https):
    bad = https(cert="chain-bad-unknownca.pem", key="bad-unknownca.key")
    c = client_of()
    with pytest.raises(c.refused, match="unknown CA"):
        c.get(f"{bad}/data/10")


def test_async_concurrent_requests_share_the_pool(pki, https, nginx):
    """100 requests at once through AsyncHTTPTransport limited to 10
    connections: each body whole, and nginx sees at most 10 connections."""
    httpx = pytest.importorskip("httpx")
    url = https()
    log = nginx[1]
    since = log.stat().st_size if log.exists() else 0

    async def run():
        transport = tls.AsyncHTTPTransport(tls.create_default_context(cafile=pki + "ca.pem"),
                                           limits=httpx.Limits(max_connections=10))
        async with httpx.AsyncClient(transport=transport, timeout=20) as c:
            sizes = [SIZES[i % len(SIZES)] for i in range(100)]
            rs = await asyncio.gather(*(c.get(f"{url}/data/{n}") for n in sizes))
            return sizes, rs

    sizes, rs = asyncio.run(asyncio.wait_for(run(), 60))
    assert [r.content for r in rs] == [body_of(n) for n in sizes]
    conns = _connections_of(log, since, 100)
    assert len(conns) == 100 and len(set(conns)) <= 10, conns


def test_transport_arguments_refused():
    httpx = pytest.importorskip("httpx")
    with pytest.raises(ValueError, match="HTTP/1.1 only"):
        tls.HTTPTransport(http2=True)
    with pytest.raises(TypeError, match="client gostx.tls.Context"):
        tls.HTTPTransport(tls.Context(tls.PROTOCOL_TLS_SERVER))
    with pytest.raises(TypeError, match="client gostx.tls.Context"):
        tls.AsyncHTTPTransport(object())
    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(tls.AsyncHTTPTransport(limits=httpx.Limits(max_connections=1)))
