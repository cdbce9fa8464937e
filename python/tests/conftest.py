"""Shared fixtures: the standards' vectors (tests/vectors of the repository,
or GOSTX_VECTORS) and the gostx command (GOSTX_CLI, else build/gostx)."""
import json
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_vectors(name):
    base = pathlib.Path(os.environ.get("GOSTX_VECTORS", REPO / "tests" / "vectors"))
    with open(base / name) as f:
        return json.load(f)["cases"]


@pytest.fixture(scope="session")
def cli():
    """Path of the gostx command; tests that need it skip when it is absent."""
    path = os.environ.get("GOSTX_CLI") or shutil.which("gostx")
    if not path and (REPO / "build" / "gostx").exists():
        path = str(REPO / "build" / "gostx")
    if not path:
        pytest.skip("gostx command not built (make build, or set GOSTX_CLI)")
    return path
