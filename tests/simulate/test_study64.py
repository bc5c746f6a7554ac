"""The study on a 64-rank simulated platform (32 nodes x 2 ranks, fat tree, 1.5 us and 25 GB/s
planted) with a budget of 40 s (#45): it finishes within 10% of its budget (ok, or incomplete
with what it left out named when the host is slower than the estimates), each launch's
estimate (SMPI's measured cost, hpceval/simulate/cost.py) stored beside its elapsed time, its
figures against processors drawn; the planted latency and bandwidth come back from its distance
map, and show, compare and the report mark it simulated. (It replaces test_scale64.py: the comm
suite and barotropic at 64 ranks, ~50 s.)"""
import time

from helpers import one_line_error
from hpceval.views.figures_scaling import scaling_figure

DESC = "nodes=32,ppn=2,latency=1.5us,bandwidth=25GBps,topology=fat-tree"
BUDGET_S = 40


def _distance(run):
    """(bytes, same node) -> the smallest median latency from rank 0."""
    out = {}
    for r in run["records"]:
        p = r["params"]
        if r["benchmark"] == "distance" and r["metric"] == "latency" and p.get("dst", 0) > 0:
            key = (p["bytes"], p["src_node"] == p["dst_node"])
            out[key] = min(out.get(key, 1e9), r["stats"]["median"])
    return out


def test_study_at_64_ranks_within_its_budget(sim, tmp_path):
    start = time.monotonic()
    p = sim("run", "study", "--simulate", DESC, "--budget", f"{BUDGET_S}s", timeout=300)
    wall = time.monotonic() - start
    assert p.returncode == 0, p.stderr[-2000:]
    (run,) = sim.export("1")
    story = [(l["label"], l["status"], l["estimate_s"], l["elapsed_s"]) for l in run["launches"]]
    # Within its budget whatever the host's load. Every launch it started ends ok; on a host
    # slower than the estimates (2-4 processes a CPU: random2 np=4 took 6.1 s against 1.5 s
    # planned) an area keeps its share by leaving launches out before starting them, and the
    # run, incomplete, names them (#45 item 1; hpceval/runner/shares.py).
    assert wall <= 1.1 * BUDGET_S, (wall, story)
    assert {l["status"] for l in run["launches"]} == {"ok"}, story
    assert run["status"] == "ok" or (run["status"] == "incomplete"
                                     and run["settings"].get("left_out")), (run["status"], story)
    assert all(l["estimate_s"] > 0 and l["elapsed_s"] is not None for l in run["launches"])
    planned = [l for l in run["launches"] if not l["label"].endswith("(again)")]
    assert sum(l["estimate_s"] for l in planned) <= BUDGET_S, story
    drawn = [b for b in ("hydro", "sweep", "montecarlo") if scaling_figure(b)([run])]
    assert drawn, {r["benchmark"] for r in run["records"]}
    d = _distance(run)
    assert abs(d[(8, False)] / 1.5 - 1) < 0.01, d                    # planted latency
    big = max(b for b, _ in d)
    bw = (big - 8) / (d[(big, False)] - d[(8, False)])               # bytes/us = MB/s
    assert abs(bw / 25000 - 1) < 0.02, (bw, d)                       # planted bandwidth
    assert abs(d[(8, True)] / 0.3 - 1) < 0.05, d                     # intra-node default
    show = sim("show", "1")
    assert "SIMULATED (SimGrid SMPI) platform fat-tree-32x2" in show.stdout
    assert "(simulated)" in show.stdout and "launches: estimated" in show.stdout
    assert sim("run", "pingpong", "--simulate", DESC, "--set", "budget=0.001").returncode == 0
    cmp = sim("compare", "1", "2")
    assert cmp.returncode == 0 and "#1 (simulated)" in cmp.stdout, cmp.stderr
    out = tmp_path / "r.html"
    rep = sim("report", "1", "2", "-o", str(out))
    assert rep.returncode == 0, one_line_error(rep.stderr)
    assert "SIMULATED (SimGrid SMPI)" in out.read_text()
