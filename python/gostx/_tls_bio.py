"""gostx.tls.TLSObject: a GOST TLS connection over two ssl.MemoryBIO, in
the shape of ssl.SSLObject, made by Context.wrap_bio.

It is what asyncio's own ssl= drives (loop.create_connection(ssl=ctx),
asyncio.open_connection(ssl=ctx), asyncio.start_server(ssl=ctx)), and so
the libraries built on them (aiohttp, ...): the caller writes the peer's
bytes into the incoming BIO, calls do_handshake / read / write / unwrap,
and sends what the outgoing BIO then holds. A call that needs more of the
peer's bytes raises TLSWantReadError (an ssl.SSLWantReadError); the
outgoing BIO takes everything, so no call waits on writing.

Underneath, the library's transport callbacks (gostx_tls_set_io) are C
(gxpy_bio in _build.py): they read from and write to two C buffers that
this module fills from the incoming BIO before each library call and empties
into the outgoing one after it, so the calls run without the GIL and call
back into no Python."""
import ssl
import threading

from ._native import GostxTypeError, GostxValueError, ffi, lib, rptr, wbuf
from .tls._common import _CLOSED, _WANT_READ, _WANT_WRITE, TLSWantReadError, _error
from .tls._connection import _closed_error, _Connection

__all__ = ["TLSObject"]

_UNWRAP_CHUNK = 16384


class TLSObject(_Connection):
    """A TLS connection over memory BIOs (ssl.SSLObject's methods and
    attributes): do_handshake, read, write, unwrap, pending, getpeercert,
    cipher, version, selected_alpn_protocol, server_side, server_hostname,
    context, session. Each call raises TLSWantReadError while it needs
    bytes the incoming BIO does not hold yet; TLSEOFError once the
    incoming BIO ended (write_eof) without the peer's close_notify."""

    def __init__(self, *args, **kwargs):
        raise GostxTypeError(f"{type(self).__name__} does not have a public constructor. "
                             "Instances are returned by Context.wrap_bio().")

    @classmethod
    def _create(cls, context, incoming, outgoing, server_side, server_hostname, session):
        for name, bio in (("incoming", incoming), ("outgoing", outgoing)):
            if not isinstance(bio, ssl.MemoryBIO):
                raise GostxTypeError(f"{name} must be an ssl.MemoryBIO, not "
                                     f"{type(bio).__name__!r}")
        self = object.__new__(cls)
        self._context = context
        self._incoming, self._outgoing = incoming, outgoing
        self.server_side = server_side
        self.server_hostname = server_hostname if not server_side else None
        self._session = session
        self._lock = threading.Lock()
        self._done = False
        self._close_sent = False
        self._bio = bio = ffi.new("gxpy_bio *")
        self._open(keep=bio)  # the C buffers outlive the connection pointing at them
        lib.gxpy_bio_attach(self._tls, bio)
        return self

    # -- the library's calls, the BIOs moved around them --

    def _call(self, what, fn, *args):
        """fn(tls, *args) with the incoming BIO's bytes fed first and the
        records it wrote moved to the outgoing BIO after (also when it
        failed: an alert goes out); its result, or the exception."""
        with self._lock, self._key_calls():
            tls = self._tls
            if tls is None:
                raise _closed_error()
            bio = self._bio
            data = self._incoming.read(lib.gxpy_bio_room(bio))
            if data:
                lib.gxpy_bio_feed(bio, data, len(data))
            bio.eof = self._incoming.eof
            rc = fn(tls, *args)
            err = ffi.errno
            if bio.out_len:
                self._outgoing.write(ffi.buffer(lib.gxpy_bio_out(bio), bio.out_len))
                bio.out_len = 0
            if rc < 0:
                raise _error(tls, rc, err, what)
            return rc

    def _run(self, what, fn, *args):
        """_call until fn completes, fails, or needs bytes the incoming BIO
        does not hold (WANT_WRITE only says the C buffer filled: it was
        just emptied)."""
        while True:
            rc = self._call(what, fn, *args)
            if rc == _WANT_WRITE:
                continue
            if rc == _WANT_READ and self._incoming.pending and lib.gxpy_bio_room(self._bio):
                continue  # more of the peer's bytes than the C buffer took
            return rc

    @staticmethod
    def _want_read(what):
        return TLSWantReadError(f"The {what} operation needs data from the peer")

    def do_handshake(self):
        """Run the handshake on the bytes there are: returns once complete."""
        rc = self._run("handshake", lib.gostx_tls_handshake)
        if rc != 0:
            raise self._want_read("handshake")
        if not self._done:
            self._settled()

    # -- data --

    def read(self, len=1024, buffer=None):  # noqa: A002  (ssl.SSLObject's names)
        """Up to len bytes (or into buffer: the count); b"" (0) after the
        peer's close_notify."""
        if buffer is None:
            if len < 0:
                raise GostxValueError("size should not be negative")
            out = bytearray(len)
            del out[self.read(len, out):]
            return bytes(out)
        if not self._done:
            self.do_handshake()
        view = wbuf(buffer)
        try:
            n = ffi.sizeof(view) if len <= 0 else min(len, ffi.sizeof(view))
            if not n:
                return 0
            got = ffi.new("size_t *")
            rc = self._run("read", lib.gostx_tls_read, view, n, got)
        finally:
            ffi.release(view)
        if rc == 0:
            return got[0]
        if rc == _CLOSED:
            return 0
        raise self._want_read("read")

    def write(self, data):
        """Seal all of data into the outgoing BIO; the count."""
        if not self._done:
            self.do_handshake()
        p = rptr(data)
        try:
            n, off = len(p), 0
            put = ffi.new("size_t *")
            while True:
                rc = self._call("write", lib.gostx_tls_write, p + off, n - off, put)
                off += put[0]
                if rc == 0:
                    return n
                if rc == _WANT_READ:
                    raise self._want_read("write")
        finally:
            if p is not data:
                ffi.release(p)

    # -- ending --

    def unwrap(self):
        """Send close_notify, then read to the peer's (what comes before it
        is dropped, as ssl's): None once it came, TLSWantReadError until."""
        if not self._done:
            raise GostxValueError("unwrap before the handshake is done")
        if not self._close_sent:
            self._run("shutdown", lib.gostx_tls_close)
            self._close_sent = True
        buf = ffi.new("uint8_t[]", _UNWRAP_CHUNK)
        got = ffi.new("size_t *")
        while True:
            rc = self._run("shutdown", lib.gostx_tls_read, buf, _UNWRAP_CHUNK, got)
            if rc == _CLOSED:
                return None
            if rc != 0:
                raise self._want_read("shutdown")

    def verify_client_post_handshake(self):
        """Refused: the library has no post-handshake authentication."""
        raise GostxValueError("post-handshake authentication is not supported")

    def __repr__(self):
        return f"<gostx.tls.TLSObject {self.version() or 'no handshake yet'}>"

