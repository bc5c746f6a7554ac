"""Issue #52, "Proven": a regression planted where the answer is known. Two simulated nodes
(model=ideal, 25 GB/s) at a link latency of 1.5 us, then at 1.8 us: the 8 B ping-pong is made
1.2x slower, while 1 MiB collectives (allreduce, bcast: 42 us of transfer, 0.3 us more latency)
move by under 2%. `compare` must call the ping-pong slower with the planted ratio inside its
interval and every collectives point the same; `history --check` must stay quiet over the clean
runs and flag the ping-pong at the first slower run (within 3 runs of the step), and never the
collectives.

Simulated time has no noise: every sample of a point is the same up to the clock's reads, so
the bootstrap interval is (nearly) a point, and a point's verdict is decided from it (same or
slower), not undecided for want of spread (tests/analysis/test_decide.py holds identical
samples)."""
import json

import pytest

BANDWIDTH = 25e3        # bytes per us
PLANTED = (1.8 + 8 / BANDWIDTH) / (1.5 + 8 / BANDWIDTH)     # 8 B one way: latency + size / B


def _run(sim, latency_us: float) -> None:
    p = sim("run", "pingpong", "collectives", "--simulate",
            f"nodes=2,ppn=1,latency={latency_us}us,bandwidth=25GBps", "--tag", "series",
            "--set", "pingpong.sizes=8", "--set", "pingpong.refine=0",
            "--set", "collectives.sizes=1M", "--set", "collectives.ops=allreduce,bcast",
            "--set", "budget=0.05", "--set", "min-reps=6", "--set", "max-reps=20",
            "--set", "warmup=1", "--no-remeasure", "--llc", "reported", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]


def _check(sim, benchmark: str):
    return sim("history", "--check", "--tag", "series", "--benchmark", benchmark)


def test_planted_slowdown_is_slower_and_flagged(sim):
    for n in range(1, 4):                       # the clean series: nothing raised
        _run(sim, 1.5)
        for bench in ("pingpong", "collectives"):
            p = _check(sim, bench)
            assert p.returncode == 0, (n, bench, p.stdout, p.stderr)
    _run(sim, 1.8)                              # the step
    p = _check(sim, "pingpong")
    assert p.returncode == 1 and "pingpong latency" in p.stderr, (p.stdout, p.stderr)
    assert "pingpong latency +20.0%" in p.stderr, p.stderr
    assert _check(sim, "collectives").returncode == 0
    for _ in range(2):                          # still flagged as the series goes on
        _run(sim, 1.8)
        assert _check(sim, "pingpong").returncode == 1
        assert _check(sim, "collectives").returncode == 0

    cmp = sim("compare", "3", "4", "--all", "--json")
    assert cmp.returncode == 0, cmp.stderr
    rows = json.loads(cmp.stdout)["rows"]
    ping = [r for r in rows if r["benchmark"] == "pingpong" and r["metric"] == "latency"]
    coll = [r for r in rows if r["benchmark"] == "collectives"]
    assert len(ping) == 1 and len(coll) >= 4, rows
    r = ping[0]
    lo, hi = r["intervals"][1]
    assert r["verdicts"][1] == "slower" and r["methods"][1] == "bootstrap", r
    assert r["ratios"][1] == pytest.approx(PLANTED, rel=1e-3)
    assert lo * (1 - 1e-3) <= PLANTED <= hi * (1 + 1e-3), r
    assert {c["verdicts"][1] for c in coll} == {"same"}, coll
