# Type stubs of gostx.xmldsig (implemented in xmldsig.py beside this file).
import datetime
import os
from typing import Any, List, NamedTuple, Optional, Sequence, Union

from . import GostxError, PrivateKey
from .x509 import Certificate, Store, VerificationError

_StrPath = Union[str, "os.PathLike[str]"]
_Buffer = Union[bytes, bytearray, memoryview]

__all__ = ["sign", "verify", "Signed", "XMLSignatureError", "MAX_SIZE"]

DS: str
EXC: str
C14N: str
ENVELOPED: str
SMEV: str
WSU: str
WSSE: str
X509V3: str
BASE64: str
SOAP: tuple[str, str]
MAX_SIZE: int

class Signed(NamedTuple):
    uri: str
    octets: bytes
    element: Any
    signature: int
    signer: Certificate

class XMLSignatureError(GostxError, ValueError):
    status: str
    why: str
    x509: Optional[VerificationError]
    signature: Optional[int]
    def __init__(self, status: str, why: str, x509: Optional[VerificationError] = ...,
                 signature: Optional[int] = ..., where: str = ...) -> None: ...

def sign(xml: _Buffer, key: PrivateKey, cert: Certificate, ref: str = ..., smev: bool = ...,
         wsse: bool = ..., *, form: str = ..., inclusive: bool = ...,
         chain: Sequence[Certificate] = ...) -> bytes: ...
def verify(xml: _Buffer, cafile: Optional[_StrPath] = ..., *, cadata: Union[str, bytes, None] = ...,
           store: Optional[Store] = ..., untrusted: Sequence[Certificate] = ...,
           at: Union[datetime.datetime, float, None] = ..., lax: bool = ...) -> List[Signed]: ...
