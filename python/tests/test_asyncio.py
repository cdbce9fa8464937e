"""gostx.tls.open_connection / start_server: asyncio streams over GOST TLS,
no thread per connection. 200 concurrent clients through `gostx tls serve`
(each its own bytes echoed back), an asyncio server with asyncio and
`gostx tls client` clients, readline/readexactly, drain under a large
write, a refused chain raised from open_connection, a handshake timeout.
Skips as test_tls does."""
import asyncio
import os
import socket
import subprocess

import pytest

from gostx import tls, x509

from test_tls import client_ctx, echo_port, serve, server_ctx  # noqa: F401  (fixtures)


def run(coro, seconds=30):
    return asyncio.run(asyncio.wait_for(coro, seconds))


async def _echo_once(ctx, port, data):
    reader, writer = await tls.open_connection("127.0.0.1", port, context=ctx,
                                               server_hostname="localhost")
    return await echoed(reader, writer, data)


async def echoed(reader, writer, data):
    """data sent to an echo server and as much read back; the stream closed."""
    writer.write(data)
    await writer.drain()
    got = await reader.readexactly(len(data))
    writer.close()
    await writer.wait_closed()
    return got


def test_200_concurrent_clients_through_serve(pki, serve):
    port = serve("--threads", "2")
    ctx = client_ctx(pki)
    datas = [os.urandom(1000 + i) for i in range(200)]

    async def main():
        return await asyncio.gather(*(_echo_once(ctx, port, d) for d in datas))
    assert run(main()) == datas


async def reverse_framed(reader, writer):
    """The servers' side of cli_client_reversed: a length line and a body
    read, the body written back reversed and drained (2 MiB here: past the
    high-water mark)."""
    line = await reader.readline()
    body = await reader.readexactly(int(line))
    writer.write(body[::-1])
    await writer.drain()


def test_asyncio_server_with_asyncio_and_cli_clients(cli, pki):
    async def handle(reader, writer):
        await reverse_framed(reader, writer)
        writer.write_eof()  # close_notify
        assert await reader.read() == b""
        writer.close()

    async def main():
        server = await tls.start_server(handle, "127.0.0.1", 0, context=server_ctx(pki))
        port = server.sockets[0].getsockname()[1]
        # a small window: the client's writes fill it, so the transport
        # waits on writable with records queued in C (gostx_tls_unsent)
        server.sockets[0].setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        async with server:
            data = os.urandom(2 << 20)
            reader, writer = await tls.open_connection("127.0.0.1", port,
                                                       context=client_ctx(pki),
                                                       server_hostname="localhost")
            assert writer.get_extra_info("cipher")[1] == "TLSv1.3"
            assert writer.get_extra_info("peercert")["subject"][0] == (("commonName", "localhost"),)
            writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            writer.write(b"%d\n" % len(data) + data)
            await writer.drain()
            assert await reader.read() == data[::-1]
            writer.close()
            await writer.wait_closed()
            await cli_client_reversed(cli, pki, port)
    run(main())


async def cli_client_reversed(cli, pki, port):
    """`gostx tls client` sends a length line and a body to port; the
    server answers the body reversed."""
    small = b"from gostx tls client"
    r = await asyncio.create_subprocess_exec(
        cli, "tls", "client", f"127.0.0.1:{port}", "--ca", pki + "ca.pem",
        "--servername", "localhost", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    out, err = await r.communicate(b"%d\n" % len(small) + small)
    assert r.returncode == 0, err
    assert out == small[::-1]


def test_refused_chain_and_handshake_timeout(pki, serve):
    port = serve(cert="chain-bad-unknownca.pem", key="bad-unknownca.key")

    async def refused():
        await tls.open_connection("127.0.0.1", port, context=client_ctx(pki),
                                  server_hostname="localhost")
    with pytest.raises(tls.TLSCertVerificationError) as e:
        run(refused())
    assert e.value.status == x509.Status.UNKNOWN_CA

    async def idle(reader, writer):
        try:
            await asyncio.sleep(30)
        finally:
            writer.close()

    async def silent():
        server = await asyncio.start_server(idle, "127.0.0.1", 0)
        async with server:
            await tls.open_connection("127.0.0.1", server.sockets[0].getsockname()[1],
                                      context=client_ctx(pki), server_hostname="localhost",
                                      ssl_handshake_timeout=0.3)
    with pytest.raises(asyncio.TimeoutError):
        run(silent())
