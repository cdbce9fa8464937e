"""gostx.tls's names as the running package has them, for comparing two
builds (a split of the module must change none): each name of dir(gostx.tls),
of __all__ and of the names loaded when asked for (module __getattr__),
with what it is: a class by its __module__.__qualname__ and bases, a value by
its type and repr, and each exception class's pickle round trip.

    python scripts/tls_py_names.py > before.json     (the old package)
    python scripts/tls_py_names.py before.json       (the new: compares)
Exit 1 when a name of before.json is gone or differs."""
import json
import pickle
import re
import ssl
import sys
import types

import gostx.tls as tls

LAZY = ["TLSObject", "open_connection", "start_server", "RequestsAdapter", "HTTPTransport",
        "AsyncHTTPTransport"]


def describe(name):
    try:
        obj = getattr(tls, name)
    except (AttributeError, ImportError) as e:  # an optional extra not installed
        return f"unavailable: {type(e).__name__}"
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if isinstance(obj, type):
        d = f"class {obj.__module__}.{obj.__qualname__}({', '.join(b.__module__ + '.' + b.__qualname__ for b in obj.__bases__)})"
        if issubclass(obj, BaseException):
            args = ("m", None) if "Verification" in name else ("m",)
            try:
                back = pickle.loads(pickle.dumps(obj(*args)))
                d += f" pickles:{type(back) is obj}"
            except Exception as e:  # noqa: BLE001  (what happens is what is compared)
                d += f" pickle:{type(e).__name__}"
        return d
    if callable(obj) and name.startswith("_"):  # a helper: where it lives may change
        return f"callable {getattr(obj, '__qualname__', '?')}"
    if callable(obj):
        return f"callable {getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
    return f"{type(obj).__name__} {obj!r}"


# where the module was loaded from: differs between any two installs
PLACE = {"__file__", "__cached__", "__loader__", "__spec__", "__package__", "__path__",
         "__builtins__"}


def snapshot():
    names = {n: re.sub(r" at 0x[0-9a-f]+", "", describe(n))
             for n in sorted((set(dir(tls)) | set(LAZY)) - PLACE)}
    ctx = tls.Context(tls.PROTOCOL_TLS_CLIENT)
    names["<__all__>"] = sorted(tls.__all__)
    names["<isinstance(Context(), ssl.SSLContext)>"] = isinstance(ctx, ssl.SSLContext)
    names["<Context is tls.create_default_context().__class__>"] = (
        type(tls.create_default_context()) is tls.Context)
    return names


def main():
    now = snapshot()
    if len(sys.argv) < 2:
        json.dump(now, sys.stdout, indent=1)
        return 0
    with open(sys.argv[1]) as f:
        before = json.load(f)
    bad = 0
    for name, what in before.items():
        if name not in now:
            print(f"GONE  {name}: {what}")
            bad = 1
        elif now[name] != what:
            print(f"DIFF  {name}: {what}  ->  {now[name]}")
            bad = 1
    for name in sorted(set(now) - set(before)):
        print(f"NEW   {name}: {now[name]}")
    print(f"{len(before)} names: {'same' if not bad else 'differ'}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
