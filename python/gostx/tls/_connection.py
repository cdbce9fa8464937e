"""What TLSSocket and TLSObject share: the libgostx connection (opened,
freed), and what it says once connected (version, cipher, peer's
certificate, session)."""
import contextlib
import errno as _errno
import ssl
import weakref

from .. import x509
from .._native import GostxValueError, ffi, lib
from ..pkcs11 import PKCS11Error
from ._common import CERT_NONE, TLSError, TLSSession, TLSTokenError, _cert_dict


class _Handle:
    """The libgostx connection (None once freed), the lock each call on it
    holds, and what must outlive it (keep: its transport's buffers)."""

    __slots__ = ("tls", "lock", "keep")

    def __init__(self, tls, lock, keep):
        self.tls, self.lock, self.keep = tls, lock, keep


def _free_connection(handle):
    """Free the connection (wiping its secrets) once no call is in it.
    weakref.finalize also runs this at interpreter exit, when a daemon
    thread may still be inside a call with the GIL released: hence the
    lock, and the None its next call then finds (freeing the connection
    under a running gostx_tls_write crashed the interpreter at exit)."""
    with handle.lock:
        tls, handle.tls = handle.tls, None
        if tls is not None:
            lib.gostx_tls_free(tls)
        handle.keep = None  # the buffers go after the connection pointing at them


def _closed_error():
    return OSError(_errno.EBADF, "the TLS connection is closed")


class _Connection:
    """What TLSSocket and TLSObject (the memory-BIO connection, _tls_bio.py)
    share: the libgostx connection's making, and what its handshake
    settled. Each has _context, server_side, server_hostname, _session,
    _lock (one thread in the connection at a time) and _done."""

    _version = None
    _handle = None  # the connection's _Handle, once _open made it

    @property
    def _tls(self):
        """The libgostx connection; None before _open and once freed (read
        under _lock: the connection is freed under it)."""
        handle = self._handle
        return None if handle is None else handle.tls

    def _open(self, keep=None):
        """The libgostx connection of the context's current config, its SNI
        and session set (the config outlives the connection, and keep)."""
        conf = self._context._config()
        tls = lib.gostx_tls_new(conf.cfg)
        if tls == ffi.NULL:
            raise MemoryError("TLS connection")
        self._conf = conf
        self._handle = _Handle(tls, self._lock, keep)
        self._free = weakref.finalize(self, _free_connection, self._handle)
        if not self.server_side and self.server_hostname and self._context.check_hostname:
            name = self.server_hostname
            try:
                wire = name.encode() if _is_ip(name) else name.encode("idna")
            except UnicodeError:
                wire = b""
            if not wire or lib.gostx_tls_set_servername(tls, wire):
                raise GostxValueError(f"server_hostname {name!r}: not a DNS name or an IP "
                                      "address (no trailing dot)")
        if self._session is not None:
            data = bytes(self._session)
            rc = lib.gostx_tls_set_session(tls, data, len(data))
            if rc:
                raise GostxValueError("session: not a session gostx wrote")

    def _key_calls(self):
        """The context of a call on the connection: with a key on a PKCS#11
        token in its config, a failure the token caused (removed mid-
        handshake) is raised as a TLSTokenError: the PKCS11Error naming it
        (pkcs11._TokenKey.calls) that is a TLSError too, the TLS error its
        cause."""
        token = getattr(getattr(self, "_conf", None), "token", None)
        return _token_calls(token) if token is not None else contextlib.nullcontext()

    def _settled(self):
        """The handshake is complete: keep what the library reports only
        while connected (the version: a ragged EOF or an alert later ends
        that state, and version() should still name what was spoken)."""
        self._done = True
        self._version = self._text(lib.gostx_tls_version)
        if self.server_side:  # the SNI the client sent
            self.server_hostname = self._text(lib.gostx_tls_servername)

    @property
    def context(self):
        return self._context

    def _peek(self, fn, default):
        """fn(tls) under the lock; default once the connection is gone."""
        with self._lock:
            return default if self._tls is None else fn(self._tls)

    def pending(self):
        """Decrypted bytes ready to read without the transport (tls.h's
        gostx_tls_pending: or the length of the next whole record buffered)."""
        return self._peek(lib.gostx_tls_pending, 0)

    def _text(self, fn):
        """A name the handshake settled (fn(tls)), None before it or when none."""
        if not self._done:
            return None
        with self._lock:
            p = ffi.NULL if self._tls is None else fn(self._tls)
            return ffi.string(p).decode() if p != ffi.NULL else None

    def version(self):
        """ "TLSv1.3" or "TLSv1.2"; None before the handshake."""
        return self._version if self._done else None

    def cipher(self):
        """(suite, version, secret bits), as ssl's."""
        suite = self._text(lib.gostx_tls_suite)
        return None if suite is None else (suite, self.version(), 256)

    def group(self):
        """The key exchange group (TLS 1.3), e.g. "GC256A"; None under TLS 1.2."""
        return self._text(lib.gostx_tls_group)

    def selected_alpn_protocol(self):
        """The ALPN protocol agreed, or None."""
        return self._text(lib.gostx_tls_alpn)

    def compression(self):
        """None: TLS 1.3 and RFC 9189 have no compression."""
        return None

    def shared_ciphers(self):
        """None: the library does not keep the client's list."""
        return None

    def _peer_chain(self):
        if not self._done:
            raise GostxValueError("handshake not done yet")
        chain = ffi.new("const gostx_x509_cert **")
        with self._lock:
            if self._tls is None:
                raise _closed_error()
            n = lib.gostx_tls_peer_chain(self._tls, chain)
            return [bytes(ffi.buffer(chain[0][i].der, chain[0][i].der_len)) for i in range(n)]

    def getpeercert(self, binary_form=False):
        """The peer's certificate: DER (binary_form), or ssl's dict of it
        (subject, issuer, version, serialNumber, notBefore, notAfter,
        subjectAltName) when it was verified, {} when not. None when the
        peer sent none (a PSK or a resumed session)."""
        chain = self._peer_chain()
        if not chain:
            return None
        if binary_form:
            return chain[0]
        if self._context.verify_mode == CERT_NONE:
            return {}
        return _cert_dict(x509.load_der_x509_certificate(chain[0]))

    def get_verified_chain(self):
        """The chain the peer sent, as x509.Certificate objects, leaf first."""
        return [x509.load_der_x509_certificate(d) for d in self._peer_chain()]

    @property
    def session(self):
        """The newest TLS 1.3 ticket the server sent (they come with the data
        read after the handshake), or None."""
        if self.server_side:
            return None
        out = ffi.new("uint8_t[]", lib.GOSTX_TLS_SESSION_MAX)
        n = ffi.new("size_t *")
        with self._lock:
            if self._tls is None:
                return None
            rc = lib.gostx_tls_get_session(self._tls, out, len(out), n)
        if rc:
            return None
        data = bytes(ffi.buffer(out, n[0]))
        lib.gostx_memzero(out, len(out))
        return TLSSession(data)

    @session.setter
    def session(self, value):
        if self._done:
            raise GostxValueError("Cannot set session after handshake.")
        self._session = value

    @property
    def session_reused(self):
        return bool(self._done and self._peek(lib.gostx_tls_session_reused, 0))



@contextlib.contextmanager
def _token_calls(token):
    """token.calls(), its PKCS11Error raised as a TLSTokenError when a TLS
    call failed under it (so ssl.SSLError handlers keep working)."""
    try:
        with token.calls():
            yield
    except PKCS11Error as e:
        if isinstance(e, TLSError) or not isinstance(e.__cause__, ssl.SSLError):
            raise
        raise TLSTokenError(e.kind, str(e)) from e.__cause__


def _is_ip(name):
    import ipaddress
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False
