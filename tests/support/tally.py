"""The counting of the Python test drivers (cli_vectors.py, the script in
test_openssl_compat.sh): check() each result, finish() prints the line the
shell tests print too ("N passed, N failed") and returns the exit status."""
import sys

passed = failed = 0


def check(ok, what, detail=""):
    """Counts ok; a failure is printed at once, with detail when given."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s%s" % (what, (" -- " + detail) if detail else ""))
        sys.stdout.flush()


def finish():
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
