"""The communication suite and one proxy on a 64-rank simulated platform (32 nodes x 2 ranks,
fat tree, 1.5 us and 25 GB/s planted): the run completes, the planted latency and bandwidth
come back from the distance map, and show, compare and the report mark it simulated. Small
budgets keep it under a minute of wall time (benchmarks/smpi_scale.py measures the cost)."""
import json

from helpers import one_line_error

DESC = "nodes=32,ppn=2,latency=1.5us,bandwidth=25GBps,topology=fat-tree"
SMALL = ["--set", "budget=0.001", "--set", "min-reps=2", "--set", "max-reps=5", "--no-remeasure"]
COMM = ["--set", "sizes=8,64K", "--set", "pingpong.refine=0", "--set", "p2p.modes=pingpong,swap",
        "--set", "p2p.protocols=send,isend,sendrecv",
        # SMPI 3.32's one-sided puts fail halo's data check when both neighbours are one rank
        "--set", "halo.methods=pack,datatype"]
PROXY = ["--set", "ranks=64", "--set", "grids=128x128", "--set", "pgrids=8x8",
         "--set", "halos=pack", "--set", "sums=allreduce", "--set", "mappings=row"]


def _distance(run):
    """(bytes, same node) -> the smallest median latency from rank 0."""
    out = {}
    for r in run["records"]:
        p = r["params"]
        if r["benchmark"] == "distance" and r["metric"] == "latency" and p.get("dst", 0) > 0:
            key = (p["bytes"], p["src_node"] == p["dst_node"])
            out[key] = min(out.get(key, 1e9), r["stats"]["median"])
    return out


def test_comm_suite_and_proxy_at_64_ranks(sim, tmp_path):
    p = sim("run", "comm", "--simulate", DESC, *SMALL, *COMM, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    p = sim("run", "barotropic", "--simulate", DESC, *SMALL, *PROXY, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    comm, proxy = sim.export("1", "2")
    assert max(l["meta"]["nranks"] for l in comm["launches"] if l.get("meta")) == 64
    assert proxy["records"] and proxy["launches"][0]["meta"]["nranks"] == 64
    d = _distance(comm)
    assert abs(d[(8, False)] / 1.5 - 1) < 0.01, d                    # planted latency
    bw = (65536 - 8) / (d[(65536, False)] - d[(8, False)])           # bytes/us = MB/s
    assert abs(bw / 25000 - 1) < 0.02, (bw, d)                       # planted bandwidth
    assert abs(d[(8, True)] / 0.3 - 1) < 0.05, d                     # intra-node default
    show = sim("show", "1")
    assert "SIMULATED (SimGrid SMPI) platform fat-tree-32x2" in show.stdout
    assert "(simulated)" in show.stdout and "oversubscribed" not in show.stdout
    cmp = sim("compare", "1", "2")
    assert cmp.returncode == 0 and "#1 (simulated)" in cmp.stdout, cmp.stderr
    out = tmp_path / "r.html"
    rep = sim("report", "1", "2", "-o", str(out))
    assert rep.returncode == 0, one_line_error(rep.stderr)
    assert "SIMULATED (SimGrid SMPI)" in out.read_text()
