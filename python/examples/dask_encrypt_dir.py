"""Encrypt (and hash) a directory of files on a Dask cluster, one task per file.

    GOSTX_KEYSTORE=/secure/keys python dask_encrypt_dir.py SRC_DIR DST_DIR --key-id backup
        [--workers 2] [--scheduler tcp://host:8786] [--no-hash]

Each task runs encrypt_and_hash(src, dst_dir, key_id): a function of its
arguments that writes one gostx file (readable by `gostx dec`) and returns
the plaintext's Streebog-256 and sizes. The task graph carries only the key
id: each worker resolves it from its own key store (GOSTX_KEYSTORE, a
directory of 32-byte `gostx keygen` files named KEY_ID.key), so no key bytes
travel through the scheduler, its logs or its dashboard. Inside a task the
library runs on one thread (threads=1): Dask spreads the files over workers,
and one task per core keeps the two levels of parallelism from competing.

Without --scheduler it starts a distributed.LocalCluster of --workers
processes with one thread each; with it, the same code runs on a real
multi-node cluster (the module is shipped to the workers by value).
"""
import argparse
import os
import pathlib
import time

import gostx

CHUNK = 1 << 20


def resolve_key(key_id):
    """The key for key_id from this machine's key store (never from the graph)."""
    if not key_id.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"bad key id {key_id!r}")
    store = os.environ.get("GOSTX_KEYSTORE")
    if not store:
        raise RuntimeError("GOSTX_KEYSTORE is not set on this worker")
    key = pathlib.Path(store, f"{key_id}.key").read_bytes()
    if len(key) != 32:
        raise ValueError(f"key {key_id!r} must be 32 bytes, got {len(key)}")
    return key


def encrypt_and_hash(src, dst_dir, key_id, hash_plaintext=True):
    """Encrypt src into dst_dir/NAME.gostx; return its report (a dict)."""
    t0 = time.perf_counter()
    src = pathlib.Path(src)
    dst = pathlib.Path(dst_dir, src.name + ".gostx")
    digest = None
    if hash_plaintext:
        h = gostx.streebog256()
        with open(src, "rb") as f:
            for block in iter(lambda: f.read(CHUNK), b""):
                h.update(block)
        digest = h.hexdigest()
    gostx.encrypt_file(src, dst, key=resolve_key(key_id), threads=1)
    return {"file": src.name, "bytes": src.stat().st_size, "streebog256": digest,
            "out": str(dst), "seconds": time.perf_counter() - t0}


def build_tasks(src_dir, dst_dir, key_id, hash_plaintext=True):
    """One delayed task per file of src_dir (sorted by name)."""
    import dask

    files = sorted(p for p in pathlib.Path(src_dir).iterdir() if p.is_file())
    task = dask.delayed(encrypt_and_hash, pure=True)
    return [task(str(p), str(dst_dir), key_id, hash_plaintext) for p in files]


def run(src_dir, dst_dir, key_id, workers=2, scheduler=None, hash_plaintext=True):
    """Run the tasks; returns (reports, wall seconds of the compute alone)."""
    import cloudpickle
    import dask
    from distributed import Client, LocalCluster

    import dask_encrypt_dir
    cloudpickle.register_pickle_by_value(dask_encrypt_dir)  # workers need not have this file
    os.makedirs(dst_dir, exist_ok=True)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    with Client(scheduler or cluster) as client:
        client.wait_for_workers(workers if scheduler is None else 1)
        tasks = build_tasks(src_dir, dst_dir, key_id, hash_plaintext)
        t0 = time.perf_counter()
        reports = list(dask.compute(*tasks))
        seconds = time.perf_counter() - t0
    if cluster is not None:
        cluster.close()
    return reports, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src_dir")
    ap.add_argument("dst_dir")
    ap.add_argument("--key-id", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler")
    ap.add_argument("--no-hash", action="store_true")
    args = ap.parse_args()
    reports, seconds = run(args.src_dir, args.dst_dir, args.key_id, args.workers,
                           args.scheduler, not args.no_hash)
    total = sum(r["bytes"] for r in reports)
    for r in reports:
        print(f"{r['streebog256'] or '-'}  {r['file']}  {r['seconds'] * 1000:.0f} ms")
    print(f"{len(reports)} files, {total / 1e6:.1f} MB in {seconds:.2f} s: "
          f"{total / 1e6 / seconds:.1f} MB/s")


if __name__ == "__main__":
    main()
