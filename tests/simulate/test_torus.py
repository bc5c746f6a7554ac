"""The distance map on a simulated torus shows the hops: 16 nodes as 4 x 2 x 2 with 1.5 us per
link; rank 0's neighbours are one link away, the others two or more (docs/simulate.md)."""
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
