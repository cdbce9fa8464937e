"""Context.wrap_bio (gostx.tls.TLSObject, ssl.SSLObject's shape over two
ssl.MemoryBIO) and what runs on it: asyncio's own ssl= (open_connection
against `gostx tls serve`, start_server against asyncio and `gostx tls
client` clients), aiohttp when installed, two TLSObjects pumped by hand
(records past the C buffers, close_notify both ways, a ragged EOF);
version() after a ragged EOF on a TLSSocket; create_default_context()
trusting the system store (SSL_CERT_FILE, which ssl.get_default_verify_paths
reads). Skips as test_tls does."""
import asyncio
import os
import ssl

import pytest

from gostx import tls, x509

from test_asyncio import cli_client_reversed, echoed, reverse_framed, run
from test_tls import PyServer, client_ctx, connect, echo_port, serve, server_ctx  # noqa: F401

SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"  # Debian's: RSA and EC roots, no GOST


def test_asyncio_open_connection_ssl_through_serve(pki, serve):
    port = serve()
    data = os.urandom(300_000)  # several records, past the 64 KiB C buffers

    async def main():
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_ctx(pki),
                                                       server_hostname="localhost")
        obj = writer.get_extra_info("ssl_object")
        assert isinstance(obj, tls.TLSObject)
        assert obj.version() == "TLSv1.3" and obj.server_hostname == "localhost"
        assert writer.get_extra_info("cipher")[0].startswith("TLS_GOSTR341112_256_WITH_")
        assert writer.get_extra_info("peercert")["subject"][0] == (("commonName", "localhost"),)
        return await echoed(reader, writer, data)
    assert run(main()) == data


def test_asyncio_start_server_ssl_with_asyncio_and_cli_clients(cli, pki):
    async def handle(reader, writer):
        await reverse_framed(reader, writer)
        writer.close()  # close_notify, then the client's (TLSObject.unwrap)
        await writer.wait_closed()

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx(pki))
        port = server.sockets[0].getsockname()[1]
        async with server:
            data = os.urandom(1 << 20)
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           ssl=client_ctx(pki),
                                                           server_hostname="localhost")
            writer.write(b"%d\n" % len(data) + data)
            assert await reader.read() == data[::-1]  # to the server's close_notify
            writer.close()
            await writer.wait_closed()
            await cli_client_reversed(cli, pki, port)
    run(main())


def test_asyncio_refused_chain_raises_from_open_connection(pki, serve):
    port = serve()

    async def main():
        await asyncio.open_connection("127.0.0.1", port, ssl=client_ctx(pki),
                                      server_hostname="other.example")
    with pytest.raises(ssl.SSLCertVerificationError) as e:
        run(main())
    assert e.value.status == x509.Status.NAME_MISMATCH


def test_aiohttp_client_and_server(pki):
    aiohttp = pytest.importorskip("aiohttp")
    from aiohttp import web

    async def hello(request):
        body = await request.read()
        return web.Response(body=b"got " + body, headers={"X-Version": request.transport
                                                          .get_extra_info("ssl_object").version()})

    async def main():
        app = web.Application()
        app.router.add_post("/", hello)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_ctx(pki))
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        try:
            connector = aiohttp.TCPConnector(ssl=client_ctx(pki))
            async with aiohttp.ClientSession(connector=connector) as session:
                for i in range(3):  # keep-alive: one connection, three requests
                    async with session.post(f"https://localhost:{port}/", data=b"x%d" % i) as r:
                        assert r.status == 200
                        assert await r.read() == b"got x%d" % i
                        assert r.headers["X-Version"] == "TLSv1.3"
        finally:
            await runner.cleanup()
    run(main())


# ---- two TLSObjects, the bytes moved by hand ----

def _pair(pki):
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    client = client_ctx(pki).wrap_bio(c_in, c_out, server_hostname="localhost")
    server = server_ctx(pki).wrap_bio(s_in, s_out, server_side=True)
    return client, server, (c_in, c_out, s_in, s_out)


def _pump(bios):
    c_in, c_out, s_in, s_out = bios
    moved = c_out.pending + s_out.pending
    s_in.write(c_out.read())
    c_in.write(s_out.read())
    return moved


def _handshake(client, server, bios):
    for _ in range(10):
        for side in (client, server):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                pass
        if not _pump(bios):
            return
    raise AssertionError("the handshake did not settle")


def _until(step, bios, tries=50):
    """step() until it returns without wanting the peer's bytes."""
    for _ in range(tries):
        try:
            return step()
        except ssl.SSLWantReadError:
            _pump(bios)
    raise AssertionError("no progress")


def test_tls_object_pair_data_close_notify_and_ragged_eof(pki):
    client, server, bios = _pair(pki)
    with pytest.raises(tls.TLSWantReadError):
        client.do_handshake()  # the ClientHello is out, the answer is not in
    assert client.version() is None and bios[1].pending
    _handshake(client, server, bios)
    assert client.version() == server.version() == "TLSv1.3"
    assert server.server_hostname == "localhost"  # the SNI that came
    assert client.getpeercert()["subject"][0] == (("commonName", "localhost"),)
    assert server.getpeercert() is None  # no client certificate asked

    data = os.urandom(200_000)
    assert client.write(data) == len(data)
    got = bytearray()
    while len(got) < len(data):
        _pump(bios)
        buf = bytearray(70_000)
        try:
            got += buf[:server.read(len(buf), buf)]
        except ssl.SSLWantReadError:
            pass
    assert bytes(got) == data
    assert server.write(b"reply") == 5
    assert _until(lambda: client.read(), bios) == b"reply"

    # close_notify from the server, answered by the client's
    with pytest.raises(ssl.SSLWantReadError):
        server.unwrap()
    _pump(bios)
    assert client.read() == b""  # the server's close_notify
    assert client.unwrap() is None
    _pump(bios)
    assert server.unwrap() is None

    # a ragged EOF: the transport ends with no close_notify
    client, server, bios = _pair(pki)
    _handshake(client, server, bios)
    bios[0].write_eof()
    with pytest.raises(ssl.SSLEOFError):
        client.read()
    assert client.version() == "TLSv1.3"
    assert client.cipher()[1] == "TLSv1.3"


def test_wrap_bio_refuses_what_ssl_refuses(pki):
    with pytest.raises(TypeError):
        client_ctx(pki).wrap_bio(b"", ssl.MemoryBIO(), server_hostname="localhost")
    with pytest.raises(ValueError):
        client_ctx(pki).wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO())  # check_hostname, no name
    with pytest.raises(ValueError):
        server_ctx(pki).wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO())  # a server context
    with pytest.raises(TypeError):
        tls.TLSObject()


# ---- version() after a ragged EOF, on a TLSSocket ----

def test_version_after_ragged_eof(pki):
    def handler(conn):
        conn.sendall(b"bye")
        os.close(conn.detach())  # the TCP connection ends, no close_notify

    srv = PyServer(server_ctx(pki), handler)
    with connect(client_ctx(pki), srv.port) as s:
        assert s.recv(16) == b"bye"
        assert s.recv(16) == b""  # the EOF (suppress_ragged_eofs)
        assert s.cipher()[1] == "TLSv1.3"
        assert s.version() == "TLSv1.3"
    srv.join()
    assert not srv.errors


# ---- create_default_context: the system store ----

def _bundle(tmp_path, *parts):
    path = tmp_path / "bundle.pem"
    path.write_bytes(b"".join(parts))
    return str(path)


def test_create_default_context_trusts_the_system_store(pki, tmp_path, monkeypatch):
    with open(pki + "ca.pem", "rb") as f:
        gost_ca = f.read()
    others = b""
    if os.path.exists(SYSTEM_BUNDLE):  # a bundle as systems have, the GOST root in it
        with open(SYSTEM_BUNDLE, "rb") as f:
            others = f.read()
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))  # an empty folder
    monkeypatch.setenv("SSL_CERT_FILE", _bundle(tmp_path, others, gost_ca))
    assert ssl.get_default_verify_paths().cafile == str(tmp_path / "bundle.pem")

    srv = PyServer(server_ctx(pki), lambda conn: conn.sendall(b"hi"))
    with connect(tls.create_default_context(), srv.port) as s:
        assert s.recv(2) == b"hi"
    srv.join()


def test_create_default_context_with_a_system_store_of_no_gost_ca(pki, tmp_path, monkeypatch):
    if not os.path.exists(SYSTEM_BUNDLE):
        pytest.skip(f"no {SYSTEM_BUNDLE}")
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    monkeypatch.setenv("SSL_CERT_FILE", SYSTEM_BUNDLE)
    ctx = tls.create_default_context()  # no GOST root there: loads, trusts none
    srv = PyServer(server_ctx(pki), lambda conn: conn.recv(1))
    with pytest.raises(tls.TLSError, match="no trust store"):
        connect(ctx, srv.port)
    srv.lsock.close()
