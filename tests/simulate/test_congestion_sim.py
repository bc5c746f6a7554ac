"""congestion on a simulated platform (issue #51 item 3): 8 nodes, 2 victims beside 6
aggressors; every impact ratio (congested / isolated, bandwidth inverted) is at least 1 and the
records say the split. Deterministic: the simulated network is the platform's."""
from hpceval.analysis.congestion import impacts

SMALL = ["--set", "congestion.bytes=64K", "--set", "congestion.aggressor-bytes=16K",
         "--set", "min-reps=3", "--set", "max-reps=5", "--set", "budget=0.01", "--no-remeasure"]


def test_victims_are_no_faster_beside_the_aggressors(sim_shared):
    p = sim_shared("run", "congestion", "--simulate", "nodes=8,ppn=1", *SMALL, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    [run] = sim_shared.export("latest")
    assert [l["status"] for l in run["launches"]] == ["ok"]     # its data checks passed
    found = impacts(run["records"])
    assert {(e["metric"], e["pattern"]) for e in found} == {
        (m, c) for m in ("latency", "bandwidth", "allreduce") for c in ("incast", "alltoall")}
    for e in found:
        assert (e["victims"], e["aggressors"]) == (2, 6)
        assert e["median_ratio"] >= 1 and e["tail_ratio"] >= 1, e
