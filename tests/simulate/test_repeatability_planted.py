"""The same 16 KiB ping-pong measured again agrees, on a planted platform (2 nodes, 1.5 us and
25 GB/s, model=ideal): six points of one launch and five launches, each the planted one-way time
1.5 us + 16,384 B / 25 GB/s = 2.1554 us, and no point sampled with a cold batch length (#25:
a cold first sample locked the batch at one round trip).

What this machine's launches do (they move between its states: 2.5-4.2 us here) is
benchmarks/launch_states.py's (docs/repeatability.md). Simulated time has no noise: the points
are held to 0.1% of the planted time and of each other (the simulated clock reads are the
rest)."""
import pytest

from hpceval.records import parse_record

DESC = "nodes=2,ppn=1,latency=1.5us,bandwidth=25GBps"
PLANTED_US = 1.5 + 16384 / 25e3
# round trips a sample needs for the harness's 50 us batch at the planted 4.3 us round trip:
# never the cold k = 1
MIN_BATCH = 8


def _latencies(lines) -> list:
    return [r for r in map(parse_record, lines) if r["type"] == "result"
            and r["metric"] == "latency"]


def test_one_launch_and_five_launches_agree(sim):
    runs = []
    for _ in range(5):
        p = sim("run", "pingpong", "--simulate", DESC, "--set", "sizes=16K", "--set", "refine=0",
                "--set", "budget=0.3", "--no-remeasure", timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        runs.append(sim.export("latest")[0])
    five = [r for run in runs for r in run["records"] if r["metric"] == "latency"]
    assert len(five) == 5
    one = sim.smpirun(runs[0], 2, [sim.bindir / "hpceval-pingpong", "--sizes",
                                   ",".join(["16384"] * 6), "--refine", "0", "--budget", "0.3"])
    assert one.returncode == 0, one.stderr[-2000:]
    six = _latencies(one.stdout.splitlines())
    assert len(six) == 6
    for rec in five + six:
        assert rec["stats"]["median"] == pytest.approx(PLANTED_US, rel=1e-3), rec["stats"]
        k = rec.get("round_trips_per_sample") or rec["extra"]["round_trips_per_sample"]
        assert k >= MIN_BATCH, rec
