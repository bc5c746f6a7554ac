"""`down` leaves nothing: no namespace, link, address, process, mount or state of the cluster."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from cluster_helpers import VCLUSTER
from helpers import clear_stale_clusters
from hpceval import vcluster
from hpceval.vcluster.net import listed_namespaces, ns_pids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_down_leaves_nothing(fresh_dir):
    cluster = vcluster.up(2, fresh_dir)
    env = {**os.environ, "HPCEVAL_VCLUSTER_DIR": str(fresh_dir)}
    # A plain process, one with a child, and one that ignores SIGTERM (ended by SIGKILL).
    procs = [subprocess.Popen([str(VCLUSTER), "exec", node, cmd], env=env)
             for node, cmd in (("node1", "sleep 300"), ("node2", "sleep 301 & sleep 302"),
                               ("node2", "trap '' TERM; sleep 303; sleep 304"))]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum(map(len, map(ns_pids, [
            n.ns for n in cluster.nodes]))) < 5:
        time.sleep(0.05)
    pids = [p for n in cluster.nodes for p in ns_pids(n.ns)]
    assert len(pids) >= 5, pids
    removed = vcluster.down(fresh_dir)
    assert removed["namespaces"] == 3 and removed["processes"] >= len(pids)
    assert all(p.wait(timeout=10) < 0 for p in procs)          # ended by a signal
    assert not any(map(_alive, pids))
    assert listed_namespaces(cluster.prefix) == []
    assert not any(os.path.exists(f"/run/netns/{ns}") for ns in cluster.namespaces())
    with open("/proc/self/mountinfo") as f:
        mounts = f.read()
    assert cluster.prefix not in mounts and str(fresh_dir) not in mounts
    assert not fresh_dir.exists()
    assert "10.77." not in subprocess.run(["ip", "-o", "addr"], capture_output=True,
                                          text=True).stdout


def test_down_without_a_cluster_is_harmless(fresh_dir):
    assert vcluster.down(fresh_dir) == {"namespaces": 0, "processes": 0, "state": 0}


def test_a_killed_session_s_cluster_is_cleared_and_a_live_one_kept(fresh_dir):
    """What a killed test session left (its pid gone) is torn down at the next session's start;
    a running session's cluster (this one's: fresh_dir carries our pid) stays up."""
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale_dir = Path(f"/run/hpceval-vcluster-killed-{ended.pid}")
    try:
        stale = vcluster.up(1, stale_dir)
        live = vcluster.up(1, fresh_dir)
        proc = subprocess.Popen([str(VCLUSTER), "exec", "node1", "sleep 300"],
                                env={**os.environ, "HPCEVAL_VCLUSTER_DIR": str(stale_dir)})
        deadline = time.monotonic() + 10
        while not ns_pids(stale.nodes[0].ns) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ns_pids(stale.nodes[0].ns)
        gone = clear_stale_clusters()
        assert stale_dir in gone and fresh_dir not in gone
        assert proc.wait(timeout=10) < 0                      # ended by a signal
        assert listed_namespaces(stale.prefix) == [] and not stale_dir.exists()
        assert set(listed_namespaces(live.prefix)) == set(live.namespaces())
    finally:
        vcluster.down(stale_dir)
