"""`hpceval run acceptance` on a simulated platform with planted faults (issue #51): one node's
link at a third of the others' bandwidth and one host at half speed, 8 nodes x 1 rank. The
outlier rule names exactly that node's link (the node, and each of its links naming it) and that
host (its triad, multiply-add rate and memory latency), nothing else; the clean platform flags nothing; one node
gets the node checks and a note that the network needs two. Deterministic: the simulated
network and the charged flops are the platform's, not this host's load."""
import json

import pytest

from helpers import one_line_error

SMALL = ["--set", "netmap.bytes=64K", "--set", "bisection.bytes=64K",
         "--set", "bisection.matchings=2", "--set", "congestion.bytes=64K",
         "--set", "congestion.aggressor-bytes=16K", "--set", "nodecheck.bytes=1M",
         "--set", "nodecheck.chase-bytes=1M", "--set", "min-reps=3",
         "--set", "max-reps=5", "--set", "budget=0.01", "--no-remeasure"]
CLEAN = "nodes=8,ppn=1"
PLANTED = CLEAN + ",degraded_node=5,degraded_bandwidth=4GBps,slow_node=2,slow_factor=0.5"


@pytest.fixture(scope="module")
def sim(sim_shared):
    return sim_shared


def _outliers(sim, desc):
    p = sim("run", "acceptance", "--simulate", desc, *SMALL, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    shown = sim("show", "latest")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(sim("show", "latest", "--json").stdout)
    assert {r["benchmark"] for r in doc["records"]} == {"netmap", "nodecheck", "bisection",
                                                         "congestion"}
    return doc["outliers"], shown.stdout


def test_the_planted_link_and_host_are_named_and_nothing_else(sim):
    found, text = _outliers(sim, PLANTED)
    named = sorted((o["kind"], o["node"], o.get("peer", ""), o["metric"]) for o in found)
    others = [f"node-{i}.sim" for i in (0, 1, 2, 3, 4, 6, 7)]
    assert named == sorted([("node", "node-5.sim", "", "bandwidth"),
                            ("node", "node-2.sim", "", "triad"),
                            ("node", "node-2.sim", "", "fma"),
                            ("node", "node-2.sim", "", "latency")]
                           + [("link", "node-5.sim", peer, "bandwidth") for peer in others])
    link = next(o for o in found if o["kind"] == "node" and o["metric"] == "bandwidth")
    assert link["value"] < 0.5 * link["median"] and link["unit"] == "MB/s"
    host = next(o for o in found if o["metric"] == "fma")
    assert host["value"] == pytest.approx(0.5 * host["median"], rel=0.05)
    assert "OUTLIER node node-5.sim: link bandwidth" in text
    assert "OUTLIER node node-2.sim: node multiply-add rate" in text


def test_the_clean_platform_flags_nothing(sim):
    found, text = _outliers(sim, CLEAN)
    assert found == []
    assert "none flagged" in text


def test_one_node_gets_the_node_checks_and_a_note(sim):
    p = sim("run", "acceptance", "--simulate", "nodes=1,ppn=1", *SMALL, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    said = " ".join((p.stdout + p.stderr).split())
    assert "the network needs 2 nodes or more, this allocation has 1" in said, said
    [run] = sim.export("latest")
    assert {r["benchmark"] for r in run["records"]} == {"nodecheck"}


@pytest.mark.parametrize("desc, message", [
    ("nodes=8,degraded_node=8,degraded_bandwidth=1GBps", "degraded_node=8: no such node"),
    ("nodes=8,slow_node=1", "slow_node: needs slow_factor too"),
    ("nodes=8,slow_node=1,slow_factor=2", "slow_factor=2: expected a number above 0 and below 1"),
    ("nodes=8,ppn=2,slow_node=1,slow_factor=0.5", "planted faults need topology=flat and ppn=1"),
])
def test_bad_plants_are_one_line_before_launch(sim, desc, message):
    p = sim("run", "acceptance", "--simulate", desc, "--dry-run")
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr


def test_a_simulated_result_costs_its_own_ranks_whatever_the_size():
    from hpceval.catalog.registry import sim_declared
    from hpceval.simulate.cost import busy
    declared = sim_declared()[1]
    assert busy("netmap", "netmap np=10000 rounds=16", 10_000, declared) == 2
    assert busy("nodecheck", "nodecheck nodes=10000 threads=1", 10_000, declared) == 1
