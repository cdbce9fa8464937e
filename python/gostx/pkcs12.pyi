# Type stubs of gostx.pkcs12 (pkcs12.py beside this file).
import sys
from typing import Iterable, List, Optional, Tuple

from . import PrivateKey

__all__ = ["load", "dump"]

if sys.version_info >= (3, 12):
    from collections.abc import Buffer as _Buffer
else:
    from typing_extensions import Buffer as _Buffer

def load(data: _Buffer, password: _Buffer, *,
         max_work: Optional[int] = ...) -> Tuple[Optional[PrivateKey], Optional[bytes], List[bytes]]: ...
def dump(key: PrivateKey, cert: Optional[_Buffer], chain: Iterable[_Buffer] = ...,
         password: _Buffer = ..., *, name: Optional[str] = ..., key_pbe: str = ...,
         cert_pbe: Optional[str] = ..., iterations: int = ...) -> bytes: ...
