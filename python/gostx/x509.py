"""X.509 certificates with GOST R 34.10 keys (libgostx's include/gostx/x509.h):
load PEM or DER, read subject, issuer, serial, validity, subjectAltName and
the key, and verify a chain to a Store of trust anchors with the library's
named statuses (RFC 5280 path processing, as `gostx x509 verify` does).

    store = gostx.x509.Store()
    store.load_verify_locations(cafile="ca.pem")
    leaf, *rest = gostx.x509.load_pem_x509_certificates(open("chain.pem", "rb").read())
    store.verify(leaf, untrusted=rest, purpose="server", hostname="example.test")

A refusal raises VerificationError: its status (a Status member, as the
library names the check that failed), why (the library's one-line reason)
and depth (which certificate of the path failed)."""
import base64
import datetime
import ipaddress
import os
import time

from ._native import GostxError, GostxTypeError, GostxValueError, LibStatus, check, ffi, lib
from .gost3410 import Curve, PublicKey

__all__ = ["Certificate", "Store", "Status", "VerificationError", "load_pem_x509_certificate",
           "load_pem_x509_certificates", "load_der_x509_certificate"]

_DER_MAX = 64 * 1024  # a certificate larger than this is no certificate we read


class Status(LibStatus):
    """The library's verdicts (gostx_x509_status); str() is its text."""
    OK = lib.GOSTX_X509_OK
    MALFORMED = lib.GOSTX_X509_MALFORMED
    UNSUPPORTED = lib.GOSTX_X509_UNSUPPORTED
    BAD_SIGNATURE = lib.GOSTX_X509_BAD_SIGNATURE
    NOT_YET_VALID = lib.GOSTX_X509_NOT_YET_VALID
    EXPIRED = lib.GOSTX_X509_EXPIRED
    UNKNOWN_CA = lib.GOSTX_X509_UNKNOWN_CA
    NOT_CA = lib.GOSTX_X509_NOT_CA
    PATH_LEN = lib.GOSTX_X509_PATH_LEN
    KEY_USAGE = lib.GOSTX_X509_KEY_USAGE
    EXT_KEY_USAGE = lib.GOSTX_X509_EXT_KEY_USAGE
    NAME_MISMATCH = lib.GOSTX_X509_NAME_MISMATCH
    CRITICAL_EXT = lib.GOSTX_X509_CRITICAL_EXT
    BAD_KEY = lib.GOSTX_X509_BAD_KEY
    NAME_CONSTRAINTS = lib.GOSTX_X509_NAME_CONSTRAINTS
    POLICY = lib.GOSTX_X509_POLICY
    PATH_TOO_LONG = lib.GOSTX_X509_PATH_TOO_LONG
    BAD_EXTENSION = lib.GOSTX_X509_BAD_EXTENSION
    BAD_VERSION = lib.GOSTX_X509_BAD_VERSION
    SIG_ALG_MISMATCH = lib.GOSTX_X509_SIG_ALG_MISMATCH
    PROFILE = lib.GOSTX_X509_PROFILE
    EMAIL_MISMATCH = lib.GOSTX_X509_EMAIL_MISMATCH
    REVOKED = lib.GOSTX_X509_REVOKED
    CRL_UNAVAILABLE = lib.GOSTX_X509_CRL_UNAVAILABLE
    CRL_SCOPE = lib.GOSTX_X509_CRL_SCOPE
    CRL_EXPIRED = lib.GOSTX_X509_CRL_EXPIRED
    CRL_BAD_SIGNATURE = lib.GOSTX_X509_CRL_BAD_SIGNATURE
    CRL_WRONG_ISSUER = lib.GOSTX_X509_CRL_WRONG_ISSUER
    CRL_CRITICAL_EXT = lib.GOSTX_X509_CRL_CRITICAL_EXT
    CRL_MALFORMED = lib.GOSTX_X509_CRL_MALFORMED
    CRL_DELTA = lib.GOSTX_X509_CRL_DELTA
    CRL_INDIRECT = lib.GOSTX_X509_CRL_INDIRECT
    OCSP_UNKNOWN = lib.GOSTX_X509_OCSP_UNKNOWN
    OCSP_INVALID = lib.GOSTX_X509_OCSP_INVALID
    OCSP_STALE = lib.GOSTX_X509_OCSP_STALE
    NO_REVOCATION_DATA = lib.GOSTX_X509_NO_REVOCATION_DATA
    CRL_NO_NUMBER = lib.GOSTX_X509_CRL_NO_NUMBER
    CRL_NUMBER_CRITICAL = lib.GOSTX_X509_CRL_NUMBER_CRITICAL

    _text_of = staticmethod(lib.gostx_x509_status_name)


class VerificationError(GostxError, ValueError):
    """A certificate or chain the library refused: status (Status), why (the
    library's reason in one line), depth (the index in the built path of the
    certificate that failed, 0 the leaf). verify_code / verify_message are
    the same as ssl.SSLCertVerificationError names them."""

    def __init__(self, status, why="", depth=0):
        self.status = Status(status)
        self.why = why or self.status.text
        self.depth = depth
        self.verify_code = int(self.status)
        self.verify_message = self.why
        super().__init__(f"certificate verify failed: {self.status.name}: {self.why}"
                         f" (certificate {depth} of the path)")


_PURPOSES = {"any": lib.GOSTX_X509_PURPOSE_ANY, "server": lib.GOSTX_X509_PURPOSE_SERVER,
             "client": lib.GOSTX_X509_PURPOSE_CLIENT,
             "server_tls12": lib.GOSTX_X509_PURPOSE_SERVER_TLS12}

# subjectAltName entries as ssl.getpeercert() names them
_SAN_KINDS = {1: "email", 2: "DNS", 6: "URI", 7: "IP Address"}


def _utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


class Certificate:
    """One parsed certificate (immutable; equal when the DER is). Made by the
    load_* functions."""

    __slots__ = ("_der", "_buf", "_c")

    def __init__(self, *args, **kwargs):
        raise GostxTypeError("Certificate objects come from load_pem_x509_certificate(s) or "
                             "load_der_x509_certificate")

    @classmethod
    def _parse(cls, der):
        self = object.__new__(cls)
        self._der = bytes(der)
        self._buf = ffi.from_buffer("uint8_t[]", self._der)  # the parse points into it
        self._c = ffi.new("gostx_x509_cert *")
        st = ffi.new("gostx_x509_status *", lib.GOSTX_X509_MALFORMED)
        if lib.gostx_x509_parse(self._buf, len(self._der), self._c, st) != 0:
            status = Status(st[0])
            raise VerificationError(status, f"not a certificate gostx reads: {status.text}")
        return self

    def _name(self, p, n):
        text = ffi.new("char[]", 1024)
        check(lib.gostx_x509_name_text(p, n, text, len(text)), "name")
        return ffi.string(text).decode("utf-8", "replace")

    @property
    def subject(self):
        """The subject as one line, "CN=x, O=y" (the RDNs in their order)."""
        return self._name(self._c.subject, self._c.subject_len)

    @property
    def issuer(self):
        """The issuer as one line, as subject."""
        return self._name(self._c.issuer, self._c.issuer_len)

    @property
    def serial_number(self):
        """The serial as an int (the INTEGER, two's complement)."""
        return int.from_bytes(ffi.buffer(self._c.serial, self._c.serial_len), "big", signed=True)

    @property
    def version(self):
        """1, 2 or 3."""
        return self._c.version

    @property
    def not_valid_before(self):
        """notBefore as an aware datetime in UTC."""
        return _utc(self._c.not_before)

    @property
    def not_valid_after(self):
        """notAfter as an aware datetime in UTC."""
        return _utc(self._c.not_after)

    not_valid_before_utc = not_valid_before
    not_valid_after_utc = not_valid_after

    @property
    def is_ca(self):
        """basicConstraints cA."""
        return bool(self._c.is_ca)

    @property
    def subject_alt_names(self):
        """subjectAltName as ssl.getpeercert() gives it: (kind, value) pairs,
        kind "DNS", "IP Address", "email", "URI" (others by tag number,
        their value the DER content as bytes)."""
        out = []
        pos = ffi.new("size_t *", 0)
        kind, value, n = ffi.new("int *"), ffi.new("const uint8_t **"), ffi.new("size_t *")
        while lib.gostx_x509_san_next(self._c, pos, kind, value, n) == 1:
            raw = bytes(ffi.buffer(value[0], n[0]))
            name = _SAN_KINDS.get(kind[0])
            if name == "IP Address" and len(raw) in (4, 16):
                out.append((name, str(ipaddress.ip_address(raw)).upper()
                            if len(raw) == 16 else str(ipaddress.ip_address(raw))))
            elif name is not None:
                out.append((name, raw.decode("ascii", "replace")))
            else:
                out.append((str(kind[0]), raw))
        return out

    @property
    def curve(self):
        """The subject key's Curve."""
        return Curve(self._c.curve)

    def public_key(self):
        """The subject key as a gostx.PublicKey."""
        return PublicKey._new(self.curve, bytes(ffi.buffer(self._c.pub, self._c.pub_len)))

    def public_bytes(self, encoding="PEM"):
        """The certificate as PEM text (bytes) or "DER"."""
        if encoding == "DER":
            return self._der
        if encoding != "PEM":
            raise GostxValueError(f"encoding must be 'PEM' or 'DER', not {encoding!r}")
        b64 = base64.b64encode(self._der)
        lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
        return b"-----BEGIN CERTIFICATE-----\n" + b"\n".join(lines) + b"\n-----END CERTIFICATE-----\n"

    def __eq__(self, other):
        if not isinstance(other, Certificate):
            return NotImplemented
        return self._der == other._der

    def __hash__(self):
        return hash(self._der)

    def __repr__(self):
        return f"<gostx.x509.Certificate subject={self.subject!r}>"

    def __reduce__(self):
        return load_der_x509_certificate, (self._der,)


def _pem_blocks(data):
    """The DER of each CERTIFICATE block of PEM text, in order."""
    if isinstance(data, str):
        data = data.encode()
    src = ffi.from_buffer("char[]", data)
    pos = ffi.new("size_t *", 0)
    der = ffi.new("uint8_t[]", _DER_MAX)
    n = ffi.new("size_t *")
    out = []
    while True:
        rc = lib.gostx_x509_pem_next(src, len(src), pos, der, len(der), n)
        if rc == 0:
            return out
        if rc != 1:
            raise VerificationError(Status.MALFORMED, f"PEM certificate {len(out) + 1}: "
                                    "malformed (not base64, or larger than 64 KiB)")
        out.append(bytes(ffi.buffer(der, n[0])))


def load_pem_x509_certificates(data):
    """Every certificate of PEM text (bytes or str), in order; ValueError
    (VerificationError, status MALFORMED) when it has none."""
    ders = _pem_blocks(data)
    if not ders:
        raise VerificationError(Status.MALFORMED, "no CERTIFICATE block in the PEM text")
    return [Certificate._parse(d) for d in ders]


def load_pem_x509_certificate(data):
    """The first certificate of PEM text (bytes or str)."""
    return load_pem_x509_certificates(data)[0]


def load_der_x509_certificate(data):
    """A certificate from its DER."""
    return Certificate._parse(memoryview(data).tobytes())


class Store:
    """Trust anchors (gostx_x509_store): chains verify only to these."""

    def __init__(self):
        self._h = ffi.gc(lib.gostx_x509_store_new(), lib.gostx_x509_store_free)
        if self._h == ffi.NULL:
            raise MemoryError("x509 store")

    def load_verify_locations(self, cafile=None, capath=None, cadata=None):
        """As ssl.SSLContext's: cafile a PEM (or DER) file, capath a folder
        of them, cadata PEM text (str) or DER/PEM bytes. Certificates of
        other algorithms are passed over; a source with no GOST certificate
        at all is an error (VerificationError, or OSError for a file that
        cannot be read)."""
        if cafile is None and capath is None and cadata is None:
            raise GostxTypeError("cafile, capath and cadata cannot be all omitted")
        for path in (cafile, capath):
            if path is not None:
                self._add_path(os.fsdecode(path))
        if cadata is not None:
            self._add_data(cadata)

    def _add_path(self, path):
        err = ffi.new("char[]", 512)
        rc = lib.gostx_x509_store_add_path(self._h, path.encode(), err, len(err))
        if rc == lib.GOSTX_EIO:
            e = ffi.errno
            if not os.path.exists(path):
                raise FileNotFoundError(2, "No such file or directory", path)
            raise OSError(e or 5, f"cannot read {path}: {ffi.string(err).decode(errors='replace')}")
        if rc == lib.GOSTX_EFORMAT:
            why = ffi.string(err).decode(errors="replace") or f"{path}: no GOST certificate"
            raise VerificationError(Status.MALFORMED, why)
        check(rc, path)

    def _add_data(self, data):
        if isinstance(data, str) or bytes(memoryview(data)[:64]).lstrip().startswith(b"-----BEGIN"):
            ders = _pem_blocks(data)
        else:
            ders = [memoryview(data).tobytes()]
        if not ders:
            raise VerificationError(Status.MALFORMED, "cadata: no CERTIFICATE block")
        for d in ders:
            rc = lib.gostx_x509_store_add_der(self._h, d, len(d))
            if rc == lib.GOSTX_EFORMAT:
                Certificate._parse(d)  # raises with the parser's status
                raise VerificationError(Status.MALFORMED, "cadata: refused by the store")
            check(rc, "cadata")

    def verify(self, cert, untrusted=(), purpose="any", hostname=None, at=None, lax=False):
        """Verify cert through the untrusted certificates (any order) to an
        anchor of this store, for purpose ("any", "server", "client",
        "server_tls12") and, when given, hostname (a DNS name or an IP
        literal), at the time at (a datetime or seconds since 1970; default
        now); lax: RFC 5280's profile rules not enforced (as -x509_lax).
        Returns the path built, leaf first and the anchor last; raises
        VerificationError naming the check that failed."""
        if purpose not in _PURPOSES:
            raise GostxValueError(f"purpose must be one of {', '.join(_PURPOSES)}, not {purpose!r}")
        chain = [cert, *untrusted]
        for c in chain:
            if not isinstance(c, Certificate):
                raise GostxTypeError(f"a Certificate is required, not {type(c).__name__!r}")
        certs = ffi.new("gostx_x509_cert[]", len(chain))
        for i, c in enumerate(chain):
            certs[i] = c._c[0]
        now = int(time.time()) if at is None else int(at.timestamp() if hasattr(at, "timestamp") else at)
        opts, r = ffi.new("gostx_x509_verify_opts *"), ffi.new("gostx_x509_verify_result *")
        lib.gostx_x509_verify_opts_init(opts, now)
        opts.purpose = _PURPOSES[purpose]
        if lax:
            opts.flags |= lib.GOSTX_X509_VERIFY_LAX
        name = ffi.new("char[]", hostname.encode()) if hostname is not None else ffi.NULL
        opts.name = name
        st = lib.gostx_x509_verify_with(self._h, certs, len(chain), opts, r)
        if st != lib.GOSTX_X509_OK:
            raise VerificationError(st, ffi.string(r.why).decode(errors="replace"), r.depth)
        return [Certificate._parse(ffi.buffer(r.path[i].der, r.path[i].der_len))
                for i in range(r.path_len)]
