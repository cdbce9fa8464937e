# trace_period.py PCS DRIVER OUT.s (bench/kuz_trace_mca.sh): the steady
# state of a traced call's outermost loop as llvm-mca input. The period is
# the longest distance between two visits of one instruction after which
# the trace repeats exactly (a 64-block group with its inner round loop run
# as it ran, calls included), taken from the trace's middle; instruction
# text from objdump of the driver (gdb runs a PIE at 0x555555554000) or
# from PCS.ext; branches keep their opcode, their target becomes a
# placeholder label, and a call or return becomes the stack access and the
# jump it makes.
import os
import re
import subprocess
import sys

pcs_file, drv, out = sys.argv[1:4]
pcs = [int(l, 16) for l in open(pcs_file) if l.strip()]
base = 0x555555554000
dis = {}
objdump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", drv],
                         capture_output=True, text=True, check=True).stdout
for l in objdump.split("\n"):
    m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", l)
    if m:
        dis[int(m.group(1), 16) + base] = m.group(2).strip()
if os.path.exists(pcs_file + ".ext"):
    for l in open(pcs_file + ".ext"):
        if "\t" in l:
            a, t = l.rstrip("\n").split("\t", 1)
            dis[int(a, 16)] = t
n = len(pcs)
mid = n // 3
pos = {}
for i in range(mid, n):
    pos.setdefault(pcs[i], []).append(i)
best, start = 0, 0
for p, idx in pos.items():
    if len(idx) < 2:
        continue
    period, s = idx[1] - idx[0], idx[0]
    if period > best and s + 2 * period <= n and pcs[s:s + period] == pcs[s + period:s + 2 * period]:
        best, start = period, s
if not best:
    sys.exit("trace_period: no repeating loop in " + pcs_file)
body = []
for pc in pcs[start:start + best]:
    t = re.sub(r"\s*#.*$", "", re.sub(r"\s*<[^>]*>", "", dis[pc]))
    op = t.split()[0]
    if op in ("notrack", "bnd"):
        op = t.split()[1]
    if op.startswith("call"):  # llvm-mca gives a call 100 cycles of latency: a push and a jump
        body += ["push %r11", "jmp .Ltarget"]
        continue
    if op.startswith("ret"):  # r11: clobbered by any call, read by no code after one
        body += ["pop %r11", "jmp .Ltarget"]
        continue
    if op.startswith("j"):
        t = op + " .Ltarget"
    body.append(t)
with open(out, "w") as f:
    f.write("\n".join(body) + "\n")
print(best, sum("gf2p8" in b for b in body), sum("pclmul" in b for b in body))
