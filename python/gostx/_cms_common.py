"""What gostx.cms and its CAdES modules (_cades.py, _cades_verify.py)
share, below all of them: the verdicts (Status, VerificationError, the
public names re-exported by gostx.cms), a content read in chunks, a
signature's DER, a certificate taken as an object or bytes, PEM output.
Imports neither gostx.cms nor the CAdES modules, so no cycle holds them."""
import datetime
import os

from ._native import GostxError, GostxTypeError, GostxValueError, LibStatus, check, ffi, lib, rbuf
from .x509 import Certificate
from .x509 import Status as X509Status

_CHUNK = 1 << 20  # what a detached content is hashed by
_MAX_DER = 64 << 20  # a signature (attached content included) read whole at most this large


class Status(LibStatus):
    """The library's verdicts (gostx_cms_status; for timestamps
    gostx_cms_ts_status offset by 100, for the CAdES-C/X layers
    gostx_cades_status offset by 200); str() is the library's text."""
    __module__ = "gostx.cms"  # its public home (pickling, help())
    MALFORMED = lib.GOSTX_CMS_MALFORMED
    TRUNCATED = lib.GOSTX_CMS_TRUNCATED
    TRAILING_DATA = lib.GOSTX_CMS_TRAILING_DATA
    NOT_SIGNED_DATA = lib.GOSTX_CMS_NOT_SIGNED_DATA
    TOO_MANY = lib.GOSTX_CMS_TOO_MANY
    UNKNOWN_ALGORITHM = lib.GOSTX_CMS_UNKNOWN_ALGORITHM
    ALGORITHM_MISMATCH = lib.GOSTX_CMS_ALGORITHM_MISMATCH
    NO_CONTENT = lib.GOSTX_CMS_NO_CONTENT
    MISSING_ATTRIBUTE = lib.GOSTX_CMS_MISSING_ATTRIBUTE
    BAD_ATTRIBUTE = lib.GOSTX_CMS_BAD_ATTRIBUTE
    CONTENT_TYPE_MISMATCH = lib.GOSTX_CMS_CONTENT_TYPE_MISMATCH
    DIGEST_MISMATCH = lib.GOSTX_CMS_DIGEST_MISMATCH
    BAD_SIGNATURE = lib.GOSTX_CMS_BAD_SIGNATURE
    SIGNER_NOT_FOUND = lib.GOSTX_CMS_SIGNER_NOT_FOUND
    SIGNING_CERT_MISMATCH = lib.GOSTX_CMS_SIGNING_CERT_MISMATCH
    KEY_USAGE = lib.GOSTX_CMS_KEY_USAGE
    CHAIN = lib.GOSTX_CMS_CHAIN
    WRONG_TYPE = lib.GOSTX_CMS_WRONG_TYPE
    RECIPIENT_NOT_FOUND = lib.GOSTX_CMS_RECIPIENT_NOT_FOUND
    WRONG_KEY = lib.GOSTX_CMS_WRONG_KEY
    BAD_MAC = lib.GOSTX_CMS_BAD_MAC
    ORIGINATOR_NOT_FOUND = lib.GOSTX_CMS_ORIGINATOR_NOT_FOUND
    BAD_EOC = lib.GOSTX_CMS_BAD_EOC
    TOO_DEEP = lib.GOSTX_CMS_TOO_DEEP
    TOO_LARGE = lib.GOSTX_CMS_TOO_LARGE
    TOO_MANY_RECIPIENTS = lib.GOSTX_CMS_TOO_MANY_RECIPIENTS
    UNKNOWN_CIPHER = lib.GOSTX_CMS_UNKNOWN_CIPHER
    UNKNOWN_KEY_WRAP = lib.GOSTX_CMS_UNKNOWN_KEY_WRAP
    RECIPIENT_KIND = lib.GOSTX_CMS_RECIPIENT_KIND
    KEY_MISMATCH = lib.GOSTX_CMS_KEY_MISMATCH
    BAD_MAC_ATTRIBUTE = lib.GOSTX_CMS_BAD_MAC_ATTRIBUTE
    NO_ENCRYPTED_CONTENT = lib.GOSTX_CMS_NO_ENCRYPTED_CONTENT
    BAD_CONTENT_TYPE = lib.GOSTX_CMS_BAD_CONTENT_TYPE
    BAD_DIGEST_ALGORITHMS = lib.GOSTX_CMS_BAD_DIGEST_ALGORITHMS
    TS_MALFORMED = 100 + lib.GOSTX_CMS_TS_MALFORMED
    TS_NOT_TSTINFO = 100 + lib.GOSTX_CMS_TS_NOT_TSTINFO
    TS_UNKNOWN_ALGORITHM = 100 + lib.GOSTX_CMS_TS_UNKNOWN_ALGORITHM
    TS_IMPRINT_MISMATCH = 100 + lib.GOSTX_CMS_TS_IMPRINT_MISMATCH
    TS_TOKEN = 100 + lib.GOSTX_CMS_TS_TOKEN
    TS_NOT_TSA = 100 + lib.GOSTX_CMS_TS_NOT_TSA
    TS_NONCE_MISMATCH = 100 + lib.GOSTX_CMS_TS_NONCE_MISMATCH
    TS_POLICY_MISMATCH = 100 + lib.GOSTX_CMS_TS_POLICY_MISMATCH
    TS_NO_SIGNING_CERT = 100 + lib.GOSTX_CMS_TS_NO_SIGNING_CERT
    CADES_MALFORMED = 200 + lib.GOSTX_CADES_MALFORMED
    CADES_DUPLICATE = 200 + lib.GOSTX_CADES_DUPLICATE
    CADES_TOO_MANY = 200 + lib.GOSTX_CADES_TOO_MANY
    CADES_UNKNOWN_HASH = 200 + lib.GOSTX_CADES_UNKNOWN_HASH
    CADES_NO_SIGNATURE_TIMESTAMP = 200 + lib.GOSTX_CADES_NO_SIGNATURE_TIMESTAMP
    CADES_NO_REFERENCES = 200 + lib.GOSTX_CADES_NO_REFERENCES
    CADES_REFS_COUNT = 200 + lib.GOSTX_CADES_REFS_COUNT
    CADES_CERT_WITHOUT_VALUE = 200 + lib.GOSTX_CADES_CERT_WITHOUT_VALUE
    CADES_CERT_HASH_MISMATCH = 200 + lib.GOSTX_CADES_CERT_HASH_MISMATCH
    CADES_REV_WITHOUT_VALUE = 200 + lib.GOSTX_CADES_REV_WITHOUT_VALUE
    CADES_REV_HASH_MISMATCH = 200 + lib.GOSTX_CADES_REV_HASH_MISMATCH
    CADES_SIGNATURE_TIMESTAMP = 200 + lib.GOSTX_CADES_SIGNATURE_TIMESTAMP
    CADES_ESC_TIMESTAMP = 200 + lib.GOSTX_CADES_ESC_TIMESTAMP
    CADES_TIME_ORDER = 200 + lib.GOSTX_CADES_TIME_ORDER
    CADES_BAD_CRL = 200 + lib.GOSTX_CADES_BAD_CRL
    CADES_BAD_OCSP = 200 + lib.GOSTX_CADES_BAD_OCSP
    CADES_BAD_CERT = 200 + lib.GOSTX_CADES_BAD_CERT
    CADES_TIMESTAMPED = 200 + lib.GOSTX_CADES_TIMESTAMPED
    CADES_OTHER_TOKEN = 200 + lib.GOSTX_CADES_OTHER_TOKEN
    CADES_TSA_PATH = 200 + lib.GOSTX_CADES_TSA_PATH
    CADES_CERT_REF_MISMATCH = 200 + lib.GOSTX_CADES_CERT_REF_MISMATCH
    CADES_REV_REF_MISMATCH = 200 + lib.GOSTX_CADES_REV_REF_MISMATCH

    @staticmethod
    def _text_of(status):
        if status >= 200:
            return lib.gostx_cades_status_name(status - 200)
        if status >= 100:
            return lib.gostx_cms_ts_status_name(status - 100)
        return lib.gostx_cms_status_name(status)


class VerificationError(GostxError, ValueError):
    """A signature the library refused: status (Status), signer (its index),
    why (one line: the library's text, with the OID or the chain's
    gostx.x509.Status where they say more), x509_status (a
    gostx.x509.Status for Status.CHAIN, else None) and depth."""
    __module__ = "gostx.cms"

    def __init__(self, status, signer=0, why="", x509_status=None, depth=0):
        self.status = Status(status)
        self.signer = signer
        self.why = why or self.status.text
        self.x509_status = x509_status
        self.depth = depth
        super().__init__(f"CMS verification failed: {self.status.name}: {self.why} (signer {signer})")


def _utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


# ---- the content: bytes, a path or a file, hashed in chunks ----

def _is_path(obj):
    return isinstance(obj, (str, os.PathLike))


def _chunks(content):
    """The content as a series of buffers: one for bytes-like, chunks for a
    path or a binary file object."""
    if _is_path(content):
        with open(content, "rb") as f:
            yield from _file_chunks(f)
    elif hasattr(content, "readinto") or hasattr(content, "read"):
        yield from _file_chunks(content)
    else:
        yield rbuf(content)


def _file_chunks(f):
    while True:
        block = f.read(_CHUNK)
        if not isinstance(block, (bytes, bytearray)):
            raise GostxTypeError("a file object opened in binary mode is required")
        if not block:
            return
        yield block


def _hash(content, want):
    h = ffi.new("gostx_cms_hash *")
    check(lib.gostx_cms_hash_init(h, want), "cms hash")
    for block in _chunks(content):
        check(lib.gostx_cms_hash_update(h, ffi.from_buffer(block), len(block)), "cms hash")
    check(lib.gostx_cms_hash_final(h), "cms hash")
    return h


def _whole(content):
    """An attached content in memory (the library holds it whole)."""
    if _is_path(content) or hasattr(content, "read"):
        return b"".join(bytes(b) for b in _chunks(content))
    return bytes(rbuf(content))


def _as_cert(cert, what):
    if isinstance(cert, Certificate):
        return cert
    if isinstance(cert, (bytes, bytearray, memoryview)):
        from .x509 import load_der_x509_certificate, load_pem_x509_certificate
        data = bytes(cert)
        return load_pem_x509_certificate(data) if data.lstrip().startswith(b"-----") \
            else load_der_x509_certificate(data)
    raise GostxTypeError(f"{what} must be a gostx.x509.Certificate or its DER/PEM bytes, "
                         f"not {type(cert).__name__!r}")


def _encoded(der, encoding):
    if encoding == "DER":
        return der
    if encoding != "PEM":
        raise GostxValueError(f"encoding must be 'PEM' or 'DER', not {encoding!r}")
    n = ffi.new("size_t *")
    lib.gostx_cms_pem_write(der, len(der), ffi.NULL, 0, n)
    out = ffi.new("char[]", n[0] + 1)
    check(lib.gostx_cms_pem_write(der, len(der), out, len(out), n), "cms pem")
    return ffi.unpack(out, n[0])


def _der(signature):
    """The signature's DER from DER or PEM ("CMS", "PKCS7") bytes, or a path."""
    if _is_path(signature):
        with open(signature, "rb") as f:
            data = f.read(_MAX_DER + 1)
    else:
        data = bytes(rbuf(signature))
    if len(data) > _MAX_DER:
        raise GostxValueError(f"signature larger than {_MAX_DER} bytes")
    if data[:1] == b"\x30":
        return data
    der, n = ffi.new("uint8_t[]", max(len(data), 1)), ffi.new("size_t *")
    if lib.gostx_cms_pem_read(data, len(data), der, len(der), n):
        raise VerificationError(Status.MALFORMED, why="neither DER nor a CMS or PKCS7 PEM block")
    return bytes(ffi.buffer(der, n[0]))


def _refusal(v):
    """VerificationError from a gostx_cms_verdict."""
    st = Status(v.status)
    why = st.text
    x509 = None
    if st == Status.CHAIN:
        x509 = X509Status(v.x509)
        why += f": depth {v.depth}: {x509.text}"
    elif st in (Status.UNKNOWN_ALGORITHM, Status.BAD_DIGEST_ALGORITHMS):
        why += f" (OID {ffi.string(v.oid).decode()})"
    return VerificationError(st, v.signer, why, x509, v.depth)
