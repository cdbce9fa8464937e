"""gostx.tls.HTTPTransport / AsyncHTTPTransport: httpx over gostx.tls.

httpx hands its transport's ssl context to httpcore, which calls only
set_alpn_protocols and wrap_socket on it (the sync backend), so the sync
transport is httpx's own with the gostx Context as its context. httpcore's
async backend (anyio) needs ssl's MemoryBIO, which the library has no use
for, so the async transport is httpx's pool with a network backend of its
own: gostx.tls's asyncio streams (tls.open_connection's machinery, no
thread per connection) behind httpcore's stream interface."""
import asyncio
import select

import httpcore
import httpx

from . import tls
from ._asyncio import _connect_tcp, _wrap

__all__ = ["HTTPTransport", "AsyncHTTPTransport"]

_STREAM_LIMIT = 2 ** 16


def _client_context(context):
    if context is None:
        return tls.create_default_context()
    if not isinstance(context, tls.Context) or context.protocol != tls.PROTOCOL_TLS_CLIENT:
        raise tls.GostxTypeError("the transport needs a client gostx.tls.Context")
    return context


class HTTPTransport(httpx.HTTPTransport):
    """An httpx transport speaking GOST TLS through gostx.tls:

        client = httpx.Client(transport=gostx.tls.HTTPTransport(context))
        client.get("https://portal.example/")

    context: a client gostx.tls.Context (default: create_default_context(),
    which trusts only the system store's GOST CAs until told). The other arguments are
    httpx.HTTPTransport's but verify= (the context decides); HTTP/1.1."""

    def __init__(self, context=None, **kwargs):
        if kwargs.get("http2"):
            # httpcore would offer h2 in ALPN, then not see what was agreed
            # (it reads that from an ssl.SSLSocket only) and speak HTTP/1.1
            raise tls.GostxValueError("HTTPTransport speaks HTTP/1.1 only (http2=True refused)")
        super().__init__(verify=_client_context(context), **kwargs)

    def __getstate__(self):
        raise tls.GostxTypeError("cannot pickle HTTPTransport objects: their Context holds keys")


class AsyncHTTPTransport(httpx.AsyncHTTPTransport):
    """httpx.AsyncClient's transport over gostx.tls (asyncio):

        async with httpx.AsyncClient(transport=gostx.tls.AsyncHTTPTransport(ctx)) as c:
            r = await c.get("https://portal.example/")

    HTTP/1.1, no proxy; limits, local_address, retries and socket_options
    as httpx.AsyncHTTPTransport's."""

    def __init__(self, context=None, *, limits=None, local_address=None, retries=0,
                 socket_options=None):
        # httpx.AsyncHTTPTransport.__init__ would build a pool on anyio's
        # backend; this builds the same pool on ours instead.
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_client_context(context),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            local_address=local_address, retries=retries, socket_options=socket_options,
            network_backend=_AsyncBackend())

    def __getstate__(self):
        raise tls.GostxTypeError("cannot pickle AsyncHTTPTransport objects: their Context "
                                 "holds keys")


class _mapped:
    """Re-raise the first matching exception type as httpcore's (the order
    matters: asyncio's timeout is an OSError since 3.11)."""

    def __init__(self, *pairs):
        self._pairs = pairs

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None:
            return False
        for source, target in self._pairs:
            if isinstance(exc, source):
                raise target(exc) from exc
        return False


def _timeouts(timeout_kind, other_kind):
    return ((asyncio.TimeoutError, timeout_kind), (OSError, other_kind))


_CONNECT = _timeouts(httpcore.ConnectTimeout, httpcore.ConnectError)
_READ = _timeouts(httpcore.ReadTimeout, httpcore.ReadError)
_WRITE = _timeouts(httpcore.WriteTimeout, httpcore.WriteError)


class _AsyncBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend on asyncio sockets, TLS by gostx.tls."""

    async def connect_tcp(self, host, port, timeout=None, local_address=None,
                          socket_options=None):
        loop = asyncio.get_running_loop()
        with _mapped(*_CONNECT):
            raw = await asyncio.wait_for(
                _connect_tcp(loop, host, port, local_address, socket_options), timeout)
        return _AsyncTCPStream(loop, raw)

    async def sleep(self, seconds):
        await asyncio.sleep(seconds)


class _AsyncTCPStream(httpcore.AsyncNetworkStream):
    """A plain connection (http://), and where start_tls begins."""

    def __init__(self, loop, sock):
        self._loop, self._sock = loop, sock

    async def read(self, max_bytes, timeout=None):
        with _mapped(*_READ):
            return await asyncio.wait_for(self._loop.sock_recv(self._sock, max_bytes), timeout)

    async def write(self, buffer, timeout=None):
        with _mapped(*_WRITE):
            await asyncio.wait_for(self._loop.sock_sendall(self._sock, buffer), timeout)

    async def aclose(self):
        self._sock.close()

    async def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        try:
            with _mapped(*_CONNECT):
                reader, writer = await _wrap(self._loop, self._sock, ssl_context, False,
                                             server_hostname, _STREAM_LIMIT, timeout)
        finally:
            self._sock.close()  # detached by wrap_socket when it took it
        return _AsyncTLSStream(reader, writer)

    def get_extra_info(self, info):
        if info == "socket":
            return self._sock
        if info == "is_readable":  # an idle connection with data or EOF: not reusable
            poller = select.poll()
            poller.register(self._sock.fileno(), select.POLLIN)
            return bool(poller.poll(0))
        return _address_info(self._sock, info)


class _AsyncTLSStream(httpcore.AsyncNetworkStream):
    """gostx.tls's asyncio streams behind httpcore's stream interface."""

    def __init__(self, reader, writer):
        self._reader, self._writer = reader, writer

    async def read(self, max_bytes, timeout=None):
        with _mapped(*_READ):
            return await asyncio.wait_for(self._reader.read(max_bytes), timeout)

    async def write(self, buffer, timeout=None):
        with _mapped(*_WRITE):
            self._writer.write(buffer)
            await asyncio.wait_for(self._writer.drain(), timeout)

    async def aclose(self):
        self._writer.close()  # what is queued, close_notify, then the descriptor
        try:
            await asyncio.wait_for(self._writer.wait_closed(), 5)
        except (OSError, tls.GostxError, asyncio.TimeoutError):
            self._writer.transport.abort()

    async def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        raise httpcore.ConnectError("TLS inside TLS (an HTTPS proxy) is not supported")

    def get_extra_info(self, info):
        if info == "is_readable":  # the peer closed or failed: not reusable
            return self._reader.at_eof() or self._reader.exception() is not None
        if info in ("ssl_object", "socket"):
            return self._writer.get_extra_info(info)
        return _address_info(self._writer.get_extra_info("socket"), info)


def _address_info(sock, info):
    try:
        if info == "client_addr":
            return sock.getsockname()
        if info == "server_addr":
            return sock.getpeername()
    except OSError:
        pass
    return None
