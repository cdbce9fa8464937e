"""The GIL is released in C, threads share key objects safely, and threads=
gives the single-thread bytes."""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import gostx

BIG = 32 << 20


@pytest.mark.parametrize("call", ["ctr", "mgm", "streebog"])
def test_gil_released_during_c_call(call):
    data = bytes(BIG)
    k, aead = gostx.Kuznyechik(bytes(32)), gostx.KuznyechikMGM(bytes(32))
    fn = {"ctr": lambda: k.ctr(bytes(8), data), "mgm": lambda: aead.encrypt(bytes(16), data),
          "streebog": lambda: gostx.streebog512(data)}[call]
    started, ticks = threading.Event(), 0

    def work():
        started.set()
        fn()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    while t.is_alive():  # only runs while the worker is inside C without the GIL
        ticks += 1
    t.join()
    # One C call of 32 MiB takes 50-500 ms; holding the GIL would leave the
    # loop a handful of turns (switch interval 5 ms), releasing it gives
    # hundreds of thousands.
    assert ticks > 10000


def test_threads_share_one_key():
    k = gostx.Magma(os.urandom(32))
    ivs = [os.urandom(4) for _ in range(64)]
    data = os.urandom(100000)
    want = [k.ctr(iv, data) for iv in ivs]
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda iv: k.ctr(iv, data), ivs))
    assert got == want


@pytest.mark.parametrize("threads", [0, 2, 3])
def test_threads_argument_gives_the_same_bytes(threads):
    key, data = os.urandom(32), os.urandom(1 << 20)
    k, aead = gostx.Kuznyechik(key), gostx.KuznyechikMGM(key)
    iv = os.urandom(8)
    assert k.ctr(iv, data, threads=threads) == k.ctr(iv, data)
    assert k.ctr_acpkm(iv, data, threads=threads) == k.ctr_acpkm(iv, data)
    assert k.ecb_encrypt(data, threads=threads) == k.ecb_encrypt(data)
    assert k.ecb_decrypt(data, threads=threads) == k.ecb_decrypt(data)
    nonce = bytes(16)
    ct = aead.encrypt(nonce, data, b"a", threads=threads)
    assert ct == aead.encrypt(nonce, data, b"a")
    assert aead.decrypt(nonce, ct, b"a", threads=threads) == data
    x = gostx.KuznyechikXTS(os.urandom(64))
    assert x.encrypt_sectors(data, 4096, 5, threads=threads) == x.encrypt_sectors(data, 4096, 5)
