#!/usr/bin/env bash
# No public function takes 10 or more parameters (issue 68): a long list is
# an options struct (init function + struct, as gostx_x509_verify_opts).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
python3 "$root/scripts/api_stats.py" --max 10
