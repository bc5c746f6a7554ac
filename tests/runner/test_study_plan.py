"""The study planned for allocations this machine does not have (`run study --dry-run --json`):
what a centre reads before it runs; no launch is needed."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import pytest

from helpers import ROOT


def plan(*args: str, timeout: float = 120) -> dict:
    p = subprocess.run([sys.executable, "-m", "hpceval", "run", *args, "--dry-run", "--json"],
                       capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def ranks_of(doc: dict) -> dict:
    out = defaultdict(set)
    for launch in doc["launches"]:
        out[launch["benchmark"]].add(launch["ranks"])
    return out


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    hosts = tmp_path_factory.mktemp("hosts") / "hosts"
    hosts.write_text("".join(f"n{i}\n" for i in range(1, 101)))
    return plan("study", "--hostfile", str(hosts), "--ppn", "100", "--budget", "1h")


def test_the_study_of_100_nodes_reaches_every_rank_within_its_hour(hundred):
    doc = hundred
    assert doc["plan_version"] == 1 and doc["allocation"]["nodes"] == 100
    assert doc["allocation"]["ppn"] == 100 and doc["budget_s"] == 3600
    assert doc["estimate_s"] <= 3600
    assert abs(sum(l["estimate_s"] for l in doc["launches"]) - doc["estimate_s"]) < 1
    r = ranks_of(doc)
    for bench in ("collectives", "halo", "barotropic"):
        assert max(r[bench]) == 10000, (bench, sorted(r[bench]))
    assert {1, 2, 100, 200} <= r["collectives"]                 # a node's ladder, then nodes'
    assert max(r["psst"]) >= 1024
    grids = {l["params"].get("grids") for l in doc["launches"] if l["benchmark"] == "barotropic"}
    assert {"320x384", "3600x2400"} <= grids
    for launch in doc["launches"]:
        assert {"benchmark", "ranks", "nodes", "ppn", "params", "estimate_s"} <= set(launch)
        assert launch["ppn"] <= 100 and launch["nodes"] == -(-launch["ranks"] // launch["ppn"])
        assert ("fewer_per_node" in launch) == (launch["ppn"] < 100 and launch["nodes"] > 1)


def test_cross_node_patterns_use_two_whole_nodes(hundred):
    patterns = [l for l in hundred["launches"] if l["benchmark"] == "p2p"
                and "cross-pairs" in l["params"].get("pattern", "")]
    assert patterns and all(l["ranks"] == 200 and l["nodes"] == 2 and l["ppn"] == 100
                            and l["params"]["ranks-per-node"] == "0" for l in patterns)


def test_areas_share_the_budget_and_say_what_they_left_out(hundred):
    areas = {a["area"]: a for a in hundred["areas"]}
    assert set(areas) == {"memory", "communication", "kernels", "proxies", "nas"}
    for a in areas.values():
        assert a["estimate_s"] <= a["share_s"] + 1
    assert sum(a["share_s"] for a in areas.values()) <= 3600 + 1
    assert any("power of two" in n for n in hundred["notes"])


def test_one_node_uses_both_cores():
    r = ranks_of(plan("study", "--budget", "1h"))
    assert r["collectives"] == {1, 2} and r["barotropic"] == {1, 2}
    assert r["p2p"] == {2, 4}                        # cross-node patterns emulated: 2 x 2 ranks


def test_a_million_ranks_plan_in_bounded_time_and_memory():
    doc = plan("study", "--nodes", "10000", "--ppn", "100", "--budget", "1h", timeout=120)
    assert doc["estimate_s"] <= 3600
    # a launch of 1,000,000 ranks starts in about 1,000 s: the ladders reach 1,000 nodes and more
    assert max(l["ranks"] for l in doc["launches"]) >= 100_000


def test_a_shorter_budget_thins_and_says_so():
    doc = plan("study", "--nodes", "100", "--ppn", "100", "--budget", "10m")
    assert doc["estimate_s"] <= 600
    assert any("thinned" in n or "budget x" in n or "left out" in n for n in doc["notes"])


@pytest.mark.parametrize("args,message", [
    (["--budget", "soon"], "expected a duration"),
    (["--budget", "0s"], "between 1 s and a year"),
    (["--budget", "nan"], "expected a duration"),
])
def test_bad_budgets(args, message):
    p = subprocess.run([sys.executable, "-m", "hpceval", "run", "study", *args, "--dry-run"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("args,message", [
    (["--nodes", "1000000000", "--ppn", "16"], "1,000,000,000 nodes is more than the 1,000,000"),
    (["--nodes", "10", "--ppn", "1000000"], "ranks per node is more than the 100,000 allowed"),
    (["--nodes", "100000", "--ppn", "1000"], "= 100,000,000 ranks is more than the 16,777,216"),
])
def test_allocations_beyond_any_machine_are_refused_at_once(args, message):
    p = subprocess.run([sys.executable, "-m", "hpceval", "run", "comm", *args, "--dry-run"],
                       capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert p.returncode == 2 and message in p.stderr and p.stderr.count("\n") == 1, p.stderr
