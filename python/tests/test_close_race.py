"""close() racing calls on other threads (issue 56 item 14).

cffi releases the GIL inside C, so a key object's close() could wipe the key
under a running call, which then returned wrong bytes without an error. Now
every call on an object that is closed, or closing, either returns the right
result or raises ValueError (a call begun before close() finishes right;
the key is wiped when the last such call ends), never wrong bytes.

Each race: a worker thread calls one method again and again on a fresh
object while this thread closes it after a random delay, 1,000 times per
primitive; every result the worker got must equal the one computed on a
separate object, and its calls must raise ValueError once close() returned.
"""
import contextlib
import io
import random
import sys
import threading
import time

import pytest

import gostx
import gostx._native as native

ROUNDS = 1000
KEY, KEY64 = bytes(range(32)), bytes(range(64))
IV8, NONCE16, NONCE8 = bytes(range(8)), bytes(16), bytes(8)
DATA = bytes(range(256)) * 128  # 32 KiB: a call long enough for close() to land in it
CHUNK = DATA[:4096 + 40]
CALLS_MAX = 50  # calls per round at most


class _Worker:
    """A thread that, for each object handed to it, calls call(obj) until it
    raises ValueError, keeping the results. After CALLS_MAX results it waits
    for close() and checks that one more call raises (so that a round is
    short however fast the calls, and a lock-holding worker cannot keep
    close() waiting)."""

    def __init__(self, call):
        self.call = call
        self.go, self.done, self.closed = threading.Semaphore(0), threading.Semaphore(0), threading.Event()
        self.obj, self.results, self.error = None, [], None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            self.go.acquire()
            obj = self.obj
            if obj is None:
                return
            self.results, self.error = [], None
            try:
                self._calls(obj)
            except BaseException as e:  # noqa: B902 - handed to the test
                self.error = e
            self.done.release()

    def _calls(self, obj):
        try:
            while len(self.results) < CALLS_MAX:
                self.results.append(self.call(obj))
            self.closed.wait()
            self.call(obj)
        except ValueError:
            return
        raise AssertionError("a call after close() returned")

    def round(self, obj, delay):
        """The worker's results on obj, closed after delay seconds."""
        self.obj = obj
        self.closed.clear()
        self.go.release()
        time.sleep(delay)  # lets the worker run; wakes (timer slack included) at a random point
        obj.close()
        self.closed.set()
        assert self.done.acquire(timeout=30), "a call on a closed object never ended"
        if self.error is not None:
            raise self.error
        return self.results

    def stop(self):
        self.obj = None
        self.go.release()
        self.thread.join(5)


def race(make, call, want, delay=60e-6, rounds=ROUNDS):
    """rounds races of close() against call(obj) on obj = make(); want(i) is
    the right result of the worker's i-th call on one object (a key object's
    calls all give the same). Returns (rounds that saw a wrong result, calls)."""
    rng = random.Random(56)
    wrong = calls = 0
    with _racing(call) as worker:
        for _ in range(rounds):
            results = worker.round(make(), rng.uniform(0, delay))
            calls += len(results)
            wrong += any(r != want(i) for i, r in enumerate(results))
    return wrong, calls


@contextlib.contextmanager
def _racing(call):
    """A _Worker for call, with threads switching often: close() then lands
    anywhere, in the Python code around the C calls too."""
    worker = _Worker(call)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield worker
    finally:
        sys.setswitchinterval(switch)
        worker.stop()


def _same(value):
    return lambda i: value


def _check_race(make, call, want, **kw):
    wrong, calls = race(make, call, want, **kw)
    assert wrong == 0, f"{wrong} of {ROUNDS} rounds returned wrong bytes ({calls} calls in all)"


# ---- key objects: many calls at once, close() must not wipe the key under one ----

def _pk():
    return gostx.PrivateKey.from_bytes(gostx.Curve.GOST3410_256_A, bytes(31) + b"\x07")


PEER = gostx.PrivateKey.from_bytes(gostx.Curve.GOST3410_256_A, bytes(31) + b"\x05").public_key()

KEY_CASES = {
    "kuznyechik-ctr": (lambda: gostx.Kuznyechik(KEY), lambda k: k.ctr(IV8, DATA)),
    "magma-ecb-threads": (lambda: gostx.Magma(KEY), lambda k: k.ecb_encrypt(DATA, threads=2)),
    "kuznyechik-encryptor": (lambda: gostx.Kuznyechik(KEY),
                             lambda k: k.encryptor("ofb", NONCE16).update(DATA[:256])),
    "kuznyechik-mgm": (lambda: gostx.KuznyechikMGM(KEY), lambda a: a.encrypt(NONCE16, DATA, b"ad")),
    "magma-mgm": (lambda: gostx.MagmaMGM(KEY), lambda a: a.encrypt(NONCE8, DATA)),
    "xts": (lambda: gostx.KuznyechikXTS(KEY64), lambda x: x.encrypt_sectors(DATA, 4096)),
    "gost89-ecb": (lambda: gostx.Gost89(KEY), lambda g: g.ecb_encrypt(DATA[:16384])),
    "gost89-cnt": (lambda: gostx.Gost89(KEY), lambda g: g.cnt(IV8, DATA[:16384])),
    "batch-ctr": (lambda: gostx.Kuznyechik(KEY),
                  lambda k: gostx.batch_ctr(k, IV8 * (len(DATA) // 4096), DATA, 4096)),
    "gost3410-exchange": (_pk, lambda d: d.exchange(PEER, IV8)),
}


@pytest.mark.parametrize("name", sorted(KEY_CASES))
def test_close_during_key_calls(name):
    make, call = KEY_CASES[name]
    want = call(make())
    _check_race(make, call, _same(want))


def test_close_during_sign():
    """sign() is randomised: each signature must verify (InvalidSignature
    is no ValueError: the race reports it)."""
    pub, digest = _pk().public_key(), bytes(range(32))

    def call(d):
        pub.verify(d.sign(digest, prehashed=True), digest, prehashed=True)
        return True

    _check_race(_pk, call, _same(True), delay=30e-6)


# ---- objects with state: their calls take turns (a lock) with close() ----

def _sequence(make, step, n=CALLS_MAX):
    """The results of n calls of step on one object, closed afterwards."""
    obj = make()
    try:
        return [step(obj) for _ in range(n)]
    finally:
        obj.close()


STATE_CASES = {
    "mode-context": (lambda: gostx.Kuznyechik(KEY).encryptor("ctr", IV8), lambda c: c.update(CHUNK)),
    "omac-context": (lambda: gostx.Magma(KEY).omac_context(),
                     lambda c: (c.update(CHUNK), c.copy().finalize())[1]),
    "gost89-context": (lambda: gostx.Gost89(KEY).encryptor("cfb", IV8, meshing=True),
                       lambda c: c.update(CHUNK)),
    "hmac": (lambda: gostx.HMAC(KEY), lambda h: (h.update(CHUNK), h.digest())[1]),
}


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_close_during_stateful_calls(name):
    make, step = STATE_CASES[name]
    want = _sequence(make, step)
    _check_race(make, step, want.__getitem__, delay=30e-6)


def _sealed():
    buf = io.BytesIO()
    with gostx.open_file(buf, "wb", key=KEY, chunk_size=1024) as w:
        w.write(DATA[:CALLS_MAX * 1024])
    return buf.getvalue()


def test_close_during_reader_reads():
    blob = _sealed()
    want = [DATA[i * 1024:(i + 1) * 1024] for i in range(CALLS_MAX)]
    _check_race(lambda: gostx.open_file(io.BytesIO(blob), "rb", key=KEY),
                lambda r: r.read(1024), want.__getitem__, delay=30e-6)


def test_close_during_writer_writes():
    """The file close() finishes holds exactly the writes that returned."""
    outs = []

    def make():
        outs.append(io.BytesIO())
        return gostx.open_file(outs[-1], "wb", key=KEY, chunk_size=16384)

    rng, piece = random.Random(56), CHUNK[:300]
    with _racing(lambda w: w.write(piece)) as worker:
        for _ in range(ROUNDS):
            written = len(worker.round(make(), rng.uniform(0, 30e-6)))
            with gostx.open_file(io.BytesIO(outs.pop().getvalue()), "rb", key=KEY) as r:
                assert r.read() == piece * written


# ---- a call begun before close() returns the right result ----

def _close_mid_call(monkeypatch, obj, call, closer=lambda obj: obj.close()):
    """call(obj) on a worker thread, closed (closer(obj)) between two of its
    pieces (the call waits at its second piece until closer returned): the
    result, whether the key was still there then, and whether it was wiped
    once the call ended."""
    gate, closed = threading.Event(), threading.Event()
    real = native.pieces

    def held_at_second(n, align=1, first=native.LONG):
        for i, piece in enumerate(real(n, align, first)):
            if i == 1:
                gate.set()
                assert closed.wait(10)
            yield piece

    monkeypatch.setattr(native, "pieces", held_at_second)
    h = obj._h
    result = []

    def run():
        try:
            result.append(call(obj))
        except Exception as e:  # noqa: B902 - the test's to see
            result.append(e)

    t = threading.Thread(target=run)
    t.start()
    assert gate.wait(10)
    closer(obj)
    still_keyed = any(bytes(native.ffi.buffer(h)))
    with pytest.raises(ValueError, match="closed"):
        call(obj)  # a call after close() is refused at once
    closed.set()
    t.join(10)
    return result[0], still_keyed, not any(bytes(native.ffi.buffer(h)))


BIG = DATA * 80  # 2.5 MiB: in pieces


@pytest.mark.parametrize("make, call", [
    (lambda: gostx.Kuznyechik(KEY), lambda k: k.ctr(IV8, BIG)),
    (lambda: gostx.Magma(KEY), lambda k: k.omac(BIG)),
    (lambda: gostx.KuznyechikMGM(KEY), lambda a: a.encrypt(NONCE16, BIG)),
    (lambda: gostx.KuznyechikXTS(KEY64), lambda x: x.encrypt_sectors(BIG)),
    (lambda: gostx.Gost89(KEY), lambda g: g.ecb_encrypt(BIG)),
], ids=["kuznyechik-ctr", "magma-omac", "mgm", "xts", "gost89"])
def test_call_begun_before_close_finishes_right(monkeypatch, make, call):
    want = call(make())
    got, keyed_while_running, wiped_after = _close_mid_call(monkeypatch, make(), call)
    assert got == want
    assert keyed_while_running, "close() wiped the key under a running call"
    assert wiped_after, "the key was not wiped when the last call ended"


def test_close_racing_close_wipes_once(monkeypatch):
    """Two threads close a key at once while a call runs on it: the call
    finishes right, the key is wiped once, after the call."""
    k, wipes = gostx.Kuznyechik(KEY), []
    k._clear = lambda h: (wipes.append(1), native.lib.gostx_cipher_clear(h))
    want = gostx.Kuznyechik(KEY).ctr(IV8, BIG)

    def close_twice_at_once(obj):
        together = threading.Barrier(2)
        closers = [threading.Thread(target=lambda: (together.wait(5), obj.close())) for _ in range(2)]
        for t in closers:
            t.start()
        for t in closers:
            t.join(5)

    got, keyed_while_running, wiped_after = _close_mid_call(
        monkeypatch, k, lambda obj: obj.ctr(IV8, BIG), closer=close_twice_at_once)
    assert got == want and keyed_while_running and wiped_after
    assert wipes == [1]
    k.close()
    del k
    assert wipes == [1]


def test_inner_steps_of_a_running_call_go_on_after_close():
    """A call's own inner steps (a context made from the key, a batch naming
    it twice) hold it again: on the thread running the call that works after
    close(); on any other thread a new call is refused."""
    k = gostx.Kuznyechik(KEY)
    outer = k._hold()
    k.close()
    inner = k._hold()  # this thread runs a call: an inner step of it
    k._release(inner)
    refused = []

    def other():
        try:
            k._hold()
        except ValueError as e:
            refused.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join(5)
    assert len(refused) == 1 and k._h is not None
    k._release(outer)  # the last call ends: the key is wiped now
    assert k._h is None


def test_key_wiped_when_the_last_of_several_calls_ends():
    """Calls running on two threads when close() comes: the first to end
    leaves the key to the other; the last one wipes it."""
    k = gostx.Kuznyechik(KEY)
    other_holds, release_other = threading.Event(), threading.Event()

    def other_call():
        ident = k._hold()
        other_holds.set()
        release_other.wait(5)
        k._release(ident)

    t = threading.Thread(target=other_call)
    t.start()
    assert other_holds.wait(5)
    mine = k._hold()
    k.close()
    k._release(mine)
    assert k._h is not None, "wiped under the other thread's call"
    release_other.set()
    t.join(5)
    assert k._h is None


def test_close_twice_and_collect():
    k = gostx.Kuznyechik(KEY)
    h = k._h
    k.close()
    k.close()
    assert not any(bytes(native.ffi.buffer(h)))
    with pytest.raises(ValueError, match="closed"):
        k.ctr(IV8, b"x")
