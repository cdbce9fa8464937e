#!/usr/bin/env python3
"""Run the GOST-re-signed x509-limbo cases through `gostx x509 verify`.

Each case of limbo-gost.json.gz (made by make_gost_limbo.py) becomes one
`gostx x509 verify` per expected peer name, with the case's anchors as
-CAfile, its intermediates as -untrusted and its options mapped (README.md);
gostx's verdict (exit 0 or not) is compared with the case's expected result.
Cases that need an option this gostx lacks (asked of `x509 verify --help`)
are skipped, named. The disagreements are compared with known-failures.txt:
a new one, or a known one that now agrees, fails the run (exit 1).
`--update-known` rewrites that file from this run. Python's stdlib only.
"""
import argparse
import base64
import collections
import concurrent.futures
import datetime
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent / "support"))
from gostx_test_time import bound  # noqa: E402 (the waits' scale, also when run by hand)

# one gostx run (times the load scale); the denial-of-service cases must end
# well within it
TIMEOUT_S = bound(20)
# Thousands of small files: on tmpfs when there is one (a disk's metadata
# writes made the run 4 times slower)
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
BATCH = 200  # cases in one gostx call (x509 verify takes up to 256 CERT files)

# What each option a case may need is called in `gostx x509 verify --help`.
NAME_OPTIONS = {"DNS": "-verify_hostname", "IP": "-verify_ip", "RFC822": "-verify_email"}
KIND_PURPOSES = {"SERVER": "sslserver", "CLIENT": "sslclient"}
PURPOSES = {"serverAuth": "sslserver", "clientAuth": "sslclient", "anyExtendedKeyUsage": "any"}


def pem(b64, kind="CERTIFICATE"):
    return "-----BEGIN %s-----\n" % kind + "\n".join(textwrap.wrap(b64, 64)) + \
        "\n-----END %s-----\n" % kind


def attime(text):
    """The validation time as whole seconds, rounded down as limbo asks
    (rfc5280::validity::*-fractional)."""
    t = datetime.datetime.fromisoformat(text)
    return str(int(t.timestamp() // 1))


def plan(case, supported):
    """(argument lists, one per run) or (None, why skipped)."""
    args = []
    if case["validation_time"]:
        args += ["-attime", attime(case["validation_time"])]
    ekus = case["extended_key_usage"]
    if len(ekus) > 1 or any(e not in PURPOSES for e in ekus):
        return None, "an extended key usage set -purpose cannot say: %s" % ekus
    # No EKU asked: the kind of peer says it (a SERVER case is a TLS server's
    # certificate, as limbo's pyca and webpki harnesses take it; bettertls's
    # BAD_EKU cases expect that)
    args += ["-purpose", PURPOSES[ekus[0]] if ekus else KIND_PURPOSES[case["validation_kind"]]]
    if case["key_usage"]:
        return None, "a key usage requirement (no such option of x509 verify)"
    if case.get("crls"):  # limbo's CRL cases ask the leaf's status (openssl's -crl_check)
        if "-crl_check" not in supported:
            return None, "CRLs: x509 verify has no -crl_check"
        args += ["-crl_check"]
    if case["max_chain_depth"] is not None:
        if "-verify_depth" not in supported:
            return None, "max_chain_depth: x509 verify has no -verify_depth"
        args += ["-verify_depth", str(case["max_chain_depth"])]
    runs = []
    for name in case["peer_names"] or [None]:
        if name is None:
            runs.append(args)
            continue
        opt = NAME_OPTIONS.get(name["kind"])
        if opt is None or opt not in supported:
            return None, "a %s peer name: x509 verify has no %s" % (name["kind"], opt or "option")
        runs.append(args + [opt, name["value"]])
    return runs, None


def verdicts(gostx, cases, runs):
    """{id: ('SUCCESS' or 'FAILURE' or 'TIMEOUT', gostx's one-line reason)} for cases
    that share anchors and options. One case: its intermediates go in -untrusted.
    More (bettertls's thousands): one gostx call takes up to BATCH of them, each
    CERT file the leaf then its intermediates (x509 verify adds those to
    -untrusted for that CERT alone)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="limbo.", dir=SCRATCH) as d:
        Path(d, "ca.pem").write_text("".join(pem(c) for c in cases[0]["trusted"]))
        base = [gostx, "x509", "verify", "-CAfile", os.path.join(d, "ca.pem")]
        if cases[0].get("crls"):
            Path(d, "crls.pem").write_text("".join(pem(c, "X509 CRL") for c in cases[0]["crls"]))
            base += ["-CRLfile", os.path.join(d, "crls.pem")]
        files = {}
        for i, c in enumerate(cases):
            files[os.path.join(d, "%d.pem" % i)] = c
            if len(cases) == 1 and c["untrusted"]:
                Path(d, "untrusted.pem").write_text("".join(pem(x) for x in c["untrusted"]))
                base += ["-untrusted", os.path.join(d, "untrusted.pem")]
                Path(d, "0.pem").write_text(pem(c["peer"]))
            else:
                Path(d, "%d.pem" % i).write_text("".join(pem(x) for x in [c["peer"]] + c["untrusted"]))
        paths = list(files)
        for extra in runs:
            for at in range(0, len(paths), BATCH):
                chunk = [p for p in paths[at:at + BATCH] if files[p]["id"] not in out]
                if not chunk:
                    continue
                try:
                    p = subprocess.run(base + extra + chunk, capture_output=True, text=True,
                                       timeout=TIMEOUT_S * (1 + len(chunk) // 16))
                except subprocess.TimeoutExpired:
                    out.update({files[f]["id"]: ("TIMEOUT", "no answer in time") for f in chunk})
                    continue
                ok = {ln[:-len(": OK")] for ln in p.stdout.splitlines() if ln.endswith(": OK")}
                why, pending = {}, None
                for ln in p.stderr.splitlines():
                    if ln.startswith("error at depth"):
                        pending = ln
                    elif ln.startswith("error ") and ln.endswith(": verification failed"):
                        why[ln[6:-len(": verification failed")]] = pending or ln
                        pending = None
                    else:
                        why.update({f: ln.replace(f, "CERT") for f in chunk if f in ln})
                for f in chunk:
                    if f not in ok:
                        msg = why.get(f) or "exit %d" % p.returncode
                        out[files[f]["id"]] = ("FAILURE", msg.replace(d + "/", ""))
    for c in cases:
        out.setdefault(c["id"], ("SUCCESS", "OK"))
    return out


def read_known(path):
    known = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                cid, _, why = line.partition(" ")
                known[cid] = why.strip()
    return known


def write_known(path, known):
    head = ("# x509-limbo cases (GOST-re-signed) where gostx disagrees with the expected result\n"
            "# today: id, then why. tests/limbo/run.py fails on a disagreement not listed here\n"
            "# and on a listed case that now agrees; `tests/limbo/run.py --update-known`\n"
            "# rewrites this file from a run (reasons already here are kept).\n")
    path.write_text(head + "".join("%s %s\n" % (k, known[k]) for k in sorted(known)))


def family(cid):
    return cid.rsplit("::", 1)[0] if "::" in cid else cid


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gostx", default=os.environ.get("GOSTX", "build/gostx"))
    ap.add_argument("--data", type=Path, action="append",
                    help="the cases (repeatable); default limbo-gost.json.gz, -bettertls and -crl")
    ap.add_argument("--known", type=Path, default=HERE / "known-failures.txt")
    ap.add_argument("--update-known", action="store_true", help="rewrite --known from this run")
    ap.add_argument("-k", "--only", help="only the cases whose id matches this regular expression")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per case")
    args = ap.parse_args()

    helptext = subprocess.run([args.gostx, "x509", "verify", "--help"], capture_output=True,
                              text=True).stdout
    supported = set(re.findall(r"-[a-z_]+", helptext))
    data = {"cases": [], "skipped": []}
    for path in args.data or [HERE / "limbo-gost.json.gz", HERE / "limbo-gost-bettertls.json.gz",
                              HERE / "limbo-gost-crl.json.gz"]:
        part = json.loads(gzip.open(path).read())
        data["cases"] += part["cases"]
        data["skipped"] += part["skipped"]
    cases = [c for c in data["cases"] if not args.only or re.search(args.only, c["id"])]
    known = read_known(args.known)

    results = {}  # id -> (state, reason); state pass, known-fail, skip, FAIL (new), STALE
    groups = collections.defaultdict(list)  # bettertls's cases share anchors and options
    for c in cases:
        runs, why = plan(c, supported)
        if runs is None:
            results[c["id"]] = ("skip", why)
        else:
            batch = c["id"].startswith("bettertls::")
            key = (tuple(c["trusted"]), json.dumps(runs)) if batch else c["id"]
            groups[key].append((c, runs))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = [pool.submit(verdicts, args.gostx, [c for c, _ in g], g[0][1]) for g in groups.values()]
        got = {}
        for j in jobs:
            got.update(j.result())
    for g in groups.values():
        for c, _ in g:
            v, why = got[c["id"]]
            cid = c["id"]
            if v == c["expected_result"]:
                results[cid] = ("STALE", "listed as known but agrees now") if cid in known else ("pass", why)
            else:
                why = "expected %s, gostx %s" % (c["expected_result"], "accepts" if v == "SUCCESS" else why)
                results[cid] = ("known-fail", known[cid]) if cid in known else ("FAIL", why)

    per_family = collections.defaultdict(collections.Counter)
    for cid, (state, why) in sorted(results.items()):
        per_family[family(cid)][state] += 1
        if args.verbose or state in ("FAIL", "STALE"):
            print("%-10s %s: %s" % (state, cid, why))
    for fam in sorted(per_family):
        print("  %-22s %s" % (fam, ", ".join("%d %s" % (n, s) for s, n in sorted(per_family[fam].items()))))
    count = collections.Counter(s for s, _ in results.values())
    print("limbo: %d pass / %d known-fail / %d skip (+%d families' cases not re-signed, README.md)"
          % (count["pass"], count["known-fail"], count["skip"], len(data["skipped"])))

    if args.update_known:
        new = {cid: known.get(cid, why) for cid, (s, why) in results.items() if s in ("FAIL", "known-fail")}
        new.update({cid: why for cid, why in known.items() if results.get(cid, ("skip",))[0] == "skip"})
        write_known(args.known, new)
        print("wrote %s: %d cases" % (args.known, len(new)))
        return 0
    if count["FAIL"] or count["STALE"]:
        print("limbo: %d new disagreement(s), %d known failure(s) now agreeing "
              "(if intended: tests/limbo/run.py --update-known)" % (count["FAIL"], count["STALE"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
