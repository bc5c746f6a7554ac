"""`hpceval run --hosts ... --ppn K` on the virtual cluster, launched from node1 as a user would,
with Open MPI and with MPICH: ranks placed K per node, COMMTEST patterns on real nodes, the
machine card's inter-node rows, and faults (a killed node, a hanging agent, a host that does not
answer) that fail the run cleanly and leave no process on any node."""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Dict, List

import pytest

from cluster_helpers import MPICH_BIN, VCLUSTER, VCluster
from helpers import BIN, ROOT, launches_stored, one_line_error
from hpceval.analysis.card import machine_card
from hpceval.views.figures_comm import distance_map
from hpceval.store import Store
from hpceval.vcluster.net import ns_pids

STACKS = {"openmpi": BIN, "mpich": MPICH_BIN}
TINY = ["--set", "budget=0.03", "--set", "min-reps=2", "--set", "max-reps=10", "--set", "warmup=1",
        "--no-remeasure", "--llc", "reported"]


@pytest.fixture(params=sorted(STACKS))
def bindir(request) -> Path:
    if not (STACKS[request.param] / "hpceval-p2p").is_file():
        pytest.fail(f"{STACKS[request.param]} is not built: run 'make build build-mpich'")
    return STACKS[request.param]


def hpceval_on_node1(vc: VCluster, db: Path, bindir: Path, *args: str, timeout: float = 120,
                     env: Dict[str, str] | None = None) -> subprocess.Popen:
    """`hpceval ARGS` started on node1 (its database on the machine's shared file system)."""
    words = [f"{k}={v}" for k, v in (env or {}).items()]
    return subprocess.Popen([str(VCLUSTER), "exec", "node1", "env", *words,
                             str(ROOT / ".venv" / "bin" / "hpceval"), "run", *args, "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            stdin=subprocess.DEVNULL,
                            env={**vc.env, "HPCEVAL_BINDIR": str(bindir)})


def finish(proc: subprocess.Popen, timeout: float = 120):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def stored_run(db: Path) -> Dict:
    store = Store(str(db))
    try:
        return store.get_run(store.latest_run_id(), traces=False)
    finally:
        store.close()


def assert_nothing_left(vc: VCluster) -> None:
    """No process in any namespace of the cluster (ranks, daemons, agents)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(ns_pids(ns) for ns in vc.cluster.namespaces()):
        time.sleep(0.1)
    assert {ns: ns_pids(ns) for ns in vc.cluster.namespaces() if ns_pids(ns)} == {}


@pytest.fixture
def db(cluster, request) -> Path:
    # Not below /tmp: node1 has its own. Removed afterwards, so that `down` can remove the
    # state directory.
    name = re.sub(r"[^A-Za-z0-9_-]", "_", request.node.name)   # no glob characters
    path = Path(cluster.cluster.directory) / f"{name}.sqlite"
    yield path
    for p in path.parent.glob(path.name + "*"):
        p.unlink()


PATTERNS = ["--set", "p2p.patterns=0-1,intra-pairs,0-k,ring,cross-pairs",
            "--set", "p2p.modes=pingpong,swap", "--set", "p2p.protocols=isend",
            "--set", "sizes=8,64K", "--set", "collectives.ops=barrier"]


def test_two_nodes_two_ranks_each(cluster, db, bindir):
    rc, out, err = finish(hpceval_on_node1(cluster, db, bindir, "p2p", "collectives", "distance",
                                           *TINY, *PATTERNS, "--set", "distance.sizes=8",
                                           "--hosts", "node1,node2", "--ppn", "2"))
    assert rc == 0, err
    run = stored_run(db)
    assert run["status"] == "ok" and run["settings"]["placement"]["ppn"] == 2, run["status"]
    nodes = run["settings"]["nodes"]          # every node's fingerprint, gathered on the node
    assert sorted(nodes["nodes"]) == ["node1", "node2"] and nodes["differ"] == [], nodes
    for launch in run["launches"]:
        assert launch["meta"]["hosts"] == ["node1", "node1", "node2", "node2"], launch["command"]
        assert ("node1:2,node2:2" in launch["command"]) and launch["warnings"], launch
    where = {r["params"]["pattern"]: r["extra"]["where"] for r in run["records"]
             if r["benchmark"] == "p2p"}
    assert set(where) == {"0-1", "intra-pairs", "0-k", "ring", "cross-pairs"}
    assert {w["placement"] for w in where.values()} == {"real"}, where
    assert where["0-1"]["pair_hosts"] == ["node1", "node1"], where
    assert where["0-k"]["pair_hosts"] == ["node1", "node2"], where
    card = {(r["section"], r["quantity"]): r for r in machine_card(run)}
    for row in ("Latency", "Latency, bi-directional", "Bandwidth", "Bandwidth, bi-directional"):
        assert card[("MPI inter-node", row)]["measured"], (row, where, run["records"])
        assert card[("MPI intra-node", row)]["measured"], (row, where, run["records"])
    assert card[("Collectives", "Barrier across nodes")]["measured"]
    dist = [r["params"] for r in run["records"] if r["benchmark"] == "distance"]
    assert {(p["dst"], p["dst_node"] != p["src_node"]) for p in dist} == {
        (1, False), (2, True), (3, True)}, dist
    fig = distance_map([run])
    edges = {(ax.get_title()[:7], line.get_ydata()[0] if line.get_ydata()[0] == line.get_ydata()[1]
              else line.get_xdata()[0])
             for ax in fig.axes for line in ax.lines if line.get_gid() == "node-boundary"}
    assert {e for _, e in edges} == {1.5}, edges          # ranks 0,1 | 2,3
    assert_nothing_left(cluster)


def _latency_8b(vc: VCluster, db: Path, bindir: Path, hosts: str, ppn: str) -> float:
    rc, _, err = finish(hpceval_on_node1(vc, db, bindir, "pingpong", *TINY, "--set", "sizes=8",
                                         "--set", "refine=0", "--set", "budget=0.3",
                                         "--hosts", hosts, "--ppn", ppn))
    assert rc == 0, err
    run = stored_run(db)
    [lat] = [r for r in run["records"] if r["metric"] == "latency"]
    meta = run["launches"][-1]["meta"]
    assert meta["hosts"] == (["node1", "node2"] if "," in hosts else ["node1", "node1"])
    # Each rank runs on its own node's CPUs: an Open MPI --bind-to core would put both on CPU 0
    # (its daemons see the whole machine on every node: docs/vcluster.md, pitfall 1).
    cpus = {n.name: n.cpus for n in vc.cluster.nodes}
    assert all(c in cpus[h] for h, c in zip(meta["hosts"], meta["cpus"])), meta
    return lat["stats"]["min"]


def test_inter_node_latency_is_the_network(cluster, one_node, db, bindir):
    # Intra-node on the one-node cluster (both CPUs; on 2 cores each node of the two-node
    # cluster has one CPU, and two polling ranks on one CPU measure the scheduler).
    inter = _latency_8b(cluster, db, bindir, "node1,node2", "1")
    intra = _latency_8b(one_node, db, bindir, "node1", "2")
    print(f"{bindir.parent.name}: hpceval run 8 B latency min intra {intra:.2f} us, "
          f"inter {inter:.2f} us")
    assert inter > 5 * intra, (intra, inter)


def test_killed_node_fails_the_run_cleanly(cluster, db, bindir):
    proc = hpceval_on_node1(cluster, db, bindir, "pingpong", "p2p", *TINY, "--set", "sizes=8",
                            "--set", "pingpong.refine=0", "--set", "p2p.budget=5",
                            "--set", "p2p.ci-target=0.0001", "--set", "p2p.min-reps=100000",
                            "--set", "p2p.max-reps=1000000", "--set", "p2p.patterns=0-k",
                            "--set", "p2p.modes=pingpong", "--set", "p2p.protocols=isend",
                            "--hosts", "node1,node2", "--ppn", "1", "--timeout", "30")
    deadline = time.monotonic() + 60
    while launches_stored(db) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)                                   # the p2p launch is under way
    node2 = cluster.cluster.node("node2").ns
    subprocess.run(["kill", "-9", *map(str, ns_pids(node2))], check=False)
    rc, _, err = finish(proc)
    assert rc == 1 and "run 1 failed: p2p 0-k np=2" in one_line_error(err), err
    run = stored_run(db)
    assert run["status"] == "failed"
    assert [l["status"] for l in run["launches"]] == ["ok", "failed"]
    assert any(r["benchmark"] == "pingpong" for r in run["records"])   # earlier records kept
    assert_nothing_left(cluster)


def test_hanging_agent_and_silent_host(cluster, db, tmp_path_factory):
    agent = Path(cluster.cluster.directory) / "hang-agent"
    agent.write_text("#!/bin/sh\nexec sleep 613\n")
    agent.chmod(0o755)
    try:
        proc = hpceval_on_node1(cluster, db, BIN, "pingpong", *TINY, "--set", "sizes=8",
                                "--hosts", "node1,node2", "--ppn", "1", "--timeout", "3",
                                env={"OMPI_MCA_plm_rsh_agent": str(agent)})
        rc, _, err = finish(proc)
        assert rc == 1 and "killed after the 3 s time limit" in one_line_error(err), err
        assert stored_run(db)["status"] == "failed"
        assert subprocess.run(["pgrep", "-f", "sleep 613"]).returncode == 1   # the agent too
        assert_nothing_left(cluster)
    finally:
        agent.unlink()
    # An address that resolves but where no node answers (the agent cannot reach it).
    rc, _, err = finish(hpceval_on_node1(cluster, db, BIN, "pingpong", *TINY,
                                         "--hosts", "node1,10.77.0.99", "--ppn", "1"))
    assert rc == 1 and "10.77.0.99" in one_line_error(err), err
    assert_nothing_left(cluster)
