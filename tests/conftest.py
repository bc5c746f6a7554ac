"""Shared fixtures: the real command line and the real binaries, small sizes, 2 ranks."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import BIN, CLI


@pytest.fixture
def cli(tmp_path: Path) -> CLI:
    return CLI(tmp_path / "results.sqlite")


@pytest.fixture(scope="session")
def bindir() -> Path:
    for name in ("pingpong", "mem-latency", "stream"):
        if not os.access(BIN / f"hpceval-{name}", os.X_OK):
            pytest.fail(f"{BIN}/hpceval-{name} is not built: run 'make build' (make test does)")
    return BIN
