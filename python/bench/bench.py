"""The package's speed beside the C library's, in one run.

  python python/bench/bench.py [--gostx build/gostx] [--repeat 5] [--time 0.2]

1. 1 MiB buffers: MB/s of Kuznyechik-CTR, Kuznyechik-MGM encryption and
   Streebog-256/512 through the package's ordinary calls (new bytes result)
   and its into-calls (caller's buffer), against the same rows of
   `gostx bench --size 1M` run alternately with them. Both sides time by each
   thread's CPU time (--clock cpu), which steadies ratios on a shared machine;
   each round: medians of --repeat repetitions of at least --time seconds;
   the table gives each side's best round and the ratio of the medians.
   Then the binding's own cost at 1 MiB, which the machine's noise cannot
   hide: the package's call and the bare compiled call alternate call by call.
2. 64-byte calls: ns per call from Python minus ns per call of the C library
   (`gostx bench --size 64`): the binding's per-call overhead.
3. Two Python threads, each calling Kuznyechik-CTR on its own 1 MiB buffer,
   against one thread: aggregate MB/s by the wall clock.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import gostx

MiB = 1 << 20
ROWS = {  # bench row (algorithm, mode) -> label
    ("kuznyechik", "ctr"): "kuznyechik-ctr",
    ("kuznyechik", "mgm-enc"): "kuznyechik-mgm-enc",
    ("streebog256", "hash"): "streebog256",
    ("streebog512", "hash"): "streebog512",
}


def python_calls(size):
    """label -> (ordinary call, into-call or None) on buffers of size bytes."""
    data, out = os.urandom(size), bytearray(size + 16)
    k, aead = gostx.Kuznyechik(os.urandom(32)), gostx.KuznyechikMGM(os.urandom(32))
    iv, nonce = bytes(8), bytes(16)
    return {
        "kuznyechik-ctr": (lambda: k.ctr(iv, data), lambda: k.ctr(iv, data, out=out)),
        "kuznyechik-mgm-enc": (lambda: aead.encrypt(nonce, data),
                               lambda: aead.encrypt_into(nonce, data, None, out)),
        "streebog256": (lambda: gostx.streebog256(data).digest(), None),
        "streebog512": (lambda: gostx.streebog512(data).digest(), None),
    }


def seconds_per_call(fn, min_time, repeat, clock=time.thread_time):
    """Median over repetitions of (time / calls), each repetition >= min_time."""
    fn()
    calls = 1
    while True:  # calibrate the number of calls per repetition
        t0 = clock()
        for _ in range(calls):
            fn()
        if clock() - t0 >= min_time / 4:
            break
        calls *= 4
    calls = max(1, int(calls * min_time / max(clock() - t0, 1e-9)))
    reps = []
    for _ in range(repeat):
        t0 = clock()
        for _ in range(calls):
            fn()
        reps.append((clock() - t0) / calls)
    return statistics.median(reps)


def c_bench(gostx_bin, size, repeat, min_time):
    cmd = [gostx_bin, "bench", "--size", str(size), "--json", "--clock", "cpu", "--repeat",
           str(repeat), "--time", str(int(min_time * 1000)), "--filter",
           "kuznyechik-ctr,kuznyechik-mgm-enc,streebog256-hash,streebog512-hash"]
    rows = json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout)
    return {ROWS[(r["algorithm"], r["mode"])]: r["mbps_aligned"] for r in rows["rows"]
            if (r["algorithm"], r["mode"]) in ROWS}


def throughput_table(args):
    print(f"1 MiB buffers, MB/s (10^6 B/s, CPU-time clock, median of {args.repeat}); "
          f"C and Python alternate {args.rounds} rounds")
    calls = python_calls(MiB)
    c_runs, py_runs, into_runs = [], [], []
    for _ in range(args.rounds):
        c_runs.append(c_bench(args.gostx, MiB, args.repeat, args.time))
        py_runs.append({k: MiB / 1e6 / seconds_per_call(f[0], args.time, args.repeat)
                        for k, f in calls.items()})
        into_runs.append({k: MiB / 1e6 / seconds_per_call(f[1], args.time, args.repeat)
                          for k, f in calls.items() if f[1]})
    # On a shared machine other work only ever slows a row down: the best
    # round of each side is the least disturbed one; the median is shown too.
    print(f"{'row':22} {'C best':>8} {'py best':>8} {'ratio':>6} {'into best':>9} {'ratio':>6}"
          f"  {'median ratios (py, into)':>24}")
    for label in calls:
        cs = [r[label] for r in c_runs]
        ps = [r[label] for r in py_runs]
        line = f"{label:22} {max(cs):8.1f} {max(ps):8.1f} {max(ps) / max(cs):5.3f}x"
        med = f"{statistics.median(ps) / statistics.median(cs):.3f}x"
        if label in into_runs[0]:
            ins = [r[label] for r in into_runs]
            line += f" {max(ins):9.1f} {max(ins) / max(cs):5.3f}x"
            med += f", {statistics.median(ins) / statistics.median(cs):.3f}x"
        else:
            line += f" {'':9} {'':6}"
        print(f"{line}  {med:>24}")


def binding_cost_table(args):
    """What the package adds at 1 MiB, free of the machine's noise: the
    package's call and the bare compiled call (preallocated buffers) alternate
    call by call in this process, on the same clock."""
    print("\n1 MiB: the package's calls against the bare C call, alternating call by call "
          f"({args.pairs} pairs, CPU-time clock): median extra time per call")
    from gostx._native import ffi, lib
    data, out = os.urandom(MiB), bytearray(MiB + 16)
    d, o = ffi.from_buffer("uint8_t[]", data), ffi.from_buffer("uint8_t[]", out, True)
    k, aead = gostx.Kuznyechik(os.urandom(32)), gostx.KuznyechikMGM(os.urandom(32))
    iv, nonce = bytes(8), bytes(16)
    tag = o + MiB
    h = ffi.new("uint8_t[64]")
    rows = {
        "kuznyechik-ctr": (lambda: lib.gostx_ctr_crypt(k._h, iv, 8, 16, d, MiB, o),
                           lambda: k.ctr(iv, data), lambda: k.ctr(iv, data, out=out)),
        "kuznyechik-mgm-enc": (lambda: lib.gostx_mgm_encrypt(aead._h, nonce, b"", 0, d, MiB,
                                                             o, tag, 16),
                               lambda: aead.encrypt(nonce, data),
                               lambda: aead.encrypt_into(nonce, data, None, out)),
        "streebog512": (lambda: lib.gostx_streebog(64, d, MiB, h),
                        lambda: gostx.streebog512(data).digest(), None),
    }
    clock = time.thread_time_ns
    print(f"{'row':22} {'bare C us':>10} {'python +us':>11} {'+%':>6} {'into +us':>9} {'+%':>6}")
    for label, (bare, py, into) in rows.items():
        extra = {"py": [], "into": []}
        base = []
        for _ in range(args.pairs):
            t0 = clock()
            bare()
            t1 = clock()
            py()
            t2 = clock()
            base.append(t1 - t0)
            extra["py"].append((t2 - t1) - (t1 - t0))
            if into:
                t3 = clock()
                into()
                extra["into"].append((clock() - t3) - (t1 - t0))
        b = statistics.median(base) / 1e3
        line = f"{label:22} {b:10.0f}"
        for key in ("py", "into"):
            if extra[key]:
                e = statistics.median(extra[key]) / 1e3
                line += f" {e:+10.1f} {100 * e / b:+5.1f}%"
        print(line)


def overhead_table(args):
    print("\n64-byte calls: ns per call (CPU-time clock); overhead = python - C")
    c = c_bench(args.gostx, 64, args.repeat, args.time)
    calls = python_calls(64)
    print(f"{'row':22} {'C ns':>8} {'python ns':>10} {'into ns':>8} {'overhead':>9}")
    for label, (fn, into) in calls.items():
        c_ns = 64 / c[label] * 1e3
        p_ns = seconds_per_call(fn, args.time, args.repeat) * 1e9
        i_ns = seconds_per_call(into, args.time, args.repeat) * 1e9 if into else float("nan")
        print(f"{label:22} {c_ns:8.0f} {p_ns:10.0f} {i_ns:8.0f} {p_ns - c_ns:9.0f}")


def threads_table(args):
    print("\nKuznyechik-CTR, 1 MiB per call, each thread its own buffer; wall clock")
    k = gostx.Kuznyechik(os.urandom(32))

    def run(nthreads):
        done = [0] * nthreads
        stop = time.perf_counter() + args.thread_time

        def worker(i):
            data, out = os.urandom(MiB), bytearray(MiB)
            while time.perf_counter() < stop:
                k.ctr(bytes(8), data, out=out)
                done[i] += 1

        ts = [threading.Thread(target=worker, args=(i,)) for i in range(nthreads)]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return sum(done) * MiB / 1e6 / (time.perf_counter() - t0)

    results = {1: [], 2: []}
    for _ in range(args.rounds):
        for n in (1, 2):
            results[n].append(run(n))
    one, two = (statistics.median(results[n]) for n in (1, 2))
    print(f"1 thread {one:.1f} MB/s, 2 threads {two:.1f} MB/s: {two / one:.2f}x "
          f"(median of {args.rounds} rounds of {args.thread_time} s; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gostx", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "build", "gostx"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--time", type=float, default=0.1)
    ap.add_argument("--thread-time", type=float, default=1.0)
    ap.add_argument("--pairs", type=int, default=200)
    args = ap.parse_args()
    print(f"gostx {gostx.__version__} on Python {sys.version.split()[0]}; "
          f"implementations: {gostx.implementations()}")
    throughput_table(args)
    binding_cost_table(args)
    overhead_table(args)
    threads_table(args)


if __name__ == "__main__":
    main()
