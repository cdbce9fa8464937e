"""gostx.tls.Context (an ssl.SSLContext) and create_default_context: the
settings, the certificate chain and key, the trust anchors, and the built
libgostx config the connections made from it share."""
import os
import re
import ssl
import sys
import threading
import weakref

from .. import gost3410, pkcs11, x509
from .._native import GostxTypeError, GostxValueError, ffi, held, lib
from ._common import (CERT_NONE, CERT_REQUIRED, PROTOCOL_TLS_CLIENT, PROTOCOL_TLS_SERVER,
                      _VERSIONS, TLSError, TLSVersion, _cert_dict)
from ._socket import TLSSocket


class _Config:
    """One built gostx_tls_config with the store and key-log descriptor it
    uses; freed (config first: it points at the store) when the last
    connection made from it and the Context let go of it."""

    def __init__(self, cfg, store, keylog_fd, token=None):
        self.cfg = cfg
        self.store = store  # kept: the config does not copy the store
        # kept: the config's copy of a token key calls into it (PrivateKey._token)
        self.token = token
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
        key. TLSError when the key is not the leaf's or does not decrypt.

        A key on a PKCS#11 token: keyfile a PrivateKey from
        gostx.pkcs11.open_key, or a "pkcs11:" URI (password is then the PIN,
        as open_key's pin); certfile may be a "pkcs11:" URI too (the
        certificate stored with the key: gostx.pkcs11.read_cert)."""
        if _is_p11(certfile):
            cert_data = pkcs11.read_cert(certfile)
        else:
            with open(certfile, "rb") as f:
                cert_data = f.read()
        if isinstance(keyfile, gost3410.PrivateKey):
            key, key_data = keyfile, None
        elif _is_p11(keyfile if keyfile is not None else certfile):
            key = pkcs11.open_key(keyfile if keyfile is not None else certfile, pin=password)
            key_data = None
        elif keyfile is None:
            key_data = cert_data
        else:
            with open(keyfile, "rb") as f:
                key_data = f.read()
        if b"-----BEGIN" in cert_data:
            chain = [c.public_bytes("DER") for c in x509.load_pem_x509_certificates(cert_data)]
        else:
            chain = [x509.load_der_x509_certificate(cert_data).public_bytes("DER")]
        if key_data is not None:
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
        from .._tls_bio import TLSObject  # noqa: PLC0415  (the BIO path loads when used)
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
        return _Config(cfg, store, fd, key._token if chain else None)

    @staticmethod
    def _set_identity(cfg, chain, key):
        ptrs = [ffi.from_buffer("uint8_t[]", d) for d in chain]
        rc = lib.gostx_tls_config_set_chain(cfg, ffi.new("const uint8_t *[]", ptrs),
                                            ffi.new("size_t[]", [len(d) for d in chain]),
                                            len(chain))
        if rc:
            raise _config_error(cfg, rc, "certificate chain")
        with held(key):
            k = key._c_key()
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


def _is_p11(name):
    return isinstance(name, str) and name[:7].lower() == "pkcs11:"


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
