#!/usr/bin/env python3
"""Fixed time limits in the tests (tests/README.md, "Waiting on a busy or
slow machine"): every wait that can run long on a loaded machine goes
through the load-scaled factor (`bound N` or the timeout(1) wrapper in
the shell tests, tests/net/time_scale.py's bound() in Python,
t_time_scale() in C). This lists each one that does not:

  shell  `sleep N` outside a bounded poll (a loop whose header or line has
         `bound`, or a while/until on a state); a poll with a fixed count
         (`seq N`, `{1..N}`, `-lt N` in its header); `timeout N` in a
         script that does not put the scaled timeout first in PATH (it
         sources none of cli_common.sh, netns.sh, pids.sh, time_factor.sh,
         nor does a script that does source it) or that names the real one; an upper limit compared with a time
         (`[ $ms -le 5000 ]`, `-lt N` on a line reading the clock);
         `ping -W N`, `curl --max-time N`
  Python (also inline in a shell test) `settimeout(N)`, `timeout=N`, a
         deadline `time.time() + N`, `time.sleep(N)`, `TIMEOUT_S = N`
  C      `alarm(N)`, a literal poll/select timeout, `sleep(N)`/`usleep(N)`,
         on a line without t_time_scale()

Deliberate fixed waits (a window that is measured, a minimum the product
sets, a pace) are listed in tests/time_bounds_allow.txt, each entry
`PATH: TEXT` (TEXT a part of the flagged line) under a comment giving the
reason; an entry without a reason, or that matches nothing, is an error
too, so the list stays true.

  usage: time_bounds.py ROOT [ALLOW]   (exit 1 with findings, 2 on misuse)
"""
import os
import re
import sys

SOURCED = re.compile(r"^\s*(?:\.|source)\s.*?([A-Za-z0-9_]+\.sh)", re.M)
SCALE = ("cli_common.sh", "netns.sh", "pids.sh", "time_factor.sh")
SLEEP = re.compile(r"(^|[\s;&|(])sleep\s+[0-9.]+[smhd]?(\s|;|\)|$)")
LOOP = re.compile(r"(^|[\s;&|(])(for|while|until)\s")
FIXED_COUNT = re.compile(r"\$\(seq( [0-9]+){1,2}\)|\{[0-9]+\.\.[0-9]+\}|-l[te] [0-9]+\s*\]")
DONE = re.compile(r"(^|[\s;&|])done\b")
TIMEOUT = re.compile(r"(^|[\s;&|(]|exec\s)(/usr/bin/|/bin/|command\s+)?timeout\s+(-\S+\s+)*[0-9.]+[smhd]?\s")
REAL_TIMEOUT = re.compile(r"(/usr/bin/|/bin/|command\s+)timeout\s")
CLOCK = re.compile(r"\bms\b|_ms\b|\$ms|date \+%s|now_ms|\bSECONDS\b|elapsed")
UPPER = re.compile(r"-l[te] [0-9]+\b")
OPTS = re.compile(r"\bping\b.*\s-[Ww]\s*[0-9]|--max-time\s+[0-9]|--connect-timeout\s+[0-9]")
PY = [
    (re.compile(r"settimeout\(\s*[0-9.]+\s*\)"), "a fixed socket timeout"),
    (re.compile(r"\btimeout\s*=\s*[0-9.]+"), "a fixed timeout="),
    (re.compile(r"\b(time|monotonic)\(\)\s*\+\s*[0-9.]+"), "a fixed deadline"),
    (re.compile(r"\btime\.sleep\(\s*[0-9.]+\s*\)"), "a fixed sleep"),
    (re.compile(r"^\s*[A-Z_]*(TIMEOUT|DEADLINE)[A-Z_]*\s*=\s*[0-9.]+"), "a fixed timeout constant"),
]
C = [
    (re.compile(r"\balarm\s*\(\s*[0-9]"), "a fixed alarm()"),
    (re.compile(r"\b(poll|epoll_wait)\s*\(.*,\s*[1-9][0-9]*\s*\)"), "a fixed poll timeout"),
    (re.compile(r"\b(u?sleep|nanosleep)\s*\(\s*[0-9]"), "a fixed sleep"),
    (re.compile(r"\.tv_sec\s*=\s*[1-9]"), "a fixed timeval/timespec limit"),
]


def scaled_scripts(texts):
    """the shell files that run with the scaled timeout first in PATH: those
    that source one of SCALE, and the libraries such a file sources"""
    scaled = {p for p, t in texts.items() if p.endswith(".sh") and set(SOURCED.findall(t)) & set(SCALE)}
    libs = set(SCALE).union(*(SOURCED.findall(texts[p]) for p in scaled))
    return scaled | {p for p in texts if p.endswith(".sh") and os.path.basename(p) in libs}


def shell(path, text, scaled):
    out = []
    loops = []  # the kinds of the loops open around a line: bounded, state, fixed, items
    for n, line in enumerate(text.split("\n"), 1):
        code = line.split(" # ")[0] if not line.lstrip().startswith("#") else ""
        if not code.strip():
            continue
        kind = None
        m = LOOP.search(code)
        if m:
            head = code[m.start():]
            if "bound" in head:
                kind = "bounded"
            elif FIXED_COUNT.search(head.split(" do")[0] if " do" in head else head):
                kind = "fixed"
            elif m.group(2) in ("while", "until"):
                kind = "state"
            else:
                kind = "items"
        opened = loops + ([kind] if kind else [])
        inner = [k for k in opened if k != "items"]
        if SLEEP.search(code) and "bound" not in code:
            if inner and inner[-1] == "fixed":
                out.append((n, "a fixed count of sleeps (seq N: $(seq $(bound N)))", line))
            elif not inner or inner[-1] not in ("bounded", "state"):
                out.append((n, "a fixed sleep outside a bounded poll", line))
        if TIMEOUT.search(code) and (not scaled or REAL_TIMEOUT.search(code)):
            out.append((n, "a timeout the load scale does not reach", line))
        if CLOCK.search(code) and UPPER.search(code) and "bound" not in code:
            out.append((n, "a fixed upper limit on a time", line))
        if OPTS.search(code) and "bound" not in code:
            out.append((n, "a fixed wait option", line))
        for rx, what in PY:
            if rx.search(code) and "bound(" not in code:
                out.append((n, what + " (inline Python)", line))
        if kind and not DONE.search(code[m.start():]):
            loops.append(kind)
        elif not kind and DONE.search(code) and loops:
            loops.pop()
    return out


def by_line(rules, comment, scaled):
    """a checker of RULES on each line, before COMMENT, without SCALED"""
    def check(path, text):
        out = []
        for n, line in enumerate(text.split("\n"), 1):
            code = line.split(comment)[0]
            out += [(n, what, line) for rx, what in rules if rx.search(code) and scaled not in code]
        return out
    return check


python = by_line(PY, "#", "bound(")
c = by_line(C, "//", "t_time_scale")


def allow_list(path):
    """(path, text, reason, line) for each entry; errors for entries without a reason"""
    entries, errors, reason = [], [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                reason.append(line[1:].strip())
            elif not line.strip():
                reason = []
            else:
                p, sep, t = line.partition(": ")
                if not sep or not t.strip():
                    errors.append(f"{path}:{n}: not PATH: TEXT: {line}")
                elif not any(reason):
                    errors.append(f"{path}:{n}: no reason (a comment above it) for {line}")
                else:
                    entries.append((p, t.strip(), " ".join(reason), n))
    return entries, errors


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.rsplit("usage:", 1)[1].strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    allow = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, "tests/time_bounds_allow.txt")
    entries, errors = allow_list(allow) if os.path.exists(allow) else ([], [])
    used = set()
    found = 0
    texts = {}
    for d, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = sorted(x for x in dirs if x not in ("fuzz", "vectors", "__pycache__"))
        for name in sorted(files):
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            # this checker and its test, whose planted limits are its fixtures
            if (os.path.splitext(name)[1] in (".sh", ".py", ".c", ".h") and
                    rel not in ("tests/support/time_bounds.py", "tests/test_time_bounds.sh")):
                with open(p, errors="replace") as f:
                    texts[rel] = f.read()
    scaled = scaled_scripts(texts)
    for rel, text in texts.items():
        ext = os.path.splitext(rel)[1]
        hits = (shell(rel, text, rel in scaled) if ext == ".sh" else
                python(rel, text) if ext == ".py" else c(rel, text))
        for n, what, line in hits:
            hit = [e for e in entries if e[0] == rel and e[1] in line]
            if hit:
                used.update(e[3] for e in hit)
                continue
            print(f"{rel}:{n}: {what}: {line.strip()}")
            found += 1
    for p, t, _, n in entries:
        if n not in used:
            errors.append(f"{allow}:{n}: matches no fixed bound in {p}: {t}")
    for e in errors:
        print(e)
    if found:
        print(f"{found} fixed time limits: route them through the scale "
              "(bound N, the timeout wrapper, bound() in Python, t_time_scale() in C) "
              "or list a deliberate one, with its reason, in tests/time_bounds_allow.txt")
    return 1 if found or errors else 0


if __name__ == "__main__":
    sys.exit(main())
