"""Topology on a simulated platform (docs/simulate.md): the distance map on a torus shows the
hops (16 nodes as 4 x 2 x 2, 1.5 us per link: rank 0's neighbours one link away, the others two
or three), and hot spot senders share the receiver's link."""
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
