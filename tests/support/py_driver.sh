# Sourced by the shell tests whose work is a Python driver (test_cli.sh,
# test_openssl_compat.sh) once GOSTX is set: without python3 the test is
# skipped (77); without the gostx binary it fails (exit 1: ctest runs them
# against a build that has it).
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: skipping"
  exit 77
fi
if [ ! -x "$GOSTX" ]; then
  echo "gostx binary not found at $GOSTX"
  exit 1
fi
