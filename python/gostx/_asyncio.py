"""gostx.tls.open_connection / start_server: asyncio streams over GOST TLS.

No thread per connection: each connection is a TLSSocket in non-blocking
mode whose descriptor the event loop watches (add_reader/add_writer); the
library's WANT_READ / WANT_WRITE (TLSWantReadError / TLSWantWriteError)
say what to wait for, and records queued in C (gostx_tls_unsent) keep the
writer watched until they are out. The handshake, record sealing and
opening are C calls that release the GIL but run on the loop's thread, as
ssl's do in asyncio."""
import asyncio
import socket

from . import tls
from ._native import lib

__all__ = ["open_connection", "start_server"]

_READ_CHUNK = 65536
_HIGH_WATER = 256 * 1024  # StreamWriter.drain() waits above this much unsent


async def _wait_fd(loop, fd, write):
    """Until fd is readable (write False: also writable when records wait
    to go out, tls.h's rule) or writable."""
    fut = loop.create_future()

    def ready():
        if not fut.done():
            fut.set_result(None)

    (loop.add_writer if write else loop.add_reader)(fd, ready)
    try:
        await fut
    finally:
        (loop.remove_writer if write else loop.remove_reader)(fd)


async def _handshake(loop, sock):
    while True:
        try:
            sock.do_handshake()
            return
        except tls.TLSWantReadError:
            await _wait_fd(loop, sock.fileno(), False)
        except tls.TLSWantWriteError:
            await _wait_fd(loop, sock.fileno(), True)


class _Transport(asyncio.Transport):
    """An asyncio transport over a TLSSocket whose handshake is done."""

    def __init__(self, loop, sock, protocol):
        super().__init__({"socket": sock, "ssl_object": sock})
        self._loop, self._sock, self._protocol = loop, sock, protocol
        self._fd = sock.fileno()
        self._out = bytearray()
        self._reading = True
        self._writer_on = False
        self._write_paused = False
        self._closing = False
        self._closed = False
        self._eof_sent = False

    def _start(self):
        self._protocol.connection_made(self)
        self._loop.add_reader(self._fd, self._on_readable)
        self._loop.call_soon(self._on_readable)  # records already read ahead

    # -- extra info as asyncio's SSL transport gives it --

    def get_extra_info(self, name, default=None):
        sock = self._sock
        if name == "peercert":
            return sock.getpeercert() if not self._closed else default
        if name == "cipher":
            return sock.cipher()
        if name == "peername":
            return _or(sock.getpeername, default)
        if name == "sockname":
            return _or(sock.getsockname, default)
        return super().get_extra_info(name, default)

    # -- reading --

    def _on_readable(self):
        if self._closed or not self._reading:
            return
        try:
            data = self._sock.recv(_READ_CHUNK)
            while data:
                self._protocol.data_received(data)
                if self._closed or not self._reading:
                    return
                data = self._sock.recv(_READ_CHUNK)
        except tls.TLSWantReadError:
            return self._flush()  # reading may have left records to send
        except tls.TLSWantWriteError:
            return self._flush()
        except (OSError, tls.GostxError) as e:
            return self._fatal(e)
        self._on_eof()

    def _on_eof(self):
        self._loop.remove_reader(self._fd)
        self._reading = False
        keep_open = self._protocol.eof_received()
        if not keep_open:
            self.close()

    def pause_reading(self):
        if self._reading and not self._closed:
            self._reading = False
            self._loop.remove_reader(self._fd)

    def resume_reading(self):
        if not self._reading and not self._closed:
            self._reading = True
            self._loop.add_reader(self._fd, self._on_readable)
            self._loop.call_soon(self._on_readable)

    def is_reading(self):
        return self._reading

    # -- writing --

    def write(self, data):
        if self._closing or self._eof_sent:
            raise RuntimeError("write after close or write_eof")
        self._out += data
        self._flush()

    def _unsent(self):
        return self._sock._peek(lib.gostx_tls_unsent, 0)

    def _flush(self):
        """Hand what is buffered to the library, then watch for writable
        while any of it (or of its records) waits."""
        if self._closed:
            return
        try:
            while self._out:
                n = self._sock.send(self._out)
                del self._out[:n]
            if self._unsent():
                self._sock.send(b"")  # pushes the queued records
        except (tls.TLSWantWriteError, tls.TLSWantReadError):
            pass
        except (OSError, tls.GostxError) as e:
            return self._fatal(e)
        waiting = bool(self._out) or self._unsent() > 0
        if waiting and not self._writer_on:
            self._loop.add_writer(self._fd, self._flush)
        elif not waiting and self._writer_on:
            self._loop.remove_writer(self._fd)
        self._writer_on = waiting
        self._flow()
        if not waiting and self._closing:
            self._finish(None)

    def _flow(self):
        size = self.get_write_buffer_size()
        if not self._write_paused and size > _HIGH_WATER:
            self._write_paused = True
            self._protocol.pause_writing()
        elif self._write_paused and size <= _HIGH_WATER // 4:
            self._write_paused = False
            self._protocol.resume_writing()

    def get_write_buffer_size(self):
        return len(self._out) + (self._unsent() if not self._closed else 0)

    def can_write_eof(self):
        return True

    def write_eof(self):
        """close_notify once what is buffered is out (a TLS half-close)."""
        if not self._eof_sent:
            self._eof_sent = True
            self._flush()
            try:
                self._sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    # -- ending --

    def is_closing(self):
        return self._closing or self._closed

    def close(self):
        """Send what is buffered, then close_notify and close."""
        if self._closing or self._closed:
            return
        self._closing = True
        self._loop.remove_reader(self._fd)
        self._flush()

    def abort(self):
        self._finish(None)

    def _fatal(self, exc):
        self._finish(exc)

    def _finish(self, exc):
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)
        self._out.clear()
        self._sock.close()  # close_notify when it goes without waiting
        self._loop.call_soon(self._protocol.connection_lost, exc)


def _or(fn, default):
    try:
        return fn()
    except OSError:
        return default


async def _wrap(loop, raw, context, server_side, server_hostname, limit, timeout):
    """(reader, writer) of a TLS connection over the connected socket raw."""
    raw.setblocking(False)
    sock = context.wrap_socket(raw, server_side=server_side, server_hostname=server_hostname,
                               do_handshake_on_connect=False)
    try:
        await asyncio.wait_for(_handshake(loop, sock), timeout)
    except BaseException:
        sock.close()
        raise
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport = _Transport(loop, sock, protocol)
    transport._start()
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


async def _connect_tcp(loop, host, port, local_address=None, socket_options=()):
    """A connected non-blocking socket to host:port (each address tried in
    turn; the last one's error when none answers)."""
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    error = None
    for family, type_, proto, _, addr in infos:
        raw = socket.socket(family, type_, proto)
        try:
            raw.setblocking(False)
            for option in socket_options or ():
                raw.setsockopt(*option)
            if local_address is not None:
                raw.bind((local_address, 0))
            await loop.sock_connect(raw, addr)
            return raw
        except BaseException as e:
            raw.close()
            if not isinstance(e, OSError):
                raise
            error = e
    raise error or OSError(f"cannot resolve {host!r}")


async def open_connection(host, port, *, context, server_hostname=None, limit=2 ** 16,
                          ssl_handshake_timeout=60.0):
    """(StreamReader, StreamWriter) of a GOST TLS connection to host:port,
    as asyncio.open_connection(ssl=...) gives: context a client
    gostx.tls.Context, server_hostname default host (the name verified and
    sent as SNI)."""
    loop = asyncio.get_running_loop()
    raw = await _connect_tcp(loop, host, port)
    if server_hostname is None and context.check_hostname:
        server_hostname = host
    return await _wrap(loop, raw, context, False, server_hostname, limit, ssl_handshake_timeout)


class Server:
    """What start_server returns (asyncio.Server's close, wait_closed,
    sockets, serve_forever and async with)."""

    def __init__(self, loop, lsock, serve_one):
        self._loop, self._lsock, self._serve_one = loop, lsock, serve_one
        self._tasks = set()
        self._closed = loop.create_future()
        loop.add_reader(lsock.fileno(), self._accept)

    @property
    def sockets(self):
        return () if self._closed.done() else (self._lsock,)

    def _accept(self):
        for _ in range(64):  # a burst, then back to the loop
            try:
                raw, _ = self._lsock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return  # EMFILE, ECONNABORTED: the next readiness tries again
            task = self._loop.create_task(self._serve_one(raw))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def is_serving(self):
        return not self._closed.done()

    def close(self):
        """Stop accepting; connections already made go on."""
        if not self._closed.done():
            self._loop.remove_reader(self._lsock.fileno())
            self._lsock.close()
            self._closed.set_result(None)

    async def wait_closed(self):
        await asyncio.shield(self._closed)

    async def serve_forever(self):
        try:
            await asyncio.shield(self._closed)
        finally:
            self.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.close()
        await self.wait_closed()


async def start_server(client_connected_cb, host=None, port=None, *, context, limit=2 ** 16,
                       backlog=100, ssl_handshake_timeout=60.0):
    """Serve GOST TLS on host:port (context a server gostx.tls.Context):
    client_connected_cb(reader, writer), a function or coroutine, runs for
    each connection once its handshake is done; a failed handshake closes
    the connection and is not reported to it. Returns a Server."""
    loop = asyncio.get_running_loop()
    lsock = socket.create_server((host or "", port or 0), backlog=backlog,
                                 family=socket.AF_INET6 if host and ":" in host else socket.AF_INET)
    lsock.setblocking(False)

    async def serve_one(raw):
        try:
            reader, writer = await _wrap(loop, raw, context, True, None, limit,
                                         ssl_handshake_timeout)
        except (OSError, asyncio.TimeoutError, tls.GostxError):
            return
        result = client_connected_cb(reader, writer)
        if asyncio.iscoroutine(result):
            await result

    return Server(loop, lsock, serve_one)
