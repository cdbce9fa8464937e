"""gostx.tls's names every part of it uses: the constants (versions,
suites, groups, alerts), the exceptions, TLSSession, the exception a failed
library call raises, and a certificate as getpeercert() gives one."""
import os
import re
import socket
import ssl

from .. import x509
from ..pkcs11 import PKCS11Error
from .._native import GostxError, ffi, lib

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


class TLSTokenError(TLSError, PKCS11Error):
    """A TLS call that failed because the PKCS#11 token holding the key did
    (removed mid-handshake, its PIN locked): a TLSError, so an ssl.SSLError
    handler still catches it, and a PKCS11Error, whose kind names what the
    token did."""

    def __new__(cls, kind, message):
        return ssl.SSLError.__new__(cls, cls._code, message)

    def __init__(self, kind, message):
        ssl.SSLError.__init__(self, self._code, message)
        self.kind = kind


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




# ---- a failed call ----

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
