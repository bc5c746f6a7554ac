"""Topology on a simulated platform (docs/simulate.md): the distance map on a torus shows the
hops (16 nodes as 4 x 2 x 2, 1.5 us per link: rank 0's neighbours one link away, the others two
or three), and hot spot senders share the receiver's link."""
import pytest

from helpers import FAST


def test_distance_map_shows_hops(sim):
    p = sim("run", "distance", "--simulate", "nodes=16,ppn=1,latency=1.5us,topology=torus",
            "--set", "sizes=8", *FAST)
    assert p.returncode == 0, p.stderr
    lat = {r["params"]["dst"]: r["stats"]["median"] for r in sim.export("latest")[0]["records"]
           if r["metric"] == "latency"}
    hops = {round(v / 1.5) for v in lat.values()}
    assert {1, 2, 3} <= hops, lat                     # 1, 2 and 3 links from rank 0
    assert all(abs(v / (1.5 * round(v / 1.5)) - 1) < 0.02 for v in lat.values()), lat


def test_sampled_distance_map_shows_hops(sim):
    """The sample the plan takes at scale (here beyond 8 ranks: 32 nodes as 4 x 4 x 2) still
    shows the hops: the nodes 2^j away are one link away (1, 4, 16) or two (2, 8, ...)."""
    p = sim("run", "distance", "--simulate", "nodes=32,ppn=1,latency=1.5us,topology=torus",
            "--set", "sizes=8", "--set", "sample-above=8", "--set", "sample=3", *FAST)
    assert p.returncode == 0, p.stderr
    lat = {r["params"]["dst"]: r["stats"]["median"] for r in sim.export("latest")[0]["records"]
           if r["metric"] == "latency"}
    assert {1, 2, 4, 8, 16, 24, 28, 30, 31} <= set(lat) and len(lat) == 9 + 3, sorted(lat)
    assert {round(lat[d] / 1.5) for d in (1, 4, 16)} == {1} and round(lat[2] / 1.5) == 2, lat
    assert all(abs(v / (1.5 * round(v / 1.5)) - 1) < 0.02 for v in lat.values()), lat


def test_hotspot_shares_the_receivers_link(sim):
    """k senders streaming to rank 0 share its 10 GB/s link: the aggregate stays at the link's
    bandwidth for every k (each sender gets 1/k of it)."""
    p = sim("run", "hotspot", "--simulate", "nodes=5,latency=1.5us,bandwidth=10GBps",
            "--set", "sizes=1M", *FAST)
    assert p.returncode == 0, p.stderr
    agg = {r["params"]["senders"]: r["stats"]["median"]
           for r in sim.export("latest")[0]["records"] if r["metric"] == "bandwidth"}
    assert sorted(agg) == [1, 2, 3, 4]
    assert all(abs(v / 10000 - 1) < 0.01 for v in agg.values()), agg


def test_a_tapered_fat_tree_shares_its_up_links(sim):
    """Planted: 8 nodes in two leaves of 4; with one up-link a leaf (shape 4:1) the pairs of a
    matching that cross between the leaves share it, each getting 1/c of the non-blocking tree's
    bandwidth (c: the matching's crossing pairs) at 1 MiB; pairs inside a leaf are untouched."""
    def pairs(shape):
        p = sim("run", "bisection", "--simulate",
                f"nodes=8,ppn=1,topology=fat-tree,shape={shape}", "--set", "bisection.bytes=1M",
                "--set", "bisection.matchings=3", "--set", "min-reps=3", "--set", "max-reps=5",
                "--set", "budget=0.01", "--no-remeasure", timeout=60)
        assert p.returncode == 0, p.stderr[-2000:]
        return {(r["params"]["matching"], r["params"]["src"], r["params"]["dst"]):
                r["stats"]["median"] for r in sim.export("latest")[-1]["records"]
                if r["metric"] == "pair_bandwidth"}
    full, tapered = pairs("4:4"), pairs("4:1")
    assert full.keys() == tapered.keys()
    crossing = {m: sum(1 for (k, s, d) in full if k == m and s // 4 != d // 4)
                for m, _, _ in full}
    assert max(crossing.values()) >= 2, crossing        # the seed draws a shared up-link
    for (m, s, d), bw in tapered.items():
        share = 1 / crossing[m] if s // 4 != d // 4 else 1.0
        assert bw / full[(m, s, d)] == pytest.approx(share, rel=0.10), (m, s, d, crossing[m])
