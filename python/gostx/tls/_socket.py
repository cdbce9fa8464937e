"""gostx.tls.TLSSocket: a socket.socket carrying TLS (ssl.SSLSocket's
shape), non-blocking underneath, each call waiting with poll() for the
socket's timeout."""
import errno as _errno
import os
import select
import socket
import threading
import time

from .._native import GostxTypeError, GostxValueError, ffi, lib, rptr, wbuf
from ._common import (_CLOSED, _WANT_READ, _WANT_WRITE, TLSEOFError, TLSError, TLSTimeoutError,
                      TLSWantReadError, TLSWantWriteError, _error)
from ._connection import _closed_error, _Connection


class TLSSocket(_Connection, socket.socket):
    """A socket carrying TLS, made by Context.wrap_socket (ssl.SSLSocket's
    methods and attributes). send() on a blocking socket (or one with a
    timeout) returns once every byte is sent; on a non-blocking one, the
    count the library took (sealed and queued: they go out with the next
    calls; recv then raises TLSWantWriteError while some are left)."""

    def __init__(self, *args, **kwargs):
        raise GostxTypeError(f"{type(self).__name__} does not have a public constructor. "
                             "Instances are returned by Context.wrap_socket().")

    @classmethod
    def _create(cls, sock, context, server_side, server_hostname, do_handshake_on_connect,
                suppress_ragged_eofs, session):
        if sock.type != socket.SOCK_STREAM:
            raise NotImplementedError("only stream sockets are supported")
        timeout = sock.gettimeout()
        kwargs = dict(family=sock.family, type=sock.type, proto=sock.proto, fileno=sock.fileno())
        self = cls.__new__(cls, **kwargs)
        socket.socket.__init__(self, **kwargs)
        sock.detach()
        socket.socket.settimeout(self, 0.0)  # the descriptor stays non-blocking; see _wait
        self._timeout = timeout
        self._context = context
        self.server_side = server_side
        self.server_hostname = server_hostname if not server_side else None
        self.do_handshake_on_connect = do_handshake_on_connect
        self.suppress_ragged_eofs = suppress_ragged_eofs
        self._session = session
        self._lock = threading.Lock()
        self._conf = None
        self._done = False  # handshake complete
        self._close_sent = False
        try:
            self.getpeername()
            connected = True
        except OSError as e:
            if e.errno != _errno.ENOTCONN:
                raise
            connected = False
        try:
            if connected:
                self._start()
                if do_handshake_on_connect:
                    self.do_handshake()
        except BaseException:
            self.close()
            raise
        return self

    def _start(self):
        """The libgostx connection, once the socket is connected."""
        self._open()
        lib.gostx_tls_set_fd(self._tls, self.fileno())

    # -- timeouts: kept here; the descriptor is always non-blocking --

    def settimeout(self, value, /):
        """None: block; 0: non-blocking (TLSWantReadError/TLSWantWriteError);
        seconds: each call raises TLSTimeoutError (a TimeoutError) past them."""
        if value is not None:
            value = float(value)
            if value < 0:
                raise GostxValueError("Timeout value out of range")
        self._timeout = value

    def gettimeout(self):
        """The timeout settimeout set (the descriptor is non-blocking regardless)."""
        return self._timeout

    def setblocking(self, flag, /):
        """settimeout(None) for True, settimeout(0.0) for False."""
        self.settimeout(None if flag else 0.0)

    def getblocking(self):
        """False when non-blocking (timeout 0)."""
        return self._timeout != 0.0

    def _deadline(self):
        t = self._timeout
        return None if t is None else time.monotonic() + t

    def _wait(self, want, deadline, what):
        """Wait until the socket can do what the library wants (readable, and
        writable too while records are queued: tls.h's gostx_tls_unsent), or
        raise past the deadline; on a non-blocking socket, raise at once."""
        unsent = self._peek(lib.gostx_tls_unsent, 0) > 0
        if self._timeout == 0.0:
            if want == _WANT_WRITE or unsent:
                raise TLSWantWriteError(f"The {what} operation needs the socket writable")
            raise TLSWantReadError(f"The {what} operation needs data from the peer")
        events = select.POLLOUT if want == _WANT_WRITE else select.POLLIN
        if unsent:
            events |= select.POLLOUT
        self._poll(events, deadline, what)

    def _poll(self, events, deadline, what):
        fd = self.fileno()
        if fd < 0:  # closed by another thread since the call began
            raise OSError(_errno.EBADF, f"The {what} operation: the socket is closed")
        p = select.poll()
        p.register(fd, events)
        while True:
            if deadline is None:
                ms = None
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TLSTimeoutError(f"The {what} operation timed out")
                ms = max(1, int(left * 1000 + 0.999))
            if p.poll(ms):
                return

    # -- the libgostx calls --

    def _call(self, what, fn, *args):
        """fn(tls, *args) under this socket's lock (one thread in the
        connection at a time; close() waits for it, so the connection is
        never freed under a call): its result, or the exception of a failed
        call, made while the connection is still there."""
        with self._lock, self._key_calls():
            tls = self._tls
            if tls is None:
                raise _closed_error()
            rc = fn(tls, *args)
            if rc < 0:
                raise _error(tls, rc, ffi.errno, what)
            return rc

    def _check_connected(self):
        if self._tls is None:
            if self._closed or self._handle is not None:  # closed, or freed at exit
                raise _closed_error()
            raise OSError(_errno.ENOTCONN, "the socket is not connected")

    def do_handshake(self, block=False):
        """Run the handshake (within the timeout)."""
        self._check_connected()
        deadline = self._deadline()
        while True:
            rc = self._call("handshake", lib.gostx_tls_handshake)
            if rc == 0:
                self._settled()
                return
            if rc in (_WANT_READ, _WANT_WRITE):
                self._wait(rc, deadline, "handshake")

    # -- data --

    def recv_into(self, buffer, nbytes=0, flags=0):
        """Read into buffer up to nbytes (default its size); 0 at the end
        (close_notify, or an EOF without one when suppress_ragged_eofs).
        Bytes of buffer past the count returned, within nbytes, may change."""
        if flags:
            raise GostxValueError("non-zero flags not allowed in calls to recv_into() on TLSSocket")
        self._check_connected()
        view = wbuf(buffer)
        try:
            n = nbytes or len(view)
            if n < 0 or n > len(view):
                raise GostxValueError("nbytes is greater than the length of the buffer")
            return self._read_into(view, n) if n else 0
        finally:
            # the caller's buffer is theirs again when we return or raise: an
            # export left in a frame a traceback keeps would outlive it (a
            # BufferedReader's memoryview: a crash in the collector)
            ffi.release(view)

    def _read_into(self, view, n):
        got = ffi.new("size_t *")
        deadline = self._deadline()
        while True:
            try:
                rc = self._call("read", lib.gostx_tls_read, view, n, got)
            except TLSEOFError:
                if self.suppress_ragged_eofs:
                    return 0
                raise
            if rc == 0:
                return got[0]
            if rc == _CLOSED:
                return 0
            if rc in (_WANT_READ, _WANT_WRITE):
                self._wait(rc, deadline, "read")

    def recv(self, buflen=1024, flags=0):
        """Up to buflen bytes of application data; b"" at the end (as recv_into)."""
        if flags:
            raise GostxValueError("non-zero flags not allowed in calls to recv() on TLSSocket")
        if buflen < 0:
            raise GostxValueError("negative buffersize in recv")
        buf = bytearray(buflen)
        n = self.recv_into(buf, buflen)
        del buf[n:]
        return bytes(buf)

    def read(self, len=1024, buffer=None):
        """ssl.SSLSocket.read: up to len bytes, or into buffer (the count)."""
        if buffer is not None:
            return self.recv_into(buffer, len)
        return self.recv(len)

    def send(self, data, flags=0):
        """Send data: all of it (the count returned) unless non-blocking; see the class."""
        if flags:
            raise GostxValueError("non-zero flags not allowed in calls to send() on TLSSocket")
        self._check_connected()
        p = rptr(data)
        try:
            return self._write_from(p, len(p))
        finally:
            if p is not data:
                ffi.release(p)  # as recv_into's

    def _write_from(self, p, n):
        off = 0
        put = ffi.new("size_t *")
        deadline = self._deadline()
        while True:
            rc = self._call("write", lib.gostx_tls_write, p + off, n - off, put)
            off += put[0]
            if rc == 0:
                return n
            if self._timeout == 0.0 and off:
                return off
            self._wait(rc, deadline, "write")

    def sendall(self, data, flags=0):
        """Send all of data or raise (TLSTimeoutError past the timeout)."""
        if self._timeout == 0.0:
            # non-blocking: all of it or an exception, as socket.sendall
            view = memoryview(data).cast("B")
            while view:
                view = view[self.send(view, flags):]
            return None
        self.send(data, flags)
        return None

    write = send

    # -- connecting --

    def connect(self, address, /):
        """Connect (within the timeout), then the handshake unless
        do_handshake_on_connect is False."""
        self._connect(address, False)

    def connect_ex(self, address, /):
        """connect() returning an errno instead of raising for the TCP part."""
        return self._connect(address, True)

    def _connect(self, address, return_errno):
        if self.server_side:
            raise GostxValueError("can't connect in server-side mode")
        if self._tls is not None:
            raise GostxValueError("attempt to connect already-connected TLSSocket!")
        rc = socket.socket.connect_ex(self, address)
        if rc in (_errno.EINPROGRESS, _errno.EAGAIN):
            if self._timeout == 0.0:
                if return_errno:
                    return rc
                raise BlockingIOError(rc, os.strerror(rc))
            try:
                self._poll(select.POLLOUT, self._deadline(), "connect")
            except TLSTimeoutError:
                if return_errno:
                    return _errno.EAGAIN
                raise TLSTimeoutError("timed out") from None
            rc = self.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if rc:
            if return_errno:
                return rc
            raise OSError(rc, os.strerror(rc))
        self._start()
        if self.do_handshake_on_connect:
            self.do_handshake()
        return 0

    def accept(self):
        """(a TLSSocket of the new connection, address), its handshake done
        when do_handshake_on_connect."""
        deadline = self._deadline()
        while True:
            try:
                fd, addr = self._accept()
                break
            except BlockingIOError:
                if self._timeout == 0.0:
                    raise
                self._poll(select.POLLIN, deadline, "accept")
        sock = socket.socket(self.family, self.type, self.proto, fileno=fd)
        sock.settimeout(self._timeout)
        conn = self._context.wrap_socket(sock, server_side=True,
                                         do_handshake_on_connect=self.do_handshake_on_connect,
                                         suppress_ragged_eofs=self.suppress_ragged_eofs)
        return conn, addr

    # -- ending --

    def _send_close_notify(self, deadline):
        """close_notify, once; waits for writable within the deadline
        (None: at most one try on a non-blocking socket)."""
        if self._close_sent or not self._done or self._tls is None:
            return
        while True:
            rc = self._call("shutdown", lib.gostx_tls_close)
            if rc == 0:
                self._close_sent = True
                return
            if rc != _WANT_WRITE or deadline is None:
                return
            self._poll(select.POLLOUT, deadline, "shutdown")

    def unwrap(self):
        """Send close_notify, read to the peer's (within the timeout), and
        return the plain socket underneath."""
        self._check_connected()
        deadline = self._deadline()
        self._send_close_notify(deadline if deadline is not None else float("inf"))
        buf = bytearray(16384)
        try:
            while self.recv_into(buf):
                pass  # data the peer sent before its close_notify is dropped, as ssl's
        except TLSError:
            pass
        timeout = self._timeout
        self._free_tls()
        plain = socket.socket(self.family, self.type, self.proto, fileno=self.detach())
        plain.settimeout(timeout)
        return plain

    def shutdown(self, how, /):
        """As socket.shutdown; SHUT_WR and SHUT_RDWR send close_notify first
        (a TLS half-close: the peer's records are still read)."""
        if how in (socket.SHUT_WR, socket.SHUT_RDWR):
            try:
                self._send_close_notify(self._deadline() if self._timeout else None)
            except OSError:
                pass
        socket.socket.shutdown(self, how)

    def _free_tls(self):
        if self._handle is not None:
            self._free()  # once a call in it ended (under the lock); wipes its secrets

    def _real_close(self):
        if self._tls is not None:
            try:
                self._send_close_notify(None)  # courtesy, never waits
            except OSError:
                pass
        self._free_tls()
        socket.socket._real_close(self)

    def detach(self):
        """Free the TLS connection and hand back the descriptor (as socket's)."""
        self._free_tls()
        return socket.socket.detach(self)

    def dup(self):
        """Refused: two objects cannot share one TLS connection."""
        raise NotImplementedError(f"Can't dup() {type(self).__name__} instances")

    def sendfile(self, file, offset=0, count=None):
        """As socket.sendfile, through send() (the data must be encrypted)."""
        return self._sendfile_use_send(file, offset, count)

    def _unsupported(self, *args, **kwargs):
        """Refused: datagram and ancillary-data calls have no TLS meaning."""
        raise GostxValueError(f"this call is not allowed on instances of {type(self).__name__}")

    recvfrom = recvfrom_into = sendto = recvmsg = recvmsg_into = sendmsg = _unsupported

    def __repr__(self):
        state = "closed" if self._closed else self.version() or "not connected"
        return f"<gostx.tls.TLSSocket fd={self.fileno()} {state}>"
