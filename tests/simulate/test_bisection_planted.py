"""bisection on a simulated platform (issue #51 item 3): one node's link degraded lowers the
minimum matching's aggregate bandwidth and the effective bisection bandwidth against the clean
platform, deterministically (the simulated network is the platform's, not this host's load);
the same seed draws the same matchings."""
import pytest

from hpceval.analysis.bisection import effective

SMALL = ["--set", "bisection.bytes=64K", "--set", "bisection.matchings=3", "--set", "min-reps=3",
         "--set", "max-reps=5", "--set", "budget=0.01", "--no-remeasure"]


def _bisection(sim, desc):
    p = sim("run", "bisection", "--simulate", desc, *SMALL, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    [run] = sim.export("latest")
    recs = run["records"]
    assert [l["status"] for l in run["launches"]] == ["ok"]     # its data checks passed
    return recs, effective(recs)


def test_a_degraded_link_lowers_the_minimum_matching(sim_shared):
    sim = sim_shared
    clean_recs, clean = _bisection(sim, "nodes=8,ppn=1")
    recs, bad = _bisection(sim, "nodes=8,ppn=1,degraded_node=5,degraded_bandwidth=4GBps")
    assert clean["matchings"] == bad["matchings"] == 3 and bad["pairs"] == 12
    assert bad["aggregate"][0] < 0.75 * clean["aggregate"][0]   # min over matchings
    assert bad["ebb"] < clean["ebb"]
    # the pairs of node 5 (rank 5) are the slow ones; the others run at the clean pace
    def pairs(rs):
        return {(r["params"]["matching"], r["params"]["src"], r["params"]["dst"]): r["stats"]["median"]
                for r in rs if r["metric"] == "pair_bandwidth"}
    c, b = pairs(clean_recs), pairs(recs)
    assert c.keys() == b.keys()                                 # the same seed, the same matchings
    for key, v in b.items():
        if 5 in key[1:]:
            assert v < 0.75 * c[key], (key, v, c[key])
        else:
            assert v == pytest.approx(c[key], rel=0.02), (key, v, c[key])
