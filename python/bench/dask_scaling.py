"""Throughput of the Dask example with 1 and 2 workers against `gostx enc -j N`
on the same files.

    python python/bench/dask_scaling.py [--files 24] [--size-mib 16] [--gostx build/gostx]

Writes --files random files of --size-mib MiB to a temporary directory (in
the page cache: this measures the CPU work, not the disk), then times
  - the Dask example (LocalCluster, 1 thread per worker process) with 1 and
    2 workers, encrypting only and encrypting + hashing (Streebog-256);
  - `gostx enc -k KEY -j N` run once per file, one file after another, for
    N = 1 and 2 (the command's own chunk-parallel pipeline).
Prints MB/s (10^6 B/s of plaintext) and the speed-up over one worker.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))
import dask_encrypt_dir  # noqa: E402


def cli_time(gostx_bin, key_file, files, out_dir, threads):
    t0 = time.perf_counter()
    for f in files:
        subprocess.run([gostx_bin, "enc", "-q", "-k", str(key_file), "-j", str(threads),
                        "-i", str(f), "-o", str(out_dir / (f.name + ".gostx"))], check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--size-mib", type=int, default=16)
    ap.add_argument("--gostx", default=str(HERE.parents[1] / "build" / "gostx"))
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        src, keys = tmp / "src", tmp / "keys"
        src.mkdir()
        keys.mkdir()
        (keys / "bench.key").write_bytes(os.urandom(32))
        os.environ["GOSTX_KEYSTORE"] = str(keys)
        files = []
        for i in range(args.files):
            f = src / f"file{i:03}"
            f.write_bytes(os.urandom(args.size_mib << 20))
            files.append(f)
        total = args.files * (args.size_mib << 20) / 1e6
        print(f"{args.files} files x {args.size_mib} MiB = {total:.0f} MB; {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.2f}; best of {args.rounds} rounds")
        rows = {}
        for r in range(args.rounds):
            for hashing in (False, True):
                for workers in (1, 2):
                    _, sec = dask_encrypt_dir.run(src, tmp / f"dask{workers}", "bench", workers,
                                                  hash_plaintext=hashing)
                    name = f"dask, {workers} worker(s), {'encrypt+hash' if hashing else 'encrypt'}"
                    rows[name] = min(rows.get(name, sec), sec)
            for threads in (1, 2):
                out = tmp / f"cli{threads}"
                out.mkdir(exist_ok=True)
                sec = cli_time(args.gostx, keys / "bench.key", files, out, threads)
                name = f"gostx enc -j {threads}, file by file, encrypt"
                rows[name] = min(rows.get(name, sec), sec)
        for name, sec in rows.items():
            print(f"{name:45} {sec:7.2f} s {total / sec:8.1f} MB/s")


if __name__ == "__main__":
    main()
