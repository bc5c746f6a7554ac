"""Real Slurm (slurmctld, a slurmd per node, munge) on a 2-node virtual cluster, as a session
fixture torn down at the end. Skipped, with the reason, where it cannot run (not root, no
namespaces, Slurm not installed: HPCEVAL_SLURM=1 sh scripts/install-deps.sh)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cluster"))
from slurm_helpers import SlurmCluster  # noqa: E402
from helpers import ROOT, skip_unless_required  # noqa: E402
from hpceval import vcluster  # noqa: E402
from hpceval.vcluster.slurm import PROGRAMS  # noqa: E402


def unusable() -> str:
    """Why Slurm cannot run on a virtual cluster here ('' when it can)."""
    if os.geteuid() != 0:
        return "Slurm on the virtual cluster needs root (network and mount namespaces)"
    if not shutil.which("ip") or not os.path.exists("/proc/self/ns/net"):
        return "no network namespaces here (iproute2's `ip` or /proc/self/ns/net missing)"
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    return f"Slurm is not installed ({', '.join(missing)} missing)" if missing else ""


def state_dir(name: str) -> Path:
    # Not below /tmp or /dev/shm (private on the nodes; a CI clone may live there), and never
    # another user's cluster.
    return Path(f"/run/hpceval-vcluster-slurm-{name}-{os.getpid()}")


def _directory(name: str) -> Iterator[Path]:
    """A state directory, cleared before and torn down after (skips where Slurm cannot run)."""
    reason = unusable()
    if reason:
        skip_unless_required(reason, "HPCEVAL_REQUIRE_SLURM")
    directory = state_dir(name)
    vcluster.down(directory)                   # a crashed earlier session's leftovers
    try:
        yield directory
    finally:
        vcluster.down(directory)
        shutil.rmtree(directory, ignore_errors=True)   # the tests' databases and job output


@pytest.fixture(scope="session")
def slurm() -> Iterator[SlurmCluster]:
    """Two nodes with Slurm; on 2 cores one CPU each."""
    for directory in _directory("slurm"):
        yield SlurmCluster(vcluster.up(2, directory, slurm=True))


@pytest.fixture
def fresh_dir() -> Iterator[Path]:
    """A state directory for a test's own short-lived cluster."""
    yield from _directory("fresh")
