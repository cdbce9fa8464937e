# Type stubs of gostx.ocsp (implemented in ocsp.py beside this file).
import datetime
import enum
from typing import List, NamedTuple, Optional, Sequence, Union

from . import GostxError
from .x509 import Certificate

_Buffer = Union[bytes, bytearray, memoryview]

__all__ = ["request", "parse_request", "parse_response", "check", "post", "CertID", "Request",
           "Response", "SingleResponse", "ResponseStatus", "Status", "VerificationError"]

class Status(enum.IntEnum):
    OK = 0
    MALFORMED = 1
    NOT_SUCCESSFUL = 2
    UNSIGNED = 3
    UNSUPPORTED = 4
    UNKNOWN_RESPONDER = 5
    BAD_SIGNATURE = 6
    NOT_AUTHORIZED = 7
    RESPONDER_NOT_ISSUED = 8
    RESPONDER_EXPIRED = 9
    CERT_MISSING = 10
    NONCE_MISSING = 11
    NONCE_MISMATCH = 12
    NOT_YET_VALID = 13
    STALE = 14
    @property
    def text(self) -> str: ...

class ResponseStatus(enum.IntEnum):
    SUCCESSFUL = 0
    MALFORMED_REQUEST = 1
    INTERNAL_ERROR = 2
    TRY_LATER = 3
    SIG_REQUIRED = 5
    UNAUTHORIZED = 6

class VerificationError(GostxError, ValueError):
    status: Status
    why: str
    index: int
    def __init__(self, status: int, why: str = ..., index: int = ...) -> None: ...

class CertID(NamedTuple):
    hash: str
    issuer_name_hash: bytes
    issuer_key_hash: bytes
    serial_number: int

class Request(NamedTuple):
    certids: List[CertID]
    nonce: Optional[bytes]

class SingleResponse(NamedTuple):
    certid: CertID
    status: str
    revocation_time: Optional[datetime.datetime]
    revocation_reason: Optional[str]
    this_update: datetime.datetime
    next_update: Optional[datetime.datetime]

class Response:
    der: bytes
    status: Union[ResponseStatus, int]
    produced_at: Optional[datetime.datetime]
    nonce: Optional[bytes]
    responses: List[SingleResponse]
    certificates: List[Certificate]
    responder_name: Optional[str]
    responder_key_hash: Optional[bytes]
    def __init__(self, der: _Buffer) -> None: ...

def request(cert: Union[Certificate, Sequence[Certificate]], issuer: Certificate, *,
            hash: str = ..., nonce: Union[bool, bytes] = ...) -> bytes: ...
def parse_request(der: _Buffer) -> Request: ...
def parse_response(der: _Buffer) -> Response: ...
def check(response: Union[_Buffer, Response], cert: Certificate, issuer: Certificate, *,
          trusted: Sequence[Certificate] = ..., nonce: Optional[bytes] = ...,
          request: Optional[_Buffer] = ..., hash: Optional[str] = ...,
          at: Union[datetime.datetime, float, None] = ..., skew: Optional[int] = ...,
          max_age: Optional[int] = ...) -> SingleResponse: ...
def post(url: str, request: _Buffer, *, timeout: float = ..., content_type: str = ...,
         accept: str = ...) -> bytes: ...
