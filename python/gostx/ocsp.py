"""OCSP (RFC 6960) with GOST signatures (libgostx's include/gostx/ocsp.h,
docs/OCSP.md): requests written and read, responses read and checked as
`gostx ocsp` checks them, each refusal named.

    req = gostx.ocsp.request(cert, issuer)                 # SHA-1 CertID, a 16-byte nonce
    resp = gostx.ocsp.post("http://ocsp.example/", req)    # or any HTTP client
    single = gostx.ocsp.check(resp, cert, issuer, request=req)
    single.status                                          # 'good', 'revoked' or 'unknown'

check() raises VerificationError (status: a Status) when the response is
not to be believed: for another certificate, unsigned, signed by a
responder without id-kp-OCSPSigning, stale, another nonce, malformed. A
verified response that says "revoked" is not an error: it is the answer."""
import datetime
import enum
import os
import time
import urllib.parse
import urllib.request
from typing import NamedTuple

from ._native import (GostxError, GostxTypeError, GostxValueError, LibStatus, check as _check_rc, ffi,
                      lib, rbuf)
from .x509 import Certificate
from .x509 import VerificationError as _X509Error

__all__ = ["request", "parse_request", "parse_response", "check", "post", "CertID", "Request",
           "Response", "SingleResponse", "ResponseStatus", "Status", "VerificationError"]

_HASHES = {"sha1": lib.GOSTX_OCSP_SHA1, "streebog256": lib.GOSTX_OCSP_STREEBOG256,
           "streebog512": lib.GOSTX_OCSP_STREEBOG512}
_HASH_NAMES = {v: k for k, v in _HASHES.items()}
_CERT_STATUS = {lib.GOSTX_OCSP_GOOD: "good", lib.GOSTX_OCSP_REVOKED: "revoked",
                lib.GOSTX_OCSP_UNKNOWN: "unknown"}
_MAX_RESPONSE = 1 << 20  # what post() reads at most (gostx ocsp -url's bound)


class Status(LibStatus):
    """gostx_ocsp_check's verdicts; str() is the library's text."""
    OK = lib.GOSTX_OCSP_OK
    MALFORMED = lib.GOSTX_OCSP_MALFORMED
    NOT_SUCCESSFUL = lib.GOSTX_OCSP_NOT_SUCCESSFUL
    UNSIGNED = lib.GOSTX_OCSP_UNSIGNED
    UNSUPPORTED = lib.GOSTX_OCSP_UNSUPPORTED
    UNKNOWN_RESPONDER = lib.GOSTX_OCSP_UNKNOWN_RESPONDER
    BAD_SIGNATURE = lib.GOSTX_OCSP_BAD_SIGNATURE
    NOT_AUTHORIZED = lib.GOSTX_OCSP_NOT_AUTHORIZED
    RESPONDER_NOT_ISSUED = lib.GOSTX_OCSP_RESPONDER_NOT_ISSUED
    RESPONDER_EXPIRED = lib.GOSTX_OCSP_RESPONDER_EXPIRED
    CERT_MISSING = lib.GOSTX_OCSP_CERT_MISSING
    NONCE_MISSING = lib.GOSTX_OCSP_NONCE_MISSING
    NONCE_MISMATCH = lib.GOSTX_OCSP_NONCE_MISMATCH
    NOT_YET_VALID = lib.GOSTX_OCSP_NOT_YET_VALID
    STALE = lib.GOSTX_OCSP_STALE

    _text_of = staticmethod(lib.gostx_ocsp_status_name)


class ResponseStatus(enum.IntEnum):
    """OCSPResponseStatus (RFC 6960 4.2.1)."""
    SUCCESSFUL = lib.GOSTX_OCSP_RESP_SUCCESSFUL
    MALFORMED_REQUEST = lib.GOSTX_OCSP_RESP_MALFORMED_REQUEST
    INTERNAL_ERROR = lib.GOSTX_OCSP_RESP_INTERNAL_ERROR
    TRY_LATER = lib.GOSTX_OCSP_RESP_TRY_LATER
    SIG_REQUIRED = lib.GOSTX_OCSP_RESP_SIG_REQUIRED
    UNAUTHORIZED = lib.GOSTX_OCSP_RESP_UNAUTHORIZED


class VerificationError(GostxError, ValueError):
    """A request or response refused: status (Status), why (one line) and
    index (which certificate asked, for CERT_MISSING and the time checks)."""

    def __init__(self, status, why="", index=0):
        self.status = Status(status)
        self.why = why or self.status.text
        self.index = index
        super().__init__(f"OCSP verification failed: {self.status.name}: {self.why}")


class CertID(NamedTuple):
    """A CertID: its hash ('sha1', 'streebog256', 'streebog512', or
    'other': one gostx does not know), the issuer's name and key hashes and
    the certificate's serial number."""
    hash: str
    issuer_name_hash: bytes
    issuer_key_hash: bytes
    serial_number: int


class Request(NamedTuple):
    """An OCSPRequest read: its CertIDs and nonce (None: none)."""
    certids: list
    nonce: "bytes | None"


class SingleResponse(NamedTuple):
    """One certificate's status: 'good', 'revoked' or 'unknown'; for a
    revoked one the time (aware UTC datetime) and reason (openssl's name,
    "keyCompromise", or None when the response gives none); thisUpdate
    and nextUpdate (None when absent)."""
    certid: CertID
    status: str
    revocation_time: "datetime.datetime | None"
    revocation_reason: "str | None"
    this_update: datetime.datetime
    next_update: "datetime.datetime | None"


def _utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


def _bytes(obj):
    """A bytes-like argument as bytes (GostxTypeError for a str or the like)."""
    return bytes(rbuf(obj))


def _seconds(at):
    if at is None:
        return int(time.time())
    return int(at.timestamp() if hasattr(at, "timestamp") else at)


def _certid(c):
    serial = int.from_bytes(ffi.buffer(c.serial, c.serial_len), "big", signed=True)
    return CertID(_HASH_NAMES.get(c.hash, "other"), bytes(c.name_hash[0:c.hash_len]),
                  bytes(c.key_hash[0:c.hash_len]), serial)


def _single(s):
    revoked = s.status == lib.GOSTX_OCSP_REVOKED
    reason = None
    if revoked and s.reason >= 0:
        reason = ffi.string(lib.gostx_ocsp_reason_name(s.reason)).decode()
    return SingleResponse(_certid(s.id), _CERT_STATUS.get(s.status, "unknown"),
                          _utc(s.revocation_time) if revoked else None, reason,
                          _utc(s.this_update), _utc(s.next_update) if s.next_update else None)


def _cert(obj, what):
    if not isinstance(obj, Certificate):
        raise GostxTypeError(f"{what} must be a gostx.x509.Certificate, not {type(obj).__name__!r}")
    return obj


def _hash_id(name):
    try:
        return _HASHES[name]
    except (KeyError, TypeError):
        raise GostxValueError(f"hash must be one of {', '.join(_HASHES)}, not {name!r}") from None


def _make_certid(cert, issuer, hash_id, into):
    _check_rc(lib.gostx_ocsp_certid_make(issuer._c, cert._c.serial, cert._c.serial_len, hash_id,
                                         into), "ocsp certid")


def request(cert, issuer, *, hash="sha1", nonce=True):
    """A DER OCSPRequest (unsigned) for cert (a gostx.x509.Certificate, or a
    list of them) issued by issuer: CertIDs with hash ('sha1', what every
    responder knows; 'streebog256', 'streebog512'), and a nonce: True 16
    random bytes, bytes that nonce (1 to 32), False none. parse_request()
    gives the nonce back; check(..., request=) uses it."""
    certs = list(cert) if isinstance(cert, (list, tuple)) else [cert]
    certs = [_cert(c, "cert") for c in certs]
    issuer = _cert(issuer, "issuer")
    if not 1 <= len(certs) <= lib.GOSTX_OCSP_MAX_IDS:
        raise GostxValueError(f"1 to {lib.GOSTX_OCSP_MAX_IDS} certificates, not {len(certs)}")
    hid = _hash_id(hash)
    req = ffi.new("gostx_ocsp_request *")
    for i, c in enumerate(certs):
        _make_certid(c, issuer, hid, ffi.addressof(req.id, i))
    req.n = len(certs)
    if nonce is True:
        nonce = os.urandom(16)
    if nonce:
        nonce = bytes(nonce)
        if len(nonce) > lib.GOSTX_OCSP_NONCE_MAX:
            raise GostxValueError(f"a nonce of 1 to {lib.GOSTX_OCSP_NONCE_MAX} bytes, not {len(nonce)}")
        ffi.memmove(req.nonce, nonce, len(nonce))
        req.nonce_len = len(nonce)
    n = ffi.new("size_t *")
    out = ffi.new("uint8_t[]", 512 + 300 * len(certs))
    _check_rc(lib.gostx_ocsp_request_write(req, out, len(out), n), "ocsp request")
    return bytes(ffi.buffer(out, n[0]))


def _parse_request(der):
    req = ffi.new("gostx_ocsp_request *")
    rc = lib.gostx_ocsp_request_parse(der, len(der), req)
    if rc == lib.GOSTX_EUNSUP:
        raise VerificationError(Status.MALFORMED, "more CertIDs than gostx reads, or an unknown "
                                "critical extension")
    if rc:
        raise VerificationError(Status.MALFORMED, "not a DER OCSPRequest")
    return req


def parse_request(der):
    """A DER OCSPRequest read: Request(certids, nonce). VerificationError
    (MALFORMED) for what is none."""
    req = _parse_request(_bytes(der))
    nonce = bytes(req.nonce[0:req.nonce_len]) if req.nonce_len else None
    return Request([_certid(req.id[i]) for i in range(req.n)], nonce)


class Response:
    """A DER OCSPResponse read (parse_response): status (ResponseStatus;
    the rest is empty unless SUCCESSFUL), produced_at, nonce (None: none),
    responses (SingleResponse each), certificates (those it carries),
    responder_name (byName, as one line) or responder_key_hash (byKey), der.
    Nothing here is checked yet: check() does that."""

    __slots__ = ("der", "_buf", "_r", "status", "produced_at", "nonce", "responses",
                 "certificates", "responder_name", "responder_key_hash")

    def __init__(self, der):
        self.der = _bytes(der)
        self._buf = ffi.from_buffer("uint8_t[]", self.der)  # the parse points into it
        self._r = r = ffi.new("gostx_ocsp_response *")
        if lib.gostx_ocsp_response_parse(self._buf, len(self.der), r):
            raise VerificationError(Status.MALFORMED, "not a DER OCSPResponse gostx reads")
        self.status = ResponseStatus(r.status) if r.status in ResponseStatus._value2member_map_ \
            else r.status
        self.responses, self.certificates = [], []
        self.produced_at = self.nonce = self.responder_name = self.responder_key_hash = None
        if r.status != lib.GOSTX_OCSP_RESP_SUCCESSFUL:
            return
        self.produced_at = _utc(r.produced_at)
        self.nonce = bytes(ffi.buffer(r.nonce, r.nonce_len)) if r.nonce != ffi.NULL else None
        if r.by_key:
            self.responder_key_hash = bytes(ffi.buffer(r.responder, r.responder_len))
        else:
            text = ffi.new("char[]", 1024)
            if lib.gostx_x509_name_text(r.responder, r.responder_len, text, len(text)) == 0:
                self.responder_name = ffi.string(text).decode("utf-8", "replace")
        pos, s = ffi.new("size_t *", 0), ffi.new("gostx_ocsp_single *")
        while lib.gostx_ocsp_single_next(r, pos, s) == 1:
            self.responses.append(_single(s))
        pos[0] = 0
        p, n = ffi.new("const uint8_t **"), ffi.new("size_t *")
        while lib.gostx_ocsp_cert_next(r, pos, p, n) == 1:
            try:
                self.certificates.append(Certificate._parse(ffi.buffer(p[0], n[0])))
            except _X509Error:
                pass  # one gostx does not read (not GOST) cannot be the responder anyway

    def __repr__(self):
        return f"<gostx.ocsp.Response {getattr(self.status, 'name', self.status)} " \
               f"{[s.status for s in self.responses]}>"


def parse_response(der):
    """A DER OCSPResponse read (its signature not checked): a Response.
    VerificationError (MALFORMED) for what is none (truncated, trailing
    bytes, not DER, an unknown critical extension)."""
    return Response(der)


def check(response, cert, issuer, *, trusted=(), nonce=None, request=None, hash=None, at=None,
          skew=None, max_age=None):
    """Checks response (DER bytes or a Response) for cert, issued by issuer
    (the CA, trusted as such), as gostx ocsp does: signed by the CA, by a
    responder of trusted (certificates trusted as they are: openssl's
    -VAfile), or by a delegated responder the CA issued with
    id-kp-OCSPSigning, valid at at; the nonce sent echoed; a SingleResponse
    for cert's CertID, thisUpdate - skew <= at <= nextUpdate + skew (skew
    default 300 s; max_age: without nextUpdate, thisUpdate at most this
    many seconds old). nonce: the nonce sent (None: not checked); request:
    the DER request sent, its nonce and CertID hash used unless nonce or
    hash are given. hash: the CertID's ('sha1', ...; default the request's,
    else the hash of the response's entry for cert's serial). at: a
    datetime or seconds (default now). Returns cert's SingleResponse (its
    status may be 'revoked'); raises VerificationError naming the failure."""
    r = response if isinstance(response, Response) else Response(response)
    cert, issuer = _cert(cert, "cert"), _cert(issuer, "issuer")
    trusted = [_cert(c, "trusted") for c in trusted]
    if request is not None:
        sent = parse_request(request)  # (a bytes-like DER request)
        if nonce is None:
            nonce = sent.nonce
        if hash is None and sent.certids:
            hash = sent.certids[0].hash
    if hash is None:
        hash = next((s.certid.hash for s in r.responses
                     if s.certid.serial_number == cert.serial_number and s.certid.hash in _HASHES),
                    "sha1")
    cid = ffi.new("gostx_ocsp_certid *")
    _make_certid(cert, issuer, _hash_id(hash), cid)
    o = ffi.new("gostx_ocsp_check_opts *")
    lib.gostx_ocsp_check_opts_init(o, _seconds(at))
    if skew is not None:
        o.skew = int(skew)
    if max_age is not None:
        o.max_age = int(max_age)
    o.issuer = issuer._c
    arr = ffi.new("gostx_x509_cert[]", max(len(trusted), 1))
    for i, c in enumerate(trusted):
        arr[i] = c._c[0]
    o.trusted, o.n_trusted = arr, len(trusted)
    if nonce is not None:
        nonce = bytes(nonce)
        keep = ffi.from_buffer("uint8_t[]", nonce) if nonce else ffi.new("uint8_t[1]")
        o.nonce, o.nonce_len = keep, len(nonce)
    out, which = ffi.new("gostx_ocsp_single *"), ffi.new("size_t *")
    st = lib.gostx_ocsp_check(r._r, o, cid, 1, out, which, ffi.NULL)
    if st != lib.GOSTX_OCSP_OK:
        raise VerificationError(st, "", which[0])
    return _single(out)


def post(url, request, *, timeout=20, content_type="application/ocsp-request",
         accept="application/ocsp-response"):
    """POSTs request (DER bytes) to an http:// or https:// URL with urllib
    (RFC 6960 A.1: Content-Type application/ocsp-request) and returns the
    reply's body (at most 1 MiB). OSError (urllib's URLError, HTTPError)
    when the server cannot be reached or answers another status than 200."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise GostxValueError(f"an http:// or https:// URL is needed, not {url!r}")
    body = _bytes(request)
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type": content_type, "Accept": accept})
    with urllib.request.urlopen(req, timeout=timeout) as reply:  # noqa: S310 (scheme checked)
        if reply.status != 200:
            raise OSError(f"{url}: HTTP {reply.status}")
        data = reply.read(_MAX_RESPONSE + 1)
    if len(data) > _MAX_RESPONSE:
        raise GostxValueError(f"{url}: a reply larger than {_MAX_RESPONSE} bytes")
    return data
