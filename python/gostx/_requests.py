"""gostx.tls.RequestsAdapter: requests (through urllib3) over gostx.tls.

urllib3 takes any object with ssl.SSLContext's methods as ssl_context and
calls its wrap_socket; what it does besides is what this adapter steers:
requests would point every pool at certifi's bundle (no GOST root in it)
and urllib3 would load it into the context on each connection, so here the
verify= and cert= of each request pick a Context made once for them (the
one given for verify=True, a copy with the GOST CAs of verify="path" added, a
copy that verifies nothing for verify=False, a copy with cert= loaded),
and urllib3 gets only that Context."""
import os
import threading

from requests.adapters import HTTPAdapter

from . import tls, x509

__all__ = ["RequestsAdapter"]


class RequestsAdapter(HTTPAdapter):
    """A requests transport adapter speaking GOST TLS through gostx.tls:

        session = requests.Session()
        session.mount("https://", gostx.tls.RequestsAdapter(context))
        session.get("https://portal.example/", timeout=10)

    context: a client gostx.tls.Context (default: create_default_context(),
    which trusts only the system store's GOST CAs, usually none, until told:
    give verify="gost-roots.pem" then).
    Keep-alive, chunked bodies, redirects, timeouts and proxies' CONNECT
    work as with HTTPAdapter; the other arguments are HTTPAdapter's."""

    def __init__(self, context=None, **kwargs):
        if context is None:
            context = tls.create_default_context()
        if not isinstance(context, tls.Context) or context.protocol != tls.PROTOCOL_TLS_CLIENT:
            raise tls.GostxTypeError("RequestsAdapter needs a client gostx.tls.Context")
        self._gostx_context = context
        self._derived = {}
        self._derived_lock = threading.Lock()
        super().__init__(**kwargs)

    def __getstate__(self):
        raise tls.GostxTypeError("cannot pickle RequestsAdapter objects: their Context holds keys")

    def _context_for(self, verify, cert):
        """The Context for these verify= and cert= values, made once."""
        key = (verify if isinstance(verify, (bool, str)) else bool(verify),
               cert if cert is None or isinstance(cert, str) else tuple(cert))
        with self._derived_lock:
            ctx = self._derived.get(key)
            if ctx is None:
                ctx = self._derived[key] = self._make_context(*key)
            return ctx

    def _make_context(self, verify, cert):
        if verify is True and cert is None:
            return self._gostx_context
        ctx = self._gostx_context.copy()
        if verify is False:
            ctx.check_hostname = False
            ctx.verify_mode = tls.CERT_NONE
        elif isinstance(verify, str):
            # added to the context's CAs: requests puts REQUESTS_CA_BUNDLE
            # (a system bundle, no GOST root in it) here on its own
            try:
                ctx.load_verify_locations(**{"capath" if os.path.isdir(verify) else "cafile": verify})
            except x509.VerificationError:
                pass  # no GOST certificate in it: it adds none
        if cert is not None:
            certfile, keyfile = (cert, None) if isinstance(cert, str) else cert
            ctx.load_cert_chain(certfile, keyfile)
        return ctx

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        """requests' pool key with our Context as ssl_context and nothing
        for urllib3 to load into it."""
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert)
        for name in ("ca_certs", "ca_cert_dir", "cert_file", "key_file"):
            pool_kwargs.pop(name, None)
        pool_kwargs["ssl_context"] = self._context_for(verify, cert)
        pool_kwargs["cert_reqs"] = "CERT_NONE" if verify is False else "CERT_REQUIRED"
        return host_params, pool_kwargs

    def cert_verify(self, conn, url, verify, cert):
        """requests would set certifi's bundle (and cert=) on the pool; the
        Context of build_connection_pool_key_attributes has them already."""
        conn.cert_reqs = "CERT_NONE" if verify is False else "CERT_REQUIRED"
        conn.ca_certs = conn.ca_cert_dir = None
        conn.cert_file = conn.key_file = None

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        """HTTPAdapter's, with our Context for the origin's TLS."""
        proxy_kwargs.setdefault("ssl_context", self._gostx_context)
        return super().proxy_manager_for(proxy, **proxy_kwargs)
