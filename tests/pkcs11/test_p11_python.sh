#!/usr/bin/env bash
# gostx's PKCS#11 token through PyKCS11 (p11_pykcs11.py). The Python with
# PyKCS11: $GOSTX_P11_PYTHON (scripts/ci_python.sh's fresh venv, PyKCS11
# from PyPI), else python3; skipped (77) when neither has it.
# usage: test_p11_python.sh MODULE
. "$(dirname "$0")/../cli_common.sh" p11python
py=${GOSTX_P11_PYTHON:-python3}
"$py" -c "import PyKCS11" 2>/dev/null || { echo "SKIP: no PyKCS11 in $py (pip install PyKCS11)"; exit 77; }
export GOSTX_PKCS11_DIR=$T/tokens
# tokens with a short PIN KDF: the tests log in often (docs/PKCS11.md)
export GOSTX_PKCS11_KDF_ITER=2000
check "PyKCS11 drives the token" "$py" "$here/p11_pykcs11.py" "$1" "$G"
finish
