"""GOST R 34.10-2012 through the package beside the C library, in one run.

  python python/bench/gost3410.py [--speed build/bench/gost3410_speed] [--repeat 5]

Operations per second of key generation, signing (of a 32/64-byte digest,
prehashed=True, so that only the binding's cost comes on top of C's),
verification and VKO on the standard curves, each the median of --repeat
repetitions of at least --time seconds of this thread's CPU time, as the C
bench times them; then the C bench (bench/gost3410_speed.c, `make build`) run
right after, and the ratio. One thread.
"""
import argparse
import os
import subprocess

import gostx
from bench import seconds_per_call

OPS = ("keygen", "sign", "verify", "vko")


def python_rates(curve, min_time, repeat):
    """op -> operations per second on curve."""
    n = curve.key_size // 8
    key, peer = gostx.PrivateKey.generate(curve), gostx.PrivateKey.generate(curve)
    pub, peer_pub = key.public_key(), peer.public_key()
    digest = os.urandom(n)
    sig = key.sign(digest, prehashed=True)
    ukm = os.urandom(8)
    calls = {
        "keygen": lambda: gostx.PrivateKey.generate(curve),
        "sign": lambda: key.sign(digest, prehashed=True),
        "verify": lambda: pub.verify(sig, digest, prehashed=True),
        "vko": lambda: key.exchange(peer_pub, ukm),
    }
    return {op: 1 / seconds_per_call(calls[op], min_time, repeat) for op in OPS}


def c_rates(speed_bin, repeat):
    """param-set name -> op -> ops/s from the C bench's table, or {} without it."""
    if not os.path.exists(speed_bin):
        return {}
    out = subprocess.run([speed_bin, str(repeat)], capture_output=True, text=True,
                         check=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0].startswith("id-"):
            rows[parts[0]] = dict(zip(OPS, map(float, parts[1:])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--speed", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "build", "bench", "gost3410_speed"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--time", type=float, default=0.2)
    args = ap.parse_args()
    curves = [gostx.Curve[f"GOST3410_{s}"] for s in ("256_A", "256_B", "512_A", "512_C")]
    py = {c: python_rates(c, args.time, args.repeat) for c in curves}
    c = c_rates(args.speed, args.repeat)
    print(f"gostx {gostx.__version__}, one thread, ops/s (Python / C = ratio); load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'curve':40s}" + "".join(f"{op:>22s}" for op in OPS))
    for curve in curves:
        ref = c.get(curve.param_set, {})
        cells = []
        for op in OPS:
            mine = py[curve][op]
            cells.append(f"{mine:.0f} / {ref[op]:.0f} = {mine / ref[op]:.2f}" if op in ref
                         else f"{mine:.0f}")
        print(f"{curve.param_set:40s}" + "".join(f"{cell:>22s}" for cell in cells))


if __name__ == "__main__":
    main()
