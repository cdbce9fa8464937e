"""The waits' scale for the tests' Python (tests/README.md, "Waiting on a
busy or slow machine"): GOSTX_TEST_TIME_SCALE, which
tests/support/time_factor.sh works out once per test and exports (1 when
run by hand). time_factor.sh also puts this folder on PYTHONPATH, for the
inline Python of the shell tests; tests/net's scripts add it themselves."""
import os


def bound(seconds):
    """SECONDS times the scale: a timeout or deadline, never what is checked"""
    return seconds * float(os.environ.get("GOSTX_TEST_TIME_SCALE") or 1)
