# gdb -batch -x trace_gdb.py --args DRIVER MODE (bench/kuz_trace_mca.sh):
# stops at the first call of FN (a symbol, or a gdb expression giving an
# address), single-steps until it returns or MAXSTEPS, and writes the
# program counters in order to OUTF (hex, one a line) and the text of
# instructions outside the driver (libc's) to OUTF.ext.
import os

import gdb

fn, outf = os.environ["FN"], os.environ["OUTF"]
maxsteps = int(os.environ.get("MAXSTEPS", "30000"))
gdb.execute("set pagination off")
gdb.execute("set confirm off")
if fn.startswith("*"):
    gdb.execute("break main")  # the pointer is relocated by then
    gdb.execute("run", to_string=True)
    gdb.execute("break *%d" % int(gdb.parse_and_eval(fn[1:])))
    gdb.execute("continue", to_string=True)
else:
    gdb.execute("break %s" % fn)
    gdb.execute("run", to_string=True)
sp0 = int(gdb.parse_and_eval("$sp"))
pcs, ext = [], {}
for _ in range(maxsteps):
    pc = int(gdb.parse_and_eval("$pc"))
    pcs.append(pc)
    if pc >= 0x7f0000000000 and pc not in ext:
        ext[pc] = gdb.execute("x/i $pc", to_string=True).split(":", 1)[1].strip()
    gdb.execute("stepi", to_string=True)
    if int(gdb.parse_and_eval("$sp")) > sp0:  # FN returned
        break
with open(outf, "w") as f:
    f.write("".join("%x\n" % p for p in pcs))
with open(outf + ".ext", "w") as f:
    f.write("".join("%x\t%s\n" % kv for kv in ext.items()))
gdb.execute("kill")
