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
TIMEOUT_S = 20  # one gostx run; the denial-of-service cases must end well within it

# What each option a case may need is called in `gostx x509 verify --help`.
NAME_OPTIONS = {"DNS": "-verify_hostname", "IP": "-verify_ip", "RFC822": "-verify_email"}
PURPOSES = {"serverAuth": "sslserver", "clientAuth": "sslclient", "anyExtendedKeyUsage": "any"}


def pem(b64):
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(textwrap.wrap(b64, 64)) + \
        "\n-----END CERTIFICATE-----\n"


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
    if ekus:
        args += ["-purpose", PURPOSES[ekus[0]]]
    if case["key_usage"]:
        return None, "a key usage requirement (no such option of x509 verify)"
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


def verdict(gostx, case, runs):
    """('SUCCESS' or 'FAILURE', gostx's one-line reason)."""
    with tempfile.TemporaryDirectory(prefix="limbo.") as d:
        files = {"ca.pem": case["trusted"], "untrusted.pem": case["untrusted"], "leaf.pem": [case["peer"]]}
        for name, certs in files.items():
            Path(d, name).write_text("".join(pem(c) for c in certs))
        base = [gostx, "x509", "verify", "-CAfile", os.path.join(d, "ca.pem")]
        if case["untrusted"]:
            base += ["-untrusted", os.path.join(d, "untrusted.pem")]
        for extra in runs:
            try:
                p = subprocess.run(base + extra + [os.path.join(d, "leaf.pem")], capture_output=True,
                                   text=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return "TIMEOUT", "no answer within %d s" % TIMEOUT_S
            if p.returncode != 0:
                lines = [ln.replace(d + "/", "") for ln in p.stderr.splitlines()]
                why = [ln for ln in lines if ln.startswith("error at depth")] or lines or ["exit %d" % p.returncode]
                return "FAILURE", why[0]
        return "SUCCESS", "OK"


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
    ap.add_argument("--data", type=Path, default=HERE / "limbo-gost.json.gz")
    ap.add_argument("--known", type=Path, default=HERE / "known-failures.txt")
    ap.add_argument("--update-known", action="store_true", help="rewrite --known from this run")
    ap.add_argument("-k", "--only", help="only the cases whose id matches this regular expression")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per case")
    args = ap.parse_args()

    helptext = subprocess.run([args.gostx, "x509", "verify", "--help"], capture_output=True,
                              text=True).stdout
    supported = set(re.findall(r"-[a-z_]+", helptext))
    data = json.loads(gzip.open(args.data).read())
    cases = [c for c in data["cases"] if not args.only or re.search(args.only, c["id"])]
    known = read_known(args.known)

    results = {}  # id -> (state, reason); state pass, known-fail, skip, FAIL (new), STALE
    planned = {}
    for c in cases:
        runs, why = plan(c, supported)
        if runs is None:
            results[c["id"]] = ("skip", why)
        else:
            planned[c["id"]] = (c, runs)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        got = dict(zip(planned, pool.map(lambda cr: verdict(args.gostx, *cr), planned.values())))
    for cid, (c, _) in planned.items():
        v, why = got[cid]
        agree = v == c["expected_result"]
        if agree:
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
