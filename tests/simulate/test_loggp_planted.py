"""LogGP on a planted platform (2 nodes, 1.5 us and 25 GB/s, model=ideal): the parameters
hpceval derives are the planted ones, the summary record, the card rows and the message time
built from them (what tests/comm/test_loggp.py checked for plausibility on this machine, where
an overhead is tens of ns of noise).

Planted: L = 1.5 us one way, G = 1 / 25,000 MB/s, and no overheads (SMPI models none unless
told: o_s = o_r = 0). Simulated time has no noise: within 1% (the simulated clock reads, 10 ns
each, and SMPI's envelope of a few bytes are the rest)."""
import pytest

from hpceval.analysis.card import machine_card
from hpceval.analysis.loggp import loggp_params, message_time

LAT_US, BW_MBPS = 1.5, 25e3
SIZES = [0, 8, 4096, 65536, 262144]


def test_planted_loggp_parameters(sim):
    p = sim("run", "loggp", "pingpong", "--simulate",
            "nodes=2,ppn=1,latency=1.5us,bandwidth=25GBps", "--set", "budget=0.001",
            "--set", f"loggp.sizes={','.join(map(str, SIZES))}", "--set", "pingpong.sizes=8,256K",
            "--set", "pingpong.refine=0", "--no-remeasure", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    run, = sim.export("latest")
    prm = loggp_params(run)
    assert prm["source"] == "summary record" and prm["where"] == "inter-node", prm
    assert prm["sizes"] == SIZES and not prm["L_clipped"], prm
    assert prm["L_us"] == pytest.approx(LAT_US, rel=0.01), prm
    assert prm["o_s_us"] < 0.01 * LAT_US and prm["o_r_us"] < 0.01 * LAT_US, prm
    assert prm["bandwidth_MBps"] == pytest.approx(BW_MBPS, rel=0.01), prm
    for n, rtt in zip(SIZES, prm["rtt_us"]):
        assert rtt == pytest.approx(2 * (LAT_US + n / BW_MBPS), rel=0.01), (n, prm)
    for n in (8, 4096, 262144):
        assert message_time(prm, n) == pytest.approx(LAT_US + n / BW_MBPS, rel=0.01), (n, prm)
    # 1 / G is the ping-pong's bandwidth at 256 KiB less the latency's share
    (bw,) = [r for r in run["records"] if r["benchmark"] == "pingpong"
             and r["metric"] == "bandwidth" and r["params"]["bytes"] == 262144]
    n = 262144
    assert bw["stats"]["median"] == pytest.approx(n / (LAT_US + n / BW_MBPS), rel=0.01), bw
    rows = {}
    for r in machine_card(run):         # each section's first LogGP row: L's
        if r["quantity"].startswith("LogGP"):
            rows.setdefault(r["section"], r)
    assert rows["LogGP inter-node"]["measured"], rows
    assert rows["LogGP inter-node"]["value"] == prm["L_us"], rows
    assert "o_s" in rows["LogGP inter-node"]["point"], rows
    assert not rows["LogGP intra-node"]["measured"], rows
