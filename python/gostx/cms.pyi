# Type stubs of gostx.cms (implemented in cms.py beside this file).
import datetime
import enum
import os
from typing import IO, List, NamedTuple, Optional, Sequence, Union

from . import GostxError, PrivateKey
from .x509 import Certificate, Store
from .x509 import Status as X509Status

_StrPath = Union[str, "os.PathLike[str]"]
_Buffer = Union[bytes, bytearray, memoryview]
_Content = Union[_Buffer, _StrPath, IO[bytes]]
_CertLike = Union[Certificate, bytes, bytearray, memoryview]

__all__ = ["sign", "verify", "encrypt", "decrypt", "Signer", "Verified", "Status",
           "VerificationError", "DecryptionError"]

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
    @property
    def text(self) -> str: ...

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

class Verified(NamedTuple):
    signers: List[Signer]
    content: Optional[bytes]

def sign(content: _Content, cert: _CertLike, key: PrivateKey, *, detached: bool = ...,
         cades: bool = ..., chain: Sequence[_CertLike] = ...,
         signing_time: Union[bool, datetime.datetime] = ..., attributes: bool = ...,
         encoding: str = ...) -> bytes: ...
def verify(signature: Union[_Buffer, _StrPath], content: Optional[_Content] = ..., *,
           store: Optional[Store], untrusted: Sequence[_CertLike] = ...,
           at: Union[datetime.datetime, float, None] = ...) -> Verified: ...
def encrypt(content: _Content, recipients: Sequence[_CertLike], *, cipher: str = ...,
            omac: bool = ..., encoding: str = ..., kari: bool = ..., key_id: bool = ...) -> bytes: ...
def decrypt(message: Union[_Buffer, _StrPath], cert: Optional[_CertLike], key: PrivateKey, *,
            originator: Optional[_CertLike] = ...) -> bytes: ...
