"""GOST R 34.10-2012 keys on PKCS#11 tokens, named by RFC 7512 URIs
(libgostx's include/gostx/pkcs11.h; docs/PKCS11.md, "From Python"):

    key = gostx.pkcs11.open_key("pkcs11:token=gostx;object=signer?module-path=/x.so",
                                pin=b"1234")
    cert = gostx.x509.load_der_x509_certificate(gostx.pkcs11.read_cert(uri))
    sig = gostx.cms.sign(data, cert, key)

open_key gives a gostx.PrivateKey that signs (C_Sign) and derives (VKO,
C_DeriveKey) on the token and holds no private value: every call that takes
a key (PrivateKey.sign / exchange / keg, cms.sign / decrypt / enhance,
xmldsig.sign, tls.Context.load_cert_chain) takes it; private_bytes,
private_bytes_raw and pkcs12.dump refuse it. Each failure is a PKCS11Error
whose kind (a Kind) says what went wrong and whose text is the library's
message (the token, the module, the PKCS#11 return value): from open_key
and read_cert, and from every call that uses the key (a token removed
under cms.sign or a TLS handshake is a PKCS11Error of kind REMOVED, the
call's own error its __cause__). check(key) asks whether its token is
still there."""
import contextlib
import enum
import threading
import weakref

from . import gost3410
from ._native import GostxError, GostxTypeError, GostxValueError, ffi, held, lib
from ._native import check as _check  # check() below is this module's own

__all__ = ["Kind", "PKCS11Error", "open_key", "read_cert", "check", "finalize"]


class Kind(enum.IntEnum):
    """What a failed PKCS#11 call ran into (gostx_p11_status)."""
    BAD_URI = lib.GOSTX_P11_BAD_URI              # the URI was refused
    MODULE = lib.GOSTX_P11_MODULE                # the module could not be loaded or initialised
    NO_TOKEN = lib.GOSTX_P11_NO_TOKEN            # no token matches, or its slot is empty
    NO_OBJECT = lib.GOSTX_P11_NO_OBJECT          # no key (or certificate) matches, or several
    PIN_NEEDED = lib.GOSTX_P11_PIN_NEEDED        # a login is needed and no PIN was given
    PIN_INCORRECT = lib.GOSTX_P11_PIN_INCORRECT  # wrong PIN (tried once, never retried)
    PIN_LOCKED = lib.GOSTX_P11_PIN_LOCKED        # the user PIN is locked
    REMOVED = lib.GOSTX_P11_REMOVED              # the token was removed or is gone
    UNSUPPORTED = lib.GOSTX_P11_UNSUPPORTED      # not a GOST R 34.10-2012 key of a known curve
    BAD_ANSWER = lib.GOSTX_P11_BAD_ANSWER        # the token's signature does not verify
    TOKEN_ERROR = lib.GOSTX_P11_TOKEN_ERROR      # any other PKCS#11 failure (its CKR_ named)


class PKCS11Error(GostxError):
    """A PKCS#11 failure: .kind is a Kind, str() the library's message."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def _token_error():
    """This thread's last PKCS#11 failure (gostx_p11_error) as a PKCS11Error,
    or None when there is none: the one place a token's failure becomes the
    exception that names it."""
    buf = ffi.new("char[]", 512)
    status = lib.gostx_p11_error(buf, len(buf))
    if status == lib.GOSTX_P11_OK:
        return None
    return PKCS11Error(Kind(status), ffi.string(buf).decode(errors="replace"))


def _last_error(rc, what):
    """The exception for a failed PKCS#11 call (open_key, read_cert)."""
    e = _token_error()
    if e is None:  # not the token's failure
        _check(rc, what)
    return e


# Every open token key, so that finalize() can free them before the modules
# go: a key freed after C_Finalize would close sessions of an unloaded module.
_open = weakref.WeakSet()
_open_lock = threading.Lock()


class _TokenKey:
    """Owner of one gostx_p11_key (its session pool): freed when the last
    PrivateKey (and TLS config) bound to it is gone, or by finalize()."""

    def __init__(self, handle, uri):
        self._handle = handle
        self.uri = uri  # for messages: pin-value was refused, so no secret in it
        self.keys = weakref.WeakSet()  # the PrivateKeys bound to it, closed by finalize()
        with _open_lock:
            _open.add(self)

    def check(self, rc, what):
        if rc:
            raise _last_error(rc, what)

    @contextlib.contextmanager
    def calls(self):
        """Around libgostx calls that may use this token's key (a signature,
        a key agreement, a TLS handshake): the signers hand back only the
        callback's GOSTX_E* code, so the thread's PKCS#11 error is cleared
        first and, when the call fails, asked whether the token caused it;
        then that PKCS11Error is raised (the call's own error its cause)."""
        lib.gostx_p11_error_clear()
        try:
            yield
        except PKCS11Error:
            raise
        except Exception as e:
            err = _token_error()
            if err is None:
                raise
            raise err from e

    def free(self):
        h, self._handle = self._handle, None
        if h is not None:
            lib.gostx_p11_key_free(h)

    __del__ = free


def _text(uri):
    if not isinstance(uri, str):
        raise GostxTypeError(f"uri must be a str (pkcs11:...), not {type(uri).__name__!r}")
    if "\0" in uri:
        raise GostxValueError("uri must not contain NUL")
    return uri.encode()


def _parse(uri):
    """The URI checked as gostx_p11_key_open reads it, pin-value refused."""
    text = _text(uri)
    u = ffi.new("gostx_p11_uri *")
    why = ffi.new("char[]", 256)
    try:
        rc = lib.gostx_p11_uri_parse(u, text, why, len(why))
        has = u.has
    finally:
        lib.gostx_p11_uri_clear(u)
    if rc:
        raise PKCS11Error(Kind.BAD_URI, f"bad PKCS#11 URI: {ffi.string(why).decode(errors='replace')}")
    if has & lib.GOSTX_P11_HAS_PIN_VALUE:
        raise PKCS11Error(Kind.BAD_URI,
                          "the PKCS#11 URI has pin-value=: a URI is written to configuration "
                          "files, logs and error messages, so gostx does not take a PIN there; "
                          "give pin= (bytes, str or a callable) or pin-source=/path/to/pin-file")
    return text


class _Pin:
    """The pin argument of one open_key call, handed to C's callback."""

    def __init__(self, pin):
        if pin is not None and not callable(pin) and not isinstance(pin, (str, bytes, bytearray,
                                                                         memoryview)):
            raise GostxTypeError("pin must be None, bytes, str or a callable returning one, not "
                                 f"{type(pin).__name__!r}")
        self.pin = pin
        self.error = None  # an exception raised by a callable, raised again after the call

    def value(self):
        pin = self.pin() if callable(self.pin) else self.pin
        if pin is None:
            return None
        if isinstance(pin, str):
            pin = pin.encode()
        if not isinstance(pin, (bytes, bytearray, memoryview)):
            raise GostxTypeError("the pin callable must return bytes, str or None, not "
                                 f"{type(pin).__name__!r}")
        return bytes(pin)


@ffi.def_extern()
def gxpy_p11_pin(arg, label, flags, out, cap, out_len):
    """C asks for the user PIN (at most once per open_key): nonzero gives up."""
    p = ffi.from_handle(arg)
    try:
        pin = p.value()
    except BaseException as e:  # raised again by open_key, never lost in C
        p.error = e
        return 1
    if pin is None or not 1 <= len(pin) <= cap:
        if pin is not None:
            p.error = GostxValueError(f"the PIN must be 1..{cap} bytes, got {len(pin)}")
        return 1
    ffi.memmove(out, pin, len(pin))
    out_len[0] = len(pin)
    return 0


def open_key(uri, *, pin=None):
    """The private key the URI names (RFC 7512: "pkcs11:token=...;object=...;
    id=...;type=private?module-path=..."), as a gostx.PrivateKey that signs
    and derives on the token. pin: the user PIN when the token needs a login
    and the URI has no pin-source: bytes or str; a callable (no arguments,
    as ssl's password callable; called only when a login is needed) that
    returns bytes, str, or None to give up; or None (then a token that needs
    a login raises PIN_NEEDED). pin-value= in the URI is
    refused (BAD_URI). A wrong PIN is tried once: PKCS11Error with kind
    PIN_INCORRECT, never retried. The module is loaded once per process
    (module-path=, else p11-kit's proxy); the key's sessions are pooled, one
    per thread at a time, so one key signs from many threads at once."""
    text = _parse(uri)
    p = _Pin(pin)
    handle = ffi.new_handle(p)
    out = ffi.new("gostx_p11_key **")
    rc = lib.gostx_p11_key_open(out, text, lib.gxpy_p11_pin, handle)
    if rc:
        if p.error is not None:
            raise p.error
        raise _last_error(rc, "pkcs11 open")
    token = _TokenKey(out[0], uri)
    pub = ffi.new("gostx_gost3410_key[1]")
    ckey = ffi.new("gostx_gost3410_key[1]")
    token.check(lib.gostx_p11_key_public(out[0], pub), "pkcs11 public key")
    if pub[0].gost2001:  # PrivateKey and PublicKey are 2012 keys: they would mislabel it
        token.free()
        raise PKCS11Error(Kind.UNSUPPORTED,
                          "the key the URI names is a GOST R 34.10-2001 key (its "
                          "CKA_GOSTR3411_PARAMS are GOST R 34.11-94's); gostx signs with GOST "
                          "R 34.10-2012 keys only")
    token.check(lib.gostx_p11_key_bind(out[0], ckey), "pkcs11 bind")
    curve = gost3410.Curve(pub[0].curve)
    n = pub[0].len
    oid = ffi.string(pub[0].oid).decode() or None
    return gost3410.PrivateKey._on_token(curve, ckey, bytes(ffi.buffer(pub[0].q, 2 * n)), oid,
                                          token)


def read_cert(uri):
    """The DER certificate the URI names (type=cert, type=private or none; a
    key and its certificate share object and id, so a key's URI names its
    certificate), read without a login."""
    text = _parse(uri)
    der = ffi.new("uint8_t **")
    n = ffi.new("size_t *")
    rc = lib.gostx_p11_cert_read(text, der, n)
    if rc:
        raise _last_error(rc, "pkcs11 certificate")
    try:
        return bytes(ffi.buffer(der[0], n[0]))
    finally:
        lib.free(der[0])


def check(key):
    """Whether key's token is still there (gostx_p11_key_check: the token's
    state and one of the key's sessions; a token pulled out and put back
    has lost them): None, else PKCS11Error (REMOVED when it was removed).
    For a long-lived program before it uses a key again. key: a PrivateKey
    from open_key (ValueError for another key, or one finalize() closed)."""
    token = getattr(key, "_token", None)
    if not isinstance(key, gost3410.PrivateKey) or token is None:
        raise GostxValueError("check takes a key from gostx.pkcs11.open_key")
    with held(key):
        key._live()  # a closed key: ValueError
        handle = token._handle
        if handle is None:
            raise GostxValueError("the token key was closed (gostx.pkcs11.finalize)")
        token.check(lib.gostx_p11_key_check(handle), "pkcs11 check")


def finalize():
    """Close every token key (later calls on them raise ValueError) and
    C_Finalize and unload every module; the next open_key loads them again.
    Call it when no token key is in use on another thread. Done at exit too."""
    with _open_lock:
        tokens = list(_open)
        _open.clear()
    for t in tokens:
        for k in list(t.keys):
            k.close()
        t.free()
    lib.gostx_p11_finalize()
