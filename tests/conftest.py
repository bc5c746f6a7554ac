"""Shared fixtures: the real command line and the real binaries, small sizes, 2 ranks."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import BIN, CLI
from hpceval.views import load_rows

# In-process tests see every benchmark's card and headline rows, as the command line does
# (hpceval/cli loads the views; the analysis itself knows no benchmark).
load_rows()


@pytest.fixture
def cli(tmp_path: Path) -> CLI:
    return CLI(tmp_path / "results.sqlite")


@pytest.fixture(scope="session")
def bindir() -> Path:
    from hpceval.catalog import BENCHMARKS, PlanContext
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    binaries = {spec.binary for b in BENCHMARKS.values() for spec in b.plan({}, ctx)}
    for name in sorted(binaries):
        if not os.access(BIN / f"hpceval-{name}", os.X_OK):
            pytest.fail(f"{BIN}/hpceval-{name} is not built: run 'make build' (make test does)")
    return BIN
