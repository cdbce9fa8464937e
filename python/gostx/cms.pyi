# Type stubs of gostx.cms (implemented in cms.py beside this file).
import datetime
import enum
import os
from typing import IO, Callable, List, NamedTuple, Optional, Sequence, Union

from . import GostxError, PrivateKey
from .ocsp import Response
from .x509 import Certificate, Store
from .x509 import Status as X509Status

_StrPath = Union[str, "os.PathLike[str]"]
_Buffer = Union[bytes, bytearray, memoryview]
_Content = Union[_Buffer, _StrPath, IO[bytes]]
_CertLike = Union[Certificate, bytes, bytearray, memoryview]

__all__ = ["sign", "verify", "enhance", "encrypt", "decrypt", "Signer", "Verified", "Status",
           "Level", "VerificationError", "DecryptionError"]

class Status(enum.IntEnum):
    MALFORMED = 1
    TRUNCATED = 2
    TRAILING_DATA = 3
    NOT_SIGNED_DATA = 4
    TOO_MANY = 5
    UNKNOWN_ALGORITHM = 6
    ALGORITHM_MISMATCH = 7
    NO_CONTENT = 8
    MISSING_ATTRIBUTE = 9
    BAD_ATTRIBUTE = 10
    CONTENT_TYPE_MISMATCH = 11
    DIGEST_MISMATCH = 12
    BAD_SIGNATURE = 13
    SIGNER_NOT_FOUND = 14
    SIGNING_CERT_MISMATCH = 15
    KEY_USAGE = 16
    CHAIN = 17
    WRONG_TYPE = 18
    RECIPIENT_NOT_FOUND = 19
    WRONG_KEY = 20
    BAD_MAC = 21
    ORIGINATOR_NOT_FOUND = 22
    BAD_EOC = 23
    TOO_DEEP = 24
    TOO_LARGE = 25
    TOO_MANY_RECIPIENTS = 26
    UNKNOWN_CIPHER = 27
    UNKNOWN_KEY_WRAP = 28
    RECIPIENT_KIND = 29
    KEY_MISMATCH = 30
    BAD_MAC_ATTRIBUTE = 31
    NO_ENCRYPTED_CONTENT = 32
    BAD_CONTENT_TYPE = 33
    BAD_DIGEST_ALGORITHMS = 34
    TS_MALFORMED = 101
    TS_NOT_TSTINFO = 103
    TS_UNKNOWN_ALGORITHM = 104
    TS_IMPRINT_MISMATCH = 105
    TS_TOKEN = 106
    TS_NOT_TSA = 107
    TS_NONCE_MISMATCH = 108
    TS_POLICY_MISMATCH = 109
    TS_NO_SIGNING_CERT = 110
    CADES_MALFORMED = 201
    CADES_DUPLICATE = 202
    CADES_TOO_MANY = 203
    CADES_UNKNOWN_HASH = 204
    CADES_NO_SIGNATURE_TIMESTAMP = 205
    CADES_NO_REFERENCES = 206
    CADES_REFS_COUNT = 207
    CADES_CERT_WITHOUT_VALUE = 208
    CADES_CERT_HASH_MISMATCH = 209
    CADES_REV_WITHOUT_VALUE = 210
    CADES_REV_HASH_MISMATCH = 211
    CADES_SIGNATURE_TIMESTAMP = 212
    CADES_ESC_TIMESTAMP = 213
    CADES_TIME_ORDER = 214
    CADES_BAD_CRL = 215
    CADES_BAD_OCSP = 216
    CADES_BAD_CERT = 217
    CADES_TIMESTAMPED = 218
    CADES_OTHER_TOKEN = 219
    CADES_TSA_PATH = 220
    CADES_CERT_REF_MISMATCH = 221
    CADES_REV_REF_MISMATCH = 222
    @property
    def text(self) -> str: ...

class Level(enum.IntEnum):
    BES = 0
    T = 1
    C = 2
    X_LONG = 3
    X_TYPE1 = 4
    X_LONG_TYPE1 = 5

class VerificationError(GostxError, ValueError):
    status: Status
    signer: int
    why: str
    x509_status: Optional[X509Status]
    depth: int
    def __init__(self, status: int, signer: int = ..., why: str = ...,
                 x509_status: Optional[X509Status] = ..., depth: int = ...) -> None: ...

class DecryptionError(GostxError, ValueError):
    status: Status
    def __init__(self, status: int) -> None: ...

class Signer(NamedTuple):
    certificate: Certificate
    signing_time: Optional[datetime.datetime]
    timestamps: List[datetime.datetime]
    level: Level = ...

class Verified(NamedTuple):
    signers: List[Signer]
    content: Optional[bytes]

def sign(content: _Content, cert: _CertLike, key: PrivateKey, *, detached: bool = ...,
         cades: bool = ..., chain: Sequence[_CertLike] = ...,
         signing_time: Union[bool, datetime.datetime] = ..., attributes: bool = ...,
         encoding: str = ...) -> bytes: ...
def verify(signature: Union[_Buffer, _StrPath], content: Optional[_Content] = ..., *,
           store: Optional[Store], untrusted: Sequence[_CertLike] = ...,
           at: Union[datetime.datetime, float, None] = ...,
           crls: Sequence[Union[_Buffer, _StrPath]] = ...,
           ocsp_responses: Sequence[Union[_Buffer, _StrPath, Response]] = ...) -> Verified: ...
def enhance(signature: Union[_Buffer, _StrPath], content: Optional[_Content] = ..., *,
            to: str = ..., tsa_reply: Union[Callable[[bytes], bytes], str, _Buffer],
            store: Optional[Store], ocsp_responses: Sequence[Union[_Buffer, _StrPath, Response]] = ...,
            crls: Sequence[Union[_Buffer, _StrPath]] = ..., certs: Optional[Sequence[_CertLike]] = ...,
            untrusted: Sequence[_CertLike] = ..., at: Union[datetime.datetime, float, None] = ...,
            encoding: str = ..., noverify: bool = ...) -> bytes: ...
def encrypt(content: _Content, recipients: Sequence[_CertLike], *, cipher: str = ...,
            omac: bool = ..., encoding: str = ..., kari: bool = ..., key_id: bool = ...) -> bytes: ...
def decrypt(message: Union[_Buffer, _StrPath], cert: Optional[_CertLike], key: PrivateKey, *,
            originator: Optional[_CertLike] = ...) -> bytes: ...
