# Type stubs of gostx.x509 (implemented in x509.py beside this file).
import datetime
import enum
import os
from typing import Any, List, Optional, Sequence, Tuple, Union

from . import Curve, GostxError, PublicKey

_StrPath = Union[str, "os.PathLike[str]"]

__all__ = ["Certificate", "Store", "Status", "VerificationError", "load_pem_x509_certificate",
           "load_pem_x509_certificates", "load_der_x509_certificate"]

class Status(enum.IntEnum):
    OK = 0
    MALFORMED = 1
    UNSUPPORTED = 2
    BAD_SIGNATURE = 3
    NOT_YET_VALID = 4
    EXPIRED = 5
    UNKNOWN_CA = 6
    NOT_CA = 7
    PATH_LEN = 8
    KEY_USAGE = 9
    EXT_KEY_USAGE = 10
    NAME_MISMATCH = 11
    CRITICAL_EXT = 12
    BAD_KEY = 13
    NAME_CONSTRAINTS = 14
    POLICY = 15
    PATH_TOO_LONG = 16
    BAD_EXTENSION = 17
    BAD_VERSION = 18
    SIG_ALG_MISMATCH = 19
    PROFILE = 20
    EMAIL_MISMATCH = 21
    REVOKED = 22
    CRL_UNAVAILABLE = 23
    CRL_SCOPE = 24
    CRL_EXPIRED = 25
    CRL_BAD_SIGNATURE = 26
    CRL_WRONG_ISSUER = 27
    CRL_CRITICAL_EXT = 28
    CRL_MALFORMED = 29
    CRL_DELTA = 30
    CRL_INDIRECT = 31
    OCSP_UNKNOWN = 32
    OCSP_INVALID = 33
    OCSP_STALE = 34
    NO_REVOCATION_DATA = 35
    CRL_NO_NUMBER = 36
    CRL_NUMBER_CRITICAL = 37
    @property
    def text(self) -> str: ...

class VerificationError(GostxError, ValueError):
    status: Status
    why: str
    depth: Optional[int]
    verify_code: int
    verify_message: str
    def __init__(self, status: int, why: str = ..., depth: int = ...) -> None: ...

class Certificate:
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    @property
    def subject(self) -> str: ...
    @property
    def issuer(self) -> str: ...
    @property
    def serial_number(self) -> int: ...
    @property
    def version(self) -> int: ...
    @property
    def not_valid_before(self) -> datetime.datetime: ...
    @property
    def not_valid_after(self) -> datetime.datetime: ...
    @property
    def not_valid_before_utc(self) -> datetime.datetime: ...
    @property
    def not_valid_after_utc(self) -> datetime.datetime: ...
    @property
    def is_ca(self) -> bool: ...
    @property
    def subject_alt_names(self) -> List[Tuple[str, Union[str, bytes]]]: ...
    @property
    def curve(self) -> Curve: ...
    def public_key(self) -> PublicKey: ...
    def public_bytes(self, encoding: str = ...) -> bytes: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def load_pem_x509_certificates(data: Union[bytes, str]) -> List[Certificate]: ...
def load_pem_x509_certificate(data: Union[bytes, str]) -> Certificate: ...
def load_der_x509_certificate(data: bytes) -> Certificate: ...

class Store:
    def __init__(self) -> None: ...
    def load_verify_locations(self, cafile: Optional[_StrPath] = ..., capath: Optional[_StrPath] = ...,
                              cadata: Union[str, bytes, None] = ...) -> None: ...
    def verify(self, cert: Certificate, untrusted: Sequence[Certificate] = ..., purpose: str = ...,
               hostname: Optional[str] = ...,
               at: Union[datetime.datetime, float, None] = ...,
               lax: bool = ...) -> List[Certificate]: ...
