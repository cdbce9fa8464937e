"""GOST TLS 1.3 (RFC 8446 + RFC 9367) and TLS 1.2 (RFC 9189) in the shape of
the standard ssl module, on libgostx's connection API (include/gostx/tls.h).

    ctx = gostx.tls.Context(gostx.tls.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations("ca.pem")
    with socket.create_connection(("example.test", 443)) as raw:
        with ctx.wrap_socket(raw, server_hostname="example.test") as s:
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            print(s.version(), s.cipher(), s.recv(4096))

A TLSSocket is a socket.socket (as ssl.SSLSocket is). Its descriptor is
always non-blocking underneath: the library's calls return WANT_READ /
WANT_WRITE and this module waits with poll() for the socket's timeout
(settimeout: None blocks, 0 raises TLSWantReadError / TLSWantWriteError,
a number raises TimeoutError past it), so a timeout bounds the whole call.
Every libgostx call releases the GIL (cffi), so threads each with their own
connection run their handshakes and records in parallel.

Errors subclass both gostx.GostxError and their ssl counterpart
(TLSError is an ssl.SSLError, TLSCertVerificationError an
ssl.SSLCertVerificationError and a gostx.x509.VerificationError, ...), so
code written for ssl catches them; a TLS alert is named in the message and
in .alert. What differs from ssl: check_hostname = False sends no SNI (the
library verifies the chain for the name it sends, whenever it verifies)."""
# The package, by role: _common.py (constants, exceptions, sessions),
# _context.py (Context), _connection.py (what the socket and the memory-BIO
# connection share), _socket.py (TLSSocket); beside it gostx/_tls_bio.py
# (TLSObject), gostx/_asyncio.py, and the HTTP clients' adapters
# gostx/_requests.py and gostx/_httpx.py, each loaded when first asked for.
# Every name the single module had is still here (scripts/tls_py_names.py).
import errno as _errno  # noqa: F401  (the names the single module had)
import os  # noqa: F401
import re  # noqa: F401
import select  # noqa: F401
import socket  # noqa: F401
import ssl  # noqa: F401
import sys  # noqa: F401
import threading  # noqa: F401
import time  # noqa: F401
import weakref  # noqa: F401

from .. import gost3410, x509  # noqa: F401
from .._native import (GostxError, GostxTypeError, GostxValueError, ffi, held, lib,  # noqa: F401
                       rptr, wbuf)
from ._common import (_CLOSED, _LONG_NAMES, _RDN_SPLIT, _VERSIONS, _WANT_READ,  # noqa: F401
                      _WANT_WRITE, ALERTS, CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED, GROUPS,
                      PROTOCOL_TLS_CLIENT, PROTOCOL_TLS_SERVER, SUITES_TLS12, SUITES_TLS13,
                      TLSCertVerificationError, TLSEOFError, TLSError, TLSSession,
                      TLSTimeoutError, TLSTokenError, TLSVersion, TLSWantReadError,
                      TLSWantWriteError, TLSZeroReturnError, _cert_dict, _error, _name_tuple, _status_of)
from ._connection import _closed_error, _Connection, _free_connection, _is_ip  # noqa: F401
from ._context import (_KEY_BLOCK, Context, _Config, _certs_of_data,  # noqa: F401
                       _config_error, _free_config, _list_arg, _load_key, _protocol_of,
                       create_default_context)
from ._socket import TLSSocket

__all__ = ["Context", "TLSSocket", "TLSObject", "TLSSession", "create_default_context", "TLSError",
           "TLSZeroReturnError", "TLSWantReadError", "TLSWantWriteError", "TLSEOFError",
           "TLSCertVerificationError", "TLSTimeoutError", "TLSTokenError", "PROTOCOL_TLS_CLIENT",
           "PROTOCOL_TLS_SERVER", "CERT_NONE", "CERT_OPTIONAL", "CERT_REQUIRED", "TLSVersion",
           "SUITES_TLS13", "SUITES_TLS12", "GROUPS", "ALERTS", "open_connection",
           "start_server"]

# Their home is gostx.tls, as when it was one module: their repr, and pickle
# finding them there.
for _cls in (TLSError, TLSZeroReturnError, TLSWantReadError, TLSWantWriteError, TLSEOFError,
             TLSCertVerificationError, TLSTimeoutError, TLSTokenError, TLSSession, _Config, Context,
             _Connection, TLSSocket):
    _cls.__module__ = __name__
create_default_context.__module__ = __name__
del _cls


def __getattr__(name):
    # requests is an optional extra (pip install gostx[requests]): imported
    # only when the adapter is asked for
    if name == "RequestsAdapter":
        from .._requests import RequestsAdapter
        return RequestsAdapter
    if name in ("HTTPTransport", "AsyncHTTPTransport"):  # httpx: gostx[httpx]
        from .. import _httpx
        return getattr(_httpx, name)
    if name == "TLSObject":  # the memory-BIO connection: loaded when wrap_bio is used
        from .._tls_bio import TLSObject
        return TLSObject
    if name in ("open_connection", "start_server"):  # asyncio imported when asked for
        from .. import _asyncio
        return getattr(_asyncio, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
