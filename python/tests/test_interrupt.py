"""Ctrl-C during a long call (issue 48 item 15): KeyboardInterrupt must come
within 0.3 s of SIGINT (the package aims at about 20 ms: long calls run in
pieces), and the interrupted call must write nothing: no output returned,
the caller's out= buffer and an in-place input as they were, a hash or
streaming context unchanged, no file left behind.

Each case runs in a child process (on the portable implementation, the
slowest, so that the buffers stay small) that sizes its call to take about
2 s as one C call on this machine (measured on a sample first; skipped where
the size cap would make it shorter than 1 s), starts it, and sends itself
SIGINT 0.4 s in. Before the fix every case ran to its end."""
import os
import subprocess
import sys
import textwrap

import pytest

_CHILD = r"""
import os, signal, sys, threading, time
import gostx

# Ctrl-C as an interactive Python has it: a child started from a background
# job of a non-interactive shell inherits SIGINT ignored, and Python then
# installs no handler (the kill below would do nothing)
signal.signal(signal.SIGINT, signal.default_int_handler)

def size_for(fn, target=2.0, sample=4 << 20, cap=768 << 20):
    t = time.perf_counter(); fn(sample); dt = time.perf_counter() - t
    n = max(sample, int(sample * target / max(dt, 1e-6)) // 4096 * 4096)
    if n > cap and cap * dt / sample < 1.0:
        print(f"skip: {cap} would take {cap * dt / sample:.2f} s here")
        sys.exit(0)
    return min(cap, n)

sent = []
def interrupt_after(delay):
    def fire():
        time.sleep(delay)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()

def run(call):
    interrupt_after(0.4)
    t = time.perf_counter()
    try:
        call()
    except KeyboardInterrupt:
        print(f"interrupted {time.perf_counter() - sent[0]:.3f}")
        return True
    print(f"finished {time.perf_counter() - t:.3f}")
    while not sent:  # the signal would otherwise come later
        time.sleep(0.01)
    return False

def settle():  # wait for the calls an interruption left running (they finish alone)
    for t in threading.enumerate():
        if t.name.startswith("gostx-"):
            t.join(30)

key = gostx.Kuznyechik(b"k" * 32)
CASE
"""

_CASES = {
    # A hash object's update: the state afterwards is the state before.
    "streebog_update": """
n = size_for(lambda n: gostx.streebog512(bytes(n)))
h = gostx.streebog512(b"before")
want = h.digest()
data = bytes(n)
if run(lambda: h.update(data)):
    assert h.digest() == want, "the hash state changed"
""",
    "gost94_oneshot": """
n = size_for(lambda n: gostx.gost94(bytes(n)), sample=1 << 20)
data = bytes(n)
res = []
if run(lambda: res.append(gostx.gost94(data).digest())):
    assert not res
""",
    # In place: the input is the output; it must stay as it was.
    "ctr_in_place": """
n = size_for(lambda n: key.ctr(b"i" * 8, bytes(n)), cap=256 << 20)
buf = bytearray(b"\\xa5") * n
if run(lambda: key.ctr(b"i" * 8, buf, out=buf)):
    assert buf.count(0xa5) == n, "the buffer was written"
""",
    "cbc_decrypt_out": """
n = size_for(lambda n: key.cbc_decrypt(b"i" * 16, bytes(n)), cap=256 << 20)
data = bytes(n)
out = bytearray(b"\\x5a") * n
if run(lambda: key.cbc_decrypt(b"i" * 16, data, out=out)):
    assert out.count(0x5a) == n, "out was written"
""",
    "mgm_encrypt": """
mgm = gostx.KuznyechikMGM(b"k" * 32)
n = size_for(lambda n: mgm.encrypt(b"\\x01" * 16, bytes(n)), cap=256 << 20)
data = bytes(n)
res = []
if run(lambda: res.append(mgm.encrypt(b"\\x01" * 16, data))):
    assert not res
""",
    "mgm_decrypt_into_threads": """
mgm = gostx.KuznyechikMGM(b"k" * 32)
n = size_for(lambda n: mgm.encrypt(b"\\x01" * 16, bytes(n), threads=0), cap=256 << 20)
ct = mgm.encrypt(b"\\x01" * 16, bytes(n), threads=0)
out = bytearray(b"\\x5a") * n
if run(lambda: mgm.decrypt_into(b"\\x01" * 16, ct, None, out, threads=0)):
    assert out.count(0x5a) == n, "out was written"
""",
    "xts_sectors_threads": """
x = gostx.KuznyechikXTS(bytes(range(64)))
n = size_for(lambda n: x.encrypt_sectors(bytes(n), 4096, threads=0), cap=256 << 20)
buf = bytearray(b"\\xa5") * n
if run(lambda: x.encrypt_sectors(buf, 4096, out=buf, threads=0)):
    assert buf.count(0xa5) == n, "the buffer was written"
""",
    # A streaming context: afterwards it goes on as if the update never was.
    "mode_context_update": """
n = size_for(lambda n: key.encryptor("cbc", b"i" * 16).update(bytes(n)), cap=256 << 20)
e = key.encryptor("cbc", b"i" * 16)
e.update(b"x" * 20)
twin = e.copy()
data = bytes(n)
if run(lambda: e.update(data)):
    assert e.update(b"y" * 12) == twin.update(b"y" * 12), "the context moved on"
""",
    # A threaded CTR-ACPKM: one call on a thread of its own, left to finish.
    "ctr_acpkm_threads_out": """
n = size_for(lambda n: key.ctr_acpkm(b"i" * 8, bytes(n), threads=0), cap=256 << 20)
data = bytes(n)
out = bytearray(b"\x5a") * n
if run(lambda: key.ctr_acpkm(b"i" * 8, data, out=out, threads=0)):
    assert out.count(0x5a) == n, "out was written"
""",
    "batch_cbc_decrypt_out": """
n = size_for(lambda n: gostx.batch_cbc_decrypt(key, bytes(16 * (n // 4096)), bytes(n), 4096),
             cap=256 << 20)
ivs, data = bytes(16 * (n // 4096)), bytes(n)
out = bytearray(b"\x5a") * n
if run(lambda: gostx.batch_cbc_decrypt(key, ivs, data, 4096, out=out)):
    assert out.count(0x5a) == n, "out was written"
""",
    "pbkdf2": """
it = size_for(lambda n: gostx.pbkdf2(b"pw", b"salt", n), sample=20000, cap=1 << 26)
res = []
if run(lambda: res.append(gostx.pbkdf2(b"pw", b"salt", it))):
    assert not res
""",
    # GOST R 34.10 key files under a password: PBKDF2 of up to 10,000,000
    # iterations, one C call (the writer and the reader).
    "gost3410_private_bytes": """
from gostx import gost3410
k = gost3410.generate_private_key(gost3410.Curve.GOST3410_256_A)
it = size_for(lambda n: k.private_bytes("PEM", b"pw", iterations=n), sample=20000, cap=10_000_000)
res = []
if run(lambda: res.append(k.private_bytes("PEM", b"pw", iterations=it))):
    assert not res
""",
    "gost3410_load_encrypted": """
from gostx import gost3410
k = gost3410.generate_private_key(gost3410.Curve.GOST3410_256_A)
it = size_for(lambda n: k.private_bytes("DER", b"pw", iterations=n), sample=20000, cap=10_000_000)
der = k.private_bytes("DER", b"pw", iterations=it)
res = []
if run(lambda: res.append(gost3410.load_der_private_key(der, b"pw"))):
    assert not res
""",
    # A whole-file encryption from an endless pipe: the stream is cut (at its
    # next read or write; the chunks in flight are sealed first, too long on
    # the portable implementation), and nothing is left in the folder.
    "encrypt_file_stream": """# native
import tempfile
d = tempfile.mkdtemp()
src = os.path.join(d, "src")
os.mkfifo(src)
def feed():
    with open(src, "wb") as f:
        block = bytes(1 << 20)
        try:
            while True:
                f.write(block)
        except OSError:
            pass
threading.Thread(target=feed, daemon=True).start()
dst = os.path.join(d, "dst")
if run(lambda: gostx.encrypt_file(src, dst, key=b"k" * 32)):
    settle()  # the stream's thread removes its temporary file when it ends
    assert sorted(os.listdir(d)) == ["src"], os.listdir(d)
""",
    # The key derivation of a passphrase (many iterations) before any data.
    "encrypt_file_passphrase": """
import tempfile
d = tempfile.mkdtemp()
src = os.path.join(d, "src")
with open(src, "wb") as f:
    f.write(b"data")
it = size_for(lambda n: gostx.pbkdf2(b"pw", b"salt", n), sample=20000, cap=1 << 24)
if run(lambda: gostx.encrypt_file(src, os.path.join(d, "dst"), passphrase="pw", iterations=it)):
    settle()
    assert sorted(os.listdir(d)) == ["src"], os.listdir(d)
""",
}


# The stream again, with the signal taken by the call's own thread, as the
# kernel may choose for a process-directed SIGINT: the waiting thread must
# see it all the same (it waited on a lock no signal there interrupts).
_CASES["encrypt_file_stream_signal_on_call_thread"] = """# native
def interrupt_after(delay):
    def fire():
        time.sleep(delay)
        callers = [t for t in threading.enumerate() if t.name.startswith("gostx-")]
        sent.append(time.perf_counter())
        signal.pthread_kill(callers[0].ident, signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
""" + _CASES["encrypt_file_stream"].replace("# native\n", "", 1)


@pytest.mark.parametrize("case", sorted(_CASES))
def test_ctrl_c_stops_a_long_call_at_once_and_writes_nothing(case):
    code = _CHILD.replace("CASE", textwrap.dedent(_CASES[case]))
    env = dict(os.environ)
    if "# native" not in code:
        env["GOSTX_IMPL"] = "portable"
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the call did not end after SIGINT")
    assert r.returncode == 0, r.stdout + r.stderr
    words = r.stdout.split()
    if words and words[0] == "skip:":
        pytest.skip(r.stdout.strip())
    assert words[0] == "interrupted", f"{case}: the call ran to its end ({r.stdout.strip()} s)"
    assert float(words[1]) <= 0.3, f"{case}: KeyboardInterrupt {words[1]} s after SIGINT"
