"""GOST TLS 1.3 (RFC 8446 + RFC 9367) and TLS 1.2 (RFC 9189) in the shape of
the standard ssl module, on libgostx's connection API (include/gostx/tls.h).

    ctx = gostx.tls.Context(gostx.tls.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations("ca.pem")
    with socket.create_connection(("example.test", 443)) as raw:
        with ctx.wrap_socket(raw, server_hostname="example.test") as s:
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            print(s.version(), s.cipher(), s.recv(4096))

A TLSSocket is a socket.socket (as ssl.SSLSocket is). Its descriptor is
always non-blocking underneath: the library's calls return WANT_READ /
WANT_WRITE and this module waits with poll() for the socket's timeout
(settimeout: None blocks, 0 raises TLSWantReadError / TLSWantWriteError,
a number raises TimeoutError past it), so a timeout bounds the whole call.
Every libgostx call releases the GIL (cffi), so threads each with their own
connection run their handshakes and records in parallel.

Errors subclass both gostx.GostxError and their ssl counterpart
(TLSError is an ssl.SSLError, TLSCertVerificationError an
ssl.SSLCertVerificationError and a gostx.x509.VerificationError, ...), so
code written for ssl catches them; a TLS alert is named in the message and
in .alert. What differs from ssl: check_hostname = False sends no SNI (the
library verifies the chain for the name it sends, whenever it verifies)."""
import errno as _errno
import os
import re
import select
import socket
import ssl
import sys
import threading
import time
import weakref

from . import gost3410, x509
from ._native import GostxError, GostxTypeError, GostxValueError, ffi, held, lib, rptr, wbuf

__all__ = ["Context", "TLSSocket", "TLSObject", "TLSSession", "create_default_context", "TLSError",
           "TLSZeroReturnError", "TLSWantReadError", "TLSWantWriteError", "TLSEOFError",
           "TLSCertVerificationError", "TLSTimeoutError", "PROTOCOL_TLS_CLIENT",
           "PROTOCOL_TLS_SERVER", "CERT_NONE", "CERT_OPTIONAL", "CERT_REQUIRED", "TLSVersion",
           "SUITES_TLS13", "SUITES_TLS12", "GROUPS", "ALERTS", "open_connection",
           "start_server"]

PROTOCOL_TLS_CLIENT = ssl.PROTOCOL_TLS_CLIENT
PROTOCOL_TLS_SERVER = ssl.PROTOCOL_TLS_SERVER
CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED = ssl.CERT_NONE, ssl.CERT_OPTIONAL, ssl.CERT_REQUIRED
TLSVersion = ssl.TLSVersion

# The names set_ciphers takes (RFC names, or these short ones), as the CLI's
# --suites; one list for both versions, each version taking its own.
SUITES_TLS13 = ("KUZNYECHIK_MGM_L", "MAGMA_MGM_L", "KUZNYECHIK_MGM_S", "MAGMA_MGM_S")
SUITES_TLS12 = ("KUZNYECHIK_CTR_OMAC", "MAGMA_CTR_OMAC", "28147_CNT_IMIT")
GROUPS = ("GC256A", "GC256B", "GC256C", "GC256D", "GC512A", "GC512B", "GC512C")

# RFC 8446 6 / the IANA TLS Alert registry: the names an alert is reported by
ALERTS = {0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac",
          22: "record_overflow", 40: "handshake_failure", 42: "bad_certificate",
          43: "unsupported_certificate", 44: "certificate_revoked", 45: "certificate_expired",
          46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
          49: "access_denied", 50: "decode_error", 51: "decrypt_error", 70: "protocol_version",
          71: "insufficient_security", 80: "internal_error", 86: "inappropriate_fallback",
          90: "user_canceled", 100: "no_renegotiation", 109: "missing_extension",
          110: "unsupported_extension", 112: "unrecognized_name",
          113: "bad_certificate_status_response", 115: "unknown_psk_identity",
          116: "certificate_required", 120: "no_application_protocol"}

_WANT_READ, _WANT_WRITE, _CLOSED = (lib.GOSTX_TLS_WANT_READ, lib.GOSTX_TLS_WANT_WRITE,
                                    lib.GOSTX_TLS_CLOSED)
_VERSIONS = {TLSVersion.MINIMUM_SUPPORTED: lib.GOSTX_TLS_VERSION_1_2,
             TLSVersion.TLSv1_2: lib.GOSTX_TLS_VERSION_1_2,
             TLSVersion.TLSv1_3: lib.GOSTX_TLS_VERSION_1_3,
             TLSVersion.MAXIMUM_SUPPORTED: lib.GOSTX_TLS_VERSION_1_3}


# ---- errors ----

class TLSError(GostxError, ssl.SSLError):
    """A TLS failure: the library's reason, and when an alert went either
    way, alert (its RFC 8446 name), alert_number and alert_sent (True: we
    sent it; False: the peer did). reason is the alert's name in capitals,
    as ssl names its reasons, or None."""
    alert = None
    alert_number = None
    alert_sent = None
    reason = None
    library = "GOSTX"
    _code = 1  # errno as ssl sets it: its SSL_ERROR_* number

    def __init__(self, message):
        # (errno, strerror): ssl.SSLError's str() is strerror
        super().__init__(self._code, message)


class TLSZeroReturnError(TLSError, ssl.SSLZeroReturnError):
    """The peer closed the TLS connection (close_notify)."""
    _code = 6



class TLSWantReadError(TLSError, ssl.SSLWantReadError):
    """Non-blocking socket: the call needs data from the peer; call again once
    the socket is readable."""
    _code = 2



class TLSWantWriteError(TLSError, ssl.SSLWantWriteError):
    """Non-blocking socket: the call needs the socket writable (records are
    queued for the peer); call again once it is."""
    _code = 3



class TLSEOFError(TLSError, ssl.SSLEOFError):
    """The transport ended without close_notify (a truncation)."""
    _code = 8



class TLSCertVerificationError(TLSError, ssl.SSLCertVerificationError, x509.VerificationError):
    """The peer's chain was refused: status (a gostx.x509.Status), why,
    verify_code and verify_message as ssl and gostx.x509 name them."""

    def __init__(self, message, status):
        OSError.__init__(self, self._code, message)
        self.status = x509.Status(status)
        self.why = self.verify_message = self.status.text
        self.verify_code = int(self.status)
        self.depth = None


class TLSTimeoutError(GostxError, socket.timeout):
    """The socket's timeout passed (a socket.timeout, i.e. TimeoutError, as
    ssl raises)."""


def _status_of(text):
    """The x509 status the library's error text names, or None."""
    for st in x509.Status:
        if st != x509.Status.OK and st.text in text:
            return st
    return None


# ---- sessions ----

class TLSSession:
    """A TLS 1.3 session ticket to resume with (wrap_socket(session=...)):
    secret, and one use each (take a fresh one from each connection)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = bytes(data)

    def __bytes__(self):
        return self._data

    def __repr__(self):
        return f"<gostx.tls.TLSSession {len(self._data)} bytes>"


# ---- the context ----

class _Config:
    """One built gostx_tls_config with the store and key-log descriptor it
    uses; freed (config first: it points at the store) when the last
    connection made from it and the Context let go of it."""

    def __init__(self, cfg, store, keylog_fd):
        self.cfg = cfg
        self.store = store  # kept: the config does not copy the store
        weakref.finalize(self, _free_config, cfg, keylog_fd)


def _free_config(cfg, keylog_fd):
    lib.gostx_tls_config_free(cfg)
    if keylog_fd >= 0:
        os.close(keylog_fd)


def _config_error(cfg, rc, what):
    text = ffi.string(lib.gostx_tls_config_error(cfg)).decode(errors="replace")
    text = text or ffi.string(lib.gostx_strerror(rc)).decode()
    return TLSError(f"{what}: {text}")


def _protocol_of(protocol, server_side):
    if protocol is None:
        protocol = PROTOCOL_TLS_SERVER if server_side else PROTOCOL_TLS_CLIENT
    if protocol not in (PROTOCOL_TLS_CLIENT, PROTOCOL_TLS_SERVER):
        raise GostxValueError("protocol must be PROTOCOL_TLS_CLIENT or PROTOCOL_TLS_SERVER")
    if server_side is not None and bool(server_side) != (protocol == PROTOCOL_TLS_SERVER):
        raise GostxValueError("server_side does not match the protocol")
    return protocol


def _list_arg(name, value):
    if isinstance(value, str):
        return value
    try:
        items = list(value)
    except TypeError:
        raise GostxTypeError(f"{name} must be a str or a list of str") from None
    for item in items:
        if not isinstance(item, str):
            raise GostxTypeError(f"{name} entries must be str, not {type(item).__name__!r}")
    return ",".join(items)


class Context(ssl.SSLContext):
    """A TLS configuration shared by many connections: an ssl.SSLContext (so
    asyncio's ssl=, aiohttp and other code that checks for one take it;
    the OpenSSL context underneath is never used), made with
    Context(PROTOCOL_TLS_CLIENT) or Context(PROTOCOL_TLS_SERVER), or
    Context(server_side=...). A client verifies the server's chain to the
    CAs loaded (verify_mode CERT_REQUIRED) for server_hostname
    (check_hostname True); a server asks no client certificate unless
    verify_mode says so (CERT_OPTIONAL: asked, verified when sent;
    CERT_REQUIRED: required). Changing a setting affects connections made
    after it."""

    def __new__(cls, protocol=None, *, server_side=None):
        return super().__new__(cls, _protocol_of(protocol, server_side))

    def __init__(self, protocol=None, *, server_side=None):
        protocol = _protocol_of(protocol, server_side)
        self._protocol = protocol
        self._server = protocol == PROTOCOL_TLS_SERVER
        self._verify_mode = CERT_NONE if self._server else CERT_REQUIRED
        self._check_hostname = not self._server
        self._min, self._max = TLSVersion.MINIMUM_SUPPORTED, TLSVersion.MAXIMUM_SUPPORTED
        self._suites = self._groups = self._alpn = None
        self._chain = None  # the DER of each certificate, leaf first
        self._key = None  # a gost3410.PrivateKey
        self._cas = []  # (kind, source), replayed into each config's store
        self._psk = None
        self._keylog = None
        self._tickets = None
        self._lock = threading.Lock()
        self._built = None

    @property
    def protocol(self):
        return self._protocol

    def _not_here(self, *args, **kwargs):
        """Refused: OpenSSL's knobs that have no GOST TLS meaning here
        (set_groups chooses the curves; there is no SNI callback)."""
        raise GostxValueError("not supported by gostx.tls (see set_groups, set_ciphers)")

    load_dh_params = set_ecdh_curve = set_npn_protocols = set_servername_callback = _not_here
    sni_callback = property(lambda self: None, _not_here)

    def _changed(self):
        self._built = None

    def copy(self):
        """An independent Context with these settings (the key object shared:
        it is only read)."""
        other = type(self).__new__(type(self), self._protocol)
        other.__dict__.update(self.__dict__)
        other._cas = list(self._cas)
        other._lock = threading.Lock()
        other._built = None
        return other

    # -- ssl.SSLContext's attributes --

    @property
    def verify_mode(self):
        return self._verify_mode

    @verify_mode.setter
    def verify_mode(self, value):
        value = ssl.VerifyMode(value)
        if value == CERT_NONE and self._check_hostname:
            raise GostxValueError("Cannot set verify_mode to CERT_NONE when check_hostname is "
                                  "enabled.")
        if value != self._verify_mode:  # urllib3 sets it on every connection
            self._verify_mode = value
            self._changed()

    @property
    def check_hostname(self):
        return self._check_hostname

    @check_hostname.setter
    def check_hostname(self, value):
        value = bool(value)
        if value and self._verify_mode == CERT_NONE:
            self._verify_mode = CERT_REQUIRED  # as ssl does
            self._changed()
        if value != self._check_hostname:
            self._check_hostname = value
            self._changed()

    @property
    def minimum_version(self):
        return self._min

    @minimum_version.setter
    def minimum_version(self, value):
        self._min = self._version(value)
        self._changed()

    @property
    def maximum_version(self):
        return self._max

    @maximum_version.setter
    def maximum_version(self, value):
        self._max = self._version(value)
        self._changed()

    @staticmethod
    def _version(value):
        value = TLSVersion(value)
        if value not in _VERSIONS:
            raise GostxValueError(f"{value.name}: gostx speaks TLS 1.2 and TLS 1.3 only")
        return value

    @property
    def keylog_filename(self):
        return self._keylog

    @keylog_filename.setter
    def keylog_filename(self, path):
        if path is not None:
            path = os.fsdecode(path)
            with open(path, "a"):  # as ssl: a file that cannot be opened is refused now
                pass
        self._keylog = path
        self._changed()

    def set_ciphers(self, suites):
        """The suites, in preference order: a ':' or ',' separated str (or a
        list) of RFC names (TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_L) or
        short ones (SUITES_TLS13, SUITES_TLS12); TLSError names an unknown one."""
        suites = _list_arg("suites", suites)
        self._check_list(lib.gostx_tls_config_set_suites, suites, "set_ciphers")
        self._suites = suites
        self._changed()

    def set_groups(self, groups):
        """The key-exchange groups (GROUPS), in preference order."""
        groups = _list_arg("groups", groups)
        self._check_list(lib.gostx_tls_config_set_groups, groups, "set_groups")
        self._groups = groups
        self._changed()

    def set_alpn_protocols(self, protocols):
        """The ALPN protocols offered (client) or accepted (server), in
        preference order."""
        protocols = list(protocols)
        for p in protocols:
            if not isinstance(p, str) or not p or len(p.encode()) > 255 or "," in p:
                raise GostxValueError(f"ALPN protocol {p!r}: 1..255 bytes, no ','")
        alpn = ",".join(protocols)
        if alpn:
            self._check_list(lib.gostx_tls_config_set_alpn, alpn, "set_alpn_protocols")
        if (alpn or None) != self._alpn:  # urllib3 sets it on every connection
            self._alpn = alpn or None
            self._changed()

    def _check_list(self, setter, value, what):
        cfg = lib.gostx_tls_config_new(lib.GOSTX_TLS_SERVER if self._server else lib.GOSTX_TLS_CLIENT)
        try:
            rc = setter(cfg, value.encode())
            if rc:
                raise _config_error(cfg, rc, what)
        finally:
            lib.gostx_tls_config_free(cfg)

    def set_psk(self, identity, key):
        """An external PSK (RFC 8446 4.2.11, with ECDHE): identity 1..255
        bytes, key 32 bytes; None, None removes it."""
        if identity is None and key is None:
            self._psk = None
        else:
            identity, key = bytes(identity), bytes(key)
            if not 1 <= len(identity) <= 255 or len(key) != 32:
                raise GostxValueError("PSK identity must be 1..255 bytes and key 32 bytes")
            self._psk = (identity, key)
        self._changed()

    def set_tickets(self, count, lifetime=7200):
        """Server: NewSessionTickets sent after each TLS 1.3 handshake (0..8; 0 none)."""
        if not 0 <= count <= 8 or not 1 <= lifetime <= 604800:
            raise GostxValueError("tickets: count 0..8, lifetime 1..604800 s")
        self._tickets = (count, lifetime)
        self._changed()

    # -- certificates and keys --

    def load_verify_locations(self, cafile=None, capath=None, cadata=None):
        """The CAs that verify the peer (as ssl's): a PEM or DER file, a
        folder of them, or cadata (PEM str, or DER/PEM bytes). Refused now
        (x509.VerificationError, OSError) when they give no GOST certificate."""
        x509.Store().load_verify_locations(cafile, capath, cadata)  # refuses it now
        sources = [("path", os.fsdecode(p)) for p in (cafile, capath) if p is not None]
        if cadata is not None:
            sources.append(("data", cadata if isinstance(cadata, str) else bytes(cadata)))
        for source in sources:
            if source not in self._cas:  # urllib3 loads its ca_certs on every connection
                self._cas.append(source)
                self._changed()

    def set_default_verify_paths(self):
        """The system's CAs, as ssl's: the file and folder
        ssl.get_default_verify_paths() names (OpenSSL's, or SSL_CERT_FILE /
        SSL_CERT_DIR), read when a connection is made. Their GOST
        certificates are trusted; the others are passed over, and a store
        with none (the usual case) adds none."""
        paths = ssl.get_default_verify_paths()
        for path in (paths.cafile, paths.capath):
            if path and ("system", path) not in self._cas:
                self._cas.append(("system", path))
                self._changed()

    def load_default_certs(self, purpose=ssl.Purpose.SERVER_AUTH):
        """As ssl's: set_default_verify_paths()."""
        self.set_default_verify_paths()

    def load_cert_chain(self, certfile, keyfile=None, password=None):
        """This side's chain (leaf first; PEM with one or more certificates,
        or one DER certificate) and its private key (PKCS#8 PEM or DER,
        encrypted or not; in certfile when keyfile is None). password:
        bytes, str, or a callable returning one, asked only for an encrypted
        key. TLSError when the key is not the leaf's or does not decrypt."""
        with open(certfile, "rb") as f:
            cert_data = f.read()
        if keyfile is None:
            key_data = cert_data
        else:
            with open(keyfile, "rb") as f:
                key_data = f.read()
        if b"-----BEGIN" in cert_data:
            chain = [c.public_bytes("DER") for c in x509.load_pem_x509_certificates(cert_data)]
        else:
            chain = [x509.load_der_x509_certificate(cert_data).public_bytes("DER")]
        key = _load_key(key_data, password)
        self._built_config(chain, key, validate_only=True)
        self._chain, self._key = chain, key
        self._changed()

    def get_ca_certs(self, binary_form=False):
        """The CAs loaded, as getpeercert() gives a certificate (not the
        system's: load_default_certs)."""
        store_certs = []
        for kind, src in self._cas:
            if kind == "data":
                store_certs += _certs_of_data(src)
            elif kind == "path" and os.path.isfile(src):
                with open(src, "rb") as f:
                    store_certs += _certs_of_data(f.read())
        return [c.public_bytes("DER") if binary_form else _cert_dict(c) for c in store_certs]

    # -- connections --

    def wrap_socket(self, sock, server_side=False, do_handshake_on_connect=True,
                    suppress_ragged_eofs=True, server_hostname=None, session=None):
        """A TLSSocket over sock (which it takes over, as ssl does: sock is
        detached). The handshake runs now when sock is connected and
        do_handshake_on_connect, else at connect()/accept() or do_handshake()."""
        self._check_wrap(server_side, server_hostname, session)
        return TLSSocket._create(sock, self, bool(server_side), server_hostname,
                                 do_handshake_on_connect, suppress_ragged_eofs, session)

    def wrap_bio(self, incoming, outgoing, server_side=False, server_hostname=None,
                 session=None):
        """A TLSObject (ssl.SSLObject's shape) reading the peer's bytes from
        incoming and writing its records to outgoing, two ssl.MemoryBIO:
        what asyncio's ssl= (and the libraries on it) drive."""
        from ._tls_bio import TLSObject  # noqa: PLC0415  (the BIO path loads when used)
        self._check_wrap(server_side, server_hostname, session)
        return TLSObject._create(self, incoming, outgoing, bool(server_side), server_hostname,
                                 session)

    def _check_wrap(self, server_side, server_hostname, session):
        if bool(server_side) != self._server:
            side = "server" if server_side else "client"
            raise GostxValueError(f"Cannot create a {side} socket with a "
                                  f"{'PROTOCOL_TLS_SERVER' if self._server else 'PROTOCOL_TLS_CLIENT'} context")
        if server_side and server_hostname:
            raise GostxValueError("server_hostname can only be specified in client mode")
        if server_side and session is not None:
            raise GostxValueError("session can only be specified in client mode")
        if not server_side and self._check_hostname and not server_hostname:
            raise GostxValueError("check_hostname requires server_hostname")

    def _config(self):
        """The built config of the current settings (built once per change)."""
        with self._lock:
            if self._built is None:
                self._built = self._built_config(self._chain, self._key)
            return self._built

    def _built_config(self, chain, key, validate_only=False):
        role = lib.GOSTX_TLS_SERVER if self._server else lib.GOSTX_TLS_CLIENT
        cfg = lib.gostx_tls_config_new(role)
        if cfg == ffi.NULL:
            raise MemoryError("TLS config")
        store, fd = None, -1
        try:
            if chain:
                self._set_identity(cfg, chain, key)
            if validate_only:
                lib.gostx_tls_config_free(cfg)
                return None
            store = self._set_options(cfg)
            if self._keylog is not None:
                fd = os.open(self._keylog, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                             0o600)
                lib.gxpy_tls_keylog_to_fd(cfg, fd)
        except BaseException:
            lib.gostx_tls_config_free(cfg)
            raise
        return _Config(cfg, store, fd)

    @staticmethod
    def _set_identity(cfg, chain, key):
        ptrs = [ffi.from_buffer("uint8_t[]", d) for d in chain]
        rc = lib.gostx_tls_config_set_chain(cfg, ffi.new("const uint8_t *[]", ptrs),
                                            ffi.new("size_t[]", [len(d) for d in chain]),
                                            len(chain))
        if rc:
            raise _config_error(cfg, rc, "certificate chain")
        with held(key) as (d,):
            k = gost3410._key_struct(key._curve, d, key._oid, private=True)
        try:
            rc = lib.gostx_tls_config_set_key(cfg, k)
        finally:
            lib.gostx_gost3410_key_clear(k)
        if rc:
            raise _config_error(cfg, rc, "private key")

    def _set_options(self, cfg):
        """Everything but the identity; returns the store the config uses."""
        for setter, value, what in ((lib.gostx_tls_config_set_suites, self._suites, "suites"),
                                    (lib.gostx_tls_config_set_groups, self._groups, "groups"),
                                    (lib.gostx_tls_config_set_alpn, self._alpn, "ALPN")):
            if value is not None:
                rc = setter(cfg, value.encode())
                if rc:
                    raise _config_error(cfg, rc, what)
        rc = lib.gostx_tls_config_set_versions(cfg, _VERSIONS[self._min], _VERSIONS[self._max])
        if rc:
            raise _config_error(cfg, rc, "minimum_version/maximum_version")
        if self._psk is not None:
            ident, key = self._psk
            if lib.gostx_tls_config_set_psk(cfg, ident, len(ident), key, len(key)):
                raise _config_error(cfg, lib.GOSTX_EINVAL, "PSK")
        if self._tickets is not None and self._server:
            lib.gostx_tls_config_set_tickets(cfg, *self._tickets)
        lib.gostx_tls_config_set_verify(cfg, self._c_verify())
        store, loaded = x509.Store(), False
        for kind, src in self._cas:
            try:
                if kind == "data":
                    store.load_verify_locations(cadata=src)
                elif os.path.isdir(src):
                    store.load_verify_locations(capath=src)
                else:
                    store.load_verify_locations(cafile=src)
                loaded = True
            except (x509.VerificationError, OSError):
                if kind != "system":  # the system's store may hold no GOST CA, or be gone
                    raise
        if not loaded:  # no store: the library then says "no trust store"
            return None
        lib.gostx_tls_config_set_store(cfg, store._h)
        return store

    def _c_verify(self):
        if self._verify_mode == CERT_NONE:
            return lib.GOSTX_TLS_VERIFY_NONE
        if self._server and self._verify_mode == CERT_REQUIRED:
            return lib.GOSTX_TLS_VERIFY_REQUIRE
        return lib.GOSTX_TLS_VERIFY_PEER


def create_default_context(purpose=ssl.Purpose.SERVER_AUTH, *, cafile=None, capath=None,
                           cadata=None):
    """As ssl.create_default_context: a client Context (purpose SERVER_AUTH)
    verifying against the CAs given, else against the system's
    (load_default_certs), or a server Context (CLIENT_AUTH);
    SSLKEYLOGFILE in the environment sets keylog_filename."""
    ctx = Context(PROTOCOL_TLS_CLIENT if purpose == ssl.Purpose.SERVER_AUTH else PROTOCOL_TLS_SERVER)
    if cafile or capath or cadata:
        ctx.load_verify_locations(cafile, capath, cadata)
    elif ctx.verify_mode != CERT_NONE:
        ctx.load_default_certs(purpose)
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        ctx.keylog_filename = keylog
    return ctx


_KEY_BLOCK = re.compile(rb"-----BEGIN (ENCRYPTED )?PRIVATE KEY-----.*?-----END \1?PRIVATE KEY-----",
                        re.S)


def _load_key(data, password):
    """A PrivateKey from PEM (the first PRIVATE KEY block, anywhere in the
    text) or DER; the password asked for only when the key is encrypted."""
    if b"-----BEGIN" in data:
        m = _KEY_BLOCK.search(data)
        if m is None:
            raise TLSError("no PRIVATE KEY or ENCRYPTED PRIVATE KEY block in the key file")
        data, load = m.group(0), gost3410.load_pem_private_key
    else:
        load = gost3410.load_der_private_key
    try:
        return load(data)
    except GostxTypeError:  # encrypted: now the password
        pass
    except GostxValueError as e:
        raise TLSError(f"private key: {e}") from None
    if callable(password):
        password = password()
    if password is None:
        raise TLSError("the private key is encrypted: give password=")
    if isinstance(password, str):
        password = password.encode()
    try:
        return load(data, password)
    except (GostxValueError, GostxTypeError) as e:
        raise TLSError(f"private key: {e}") from None


def _certs_of_data(data):
    if isinstance(data, str) or b"-----BEGIN" in data:
        return x509.load_pem_x509_certificates(data)
    return [x509.load_der_x509_certificate(data)]


# getpeercert()'s names for the attributes the library writes short
_LONG_NAMES = {"CN": "commonName", "C": "countryName", "L": "localityName",
               "ST": "stateOrProvinceName", "O": "organizationName",
               "OU": "organizationalUnitName", "street": "streetAddress"}
_RDN_SPLIT = re.compile(r", (?=[A-Za-z0-9.]+=)")


def _name_tuple(text):
    rdns = []
    for part in _RDN_SPLIT.split(text):
        k, _, v = part.partition("=")
        rdns.append(((_LONG_NAMES.get(k, k), v),))
    return tuple(rdns)


def _cert_dict(cert):
    """A Certificate as ssl.SSLSocket.getpeercert() gives one."""
    fmt = "%b %d %H:%M:%S %Y GMT"
    d = {"subject": _name_tuple(cert.subject), "issuer": _name_tuple(cert.issuer),
         "version": cert.version, "serialNumber": f"{cert.serial_number:X}",
         "notBefore": cert.not_valid_before.strftime(fmt),
         "notAfter": cert.not_valid_after.strftime(fmt)}
    san = tuple((k, v) for k, v in cert.subject_alt_names if isinstance(v, str))
    if san:
        d["subjectAltName"] = san
    return d


# ---- the socket ----

def _error(tls, rc, err, what):
    """The exception of a libgostx call on tls that failed with rc (errno err
    after it): the transport's OSError, or a TLSError with the library's
    reason, the alert and, for a refused chain, the x509 status."""
    text = ffi.string(lib.gostx_tls_error(tls)).decode(errors="replace")
    text = text or ffi.string(lib.gostx_strerror(rc)).decode()
    if text.startswith("transport") and err:
        return OSError(err, f"{os.strerror(err)} ({what})")
    sent = ffi.new("int *")
    number = lib.gostx_tls_alert(tls, sent)
    alert = None
    if number >= 0:
        alert = ALERTS.get(number, f"alert_{number}")
        text += f" (alert {alert} {'sent' if sent[0] else 'received'})"
    status = _status_of(text)
    if status is not None:
        e = TLSCertVerificationError(f"certificate verify failed: {text}", status)
    elif text.startswith("connection closed"):
        e = TLSEOFError(f"EOF in violation of protocol: {text}")
    else:
        e = TLSError(f"{what} failed: {text}")
    if number >= 0:
        e.alert, e.alert_number, e.alert_sent = alert, number, bool(sent[0])
        e.reason = alert.upper()
    return e


def _free_connection(tls, keep):
    lib.gostx_tls_free(tls)  # wipes its secrets; keep (its transport's buffers) goes after


def _closed_error():
    return OSError(_errno.EBADF, "the TLS connection is closed")


class _Connection:
    """What TLSSocket and TLSObject (the memory-BIO connection, _tls_bio.py)
    share: the libgostx connection's making, and what its handshake
    settled. Each has _context, server_side, server_hostname, _session,
    _lock (one thread in the connection at a time), _tls (None once freed)
    and _done."""

    _version = None

    def _open(self, keep=None):
        """The libgostx connection of the context's current config, its SNI
        and session set (the config outlives the connection, and keep)."""
        conf = self._context._config()
        tls = lib.gostx_tls_new(conf.cfg)
        if tls == ffi.NULL:
            raise MemoryError("TLS connection")
        self._conf = conf
        self._tls = tls
        self._free = weakref.finalize(self, _free_connection, tls, keep)
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
        self._tls = None
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
        with self._lock:
            tls = self._tls
            if tls is None:
                raise _closed_error()
            rc = fn(tls, *args)
            if rc < 0:
                raise _error(tls, rc, ffi.errno, what)
            return rc

    def _check_connected(self):
        if self._tls is None:
            if self._closed:
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
        with self._lock:
            if self._tls is not None:
                self._tls = None
                self._free()  # wipes the connection's secrets

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


def __getattr__(name):
    # requests is an optional extra (pip install gostx[requests]): imported
    # only when the adapter is asked for
    if name == "RequestsAdapter":
        from ._requests import RequestsAdapter
        return RequestsAdapter
    if name in ("HTTPTransport", "AsyncHTTPTransport"):  # httpx: gostx[httpx]
        from . import _httpx
        return getattr(_httpx, name)
    if name == "TLSObject":  # the memory-BIO connection: loaded when wrap_bio is used
        from ._tls_bio import TLSObject
        return TLSObject
    if name in ("open_connection", "start_server"):  # asyncio imported when asked for
        from . import _asyncio
        return getattr(_asyncio, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_ip(name):
    import ipaddress
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False
