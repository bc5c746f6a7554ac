"""The virtual cluster (scripts/vcluster, hpceval/vcluster) as a session fixture: two nodes, torn
down at the end. Skipped, with the reason, where namespaces cannot be made (not root, no `ip`)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from helpers import skip_unless_required  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
from cluster_helpers import VCluster  # noqa: E402
from hpceval import vcluster  # noqa: E402


def _unusable() -> str:
    """Why this machine cannot build a virtual cluster ('' when it can)."""
    if os.geteuid() != 0:
        return "the virtual cluster needs root (network and mount namespaces)"
    if not shutil.which("ip") or not os.path.exists("/proc/self/ns/net"):
        return "no network namespaces here (iproute2's `ip` or /proc/self/ns/net missing)"
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"`ip netns` unusable: {probe.stderr.strip()}"


def _state_dir(name: str) -> Path:
    # Not below /tmp or /dev/shm: every node sees those privately.
    return Path(f"/run/hpceval-vcluster-{name}-{os.getpid()}")


def _cluster(name: str, nodes: int) -> Iterator[VCluster]:
    reason = _unusable()
    if reason:
        skip_unless_required(reason, "HPCEVAL_REQUIRE_CLUSTER")
    directory = _state_dir(name)
    vcluster.down(directory)                   # a crashed earlier session's leftovers
    cluster = vcluster.up(nodes, directory)
    try:
        yield VCluster(cluster)
    finally:
        vcluster.down(directory)


@pytest.fixture(scope="session")
def cluster() -> Iterator[VCluster]:
    """Two nodes; on 2 cores node1 runs on CPU 0 and node2 on CPU 1."""
    yield from _cluster("tests", 2)


@pytest.fixture(scope="session")
def one_node() -> Iterator[VCluster]:
    """One node with every CPU: intra-node pairs on two CPUs even on a 2-core machine."""
    yield from _cluster("tests-one", 1)


@pytest.fixture
def fresh_dir() -> Iterator[Path]:
    """A state directory for a test's own short-lived cluster, cleaned up whatever happens."""
    reason = _unusable()
    if reason:
        skip_unless_required(reason, "HPCEVAL_REQUIRE_CLUSTER")
    directory = _state_dir("fresh")
    yield directory
    vcluster.down(directory)
