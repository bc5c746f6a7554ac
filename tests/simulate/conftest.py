"""Simulated runs (SimGrid SMPI, docs/simulate.md): the SMPI build (make build-smpi) and
smpirun; a private data directory so platforms and named builds stay in the test's."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import CLI, ROOT

SMPI_BIN = ROOT / "build-smpi" / "bin"


@pytest.fixture(scope="session")
def smpi_bin() -> Path:
    if not shutil.which("smpirun") or not os.access(SMPI_BIN / "hpceval-pingpong", os.X_OK):
        pytest.fail(f"{SMPI_BIN} or smpirun missing: run 'make build-smpi' (make test does; "
                    "it installs libsimgrid-dev)")
    return SMPI_BIN


class SimCLI(CLI):
    def __init__(self, db: Path, data: Path, bindir: Path):
        super().__init__(db)
        self.data, self.bindir = data, bindir

    def env(self, extra: dict | None = None) -> dict:
        return super().env({"XDG_DATA_HOME": str(self.data), "HPCEVAL_BINDIR": str(self.bindir),
                            "COLUMNS": "200", **(extra or {})})

    def smpirun(self, run: dict, np: int, argv: list) -> subprocess.CompletedProcess:
        """A program launched by hand on a run's simulated platform, with its SMPI settings: a
        launch `hpceval run` would not make (sizes repeated, a foreign program)."""
        name = run["fingerprint"]["simulated"]["name"]
        info = json.loads((self.data / "hpceval" / "simulated" / name / "simulation.json")
                          .read_text())
        return subprocess.run(["smpirun", "-np", str(np), "-platform", info["platform_file"],
                               "-hostfile", info["hostfile"], *info["cfg"],
                               "--log=root.thres:critical", *map(str, argv)],
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)


@pytest.fixture
def sim(tmp_path: Path, smpi_bin: Path) -> SimCLI:
    return SimCLI(tmp_path / "results.sqlite", tmp_path / "data", smpi_bin)


@pytest.fixture(scope="module")
def sim_shared(tmp_path_factory, smpi_bin: Path) -> SimCLI:
    """One data directory and database for a module's tests: smpirun's start-up is calibrated
    once, not per test (a second or two each)."""
    d = tmp_path_factory.mktemp("sim")
    return SimCLI(d / "results.sqlite", d / "data", smpi_bin)
