"""The same point measured five times agrees (issue: a cold first sample used to lock the batch
length at one round trip, and 16 KiB came out at 3.1 us once and 2.0 us four times).

Within one launch, five measurements agree within 5% (what the harness controls: each point
calibrates its batch length, csrc/harness/batch.h, and samples afresh). Across launches this VM
moves between states that last a whole launch (quiet runs, 20 points of 16 KiB per launch: one
launch 3.61-3.64 us throughout, the next 2.52 us throughout, others 2.8 and 3.2), so five
launches are held only to the states' spread (#25's 5% across launches is not met here)."""

import pytest
import statistics

from helpers_comm import launch

from hpceval.records import parse_record


def measure_16k(bindir) -> dict:
    p = launch(bindir, "pingpong", ["--sizes", "16384", "--refine", "0", "--budget", "0.3"])
    assert p.returncode == 0, p.stderr[-2000:]
    [rec] = [r for r in map(parse_record, p.stdout.splitlines())
             if r["type"] == "result" and r["metric"] == "latency"]
    return rec


def measure_clean(bindir, tries: int = 4) -> dict:
    """As `hpceval run` treats a headline: a measurement the harness calls disturbed (other
    processes preempted the ranks) is taken again, a few times at most."""
    for _ in range(tries):
        rec = measure_16k(bindir)
        if not rec["disturbed"]:
            break
    return rec


@pytest.mark.timing
def test_one_point_measured_five_times_in_one_launch_agrees_within_five_percent(bindir):
    """What the harness controls: each point calibrates its batch length and samples afresh,
    and five such measurements of 16 KiB in one launch agree within 5% of their median. A
    leading sixth point is left out: the pair's first milliseconds after start-up ran apart
    (2.9 us, then 2.5 us for 38 points, on a quiet run here)."""
    p = launch(bindir, "pingpong", ["--sizes", ",".join(["16384"] * 6), "--refine", "0",
                                    "--budget", "0.3"])
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [r for r in map(parse_record, p.stdout.splitlines())
            if r["type"] == "result" and r["metric"] == "latency"][1:]
    runs = [(r["stats"]["median"], r["round_trips_per_sample"]) for r in recs]
    typical = statistics.median(m for m, _ in runs)
    assert len(runs) == 5 and all(abs(m / typical - 1) <= 0.05 for m, _ in runs), runs
    # ~2 us one way is ~4 us a round trip: a 50 us batch needs k >= 8, never the cold k = 1
    assert all(k >= 8 for _, k in runs), runs


@pytest.mark.timing
def test_five_launches_stay_within_the_machine_s_states(bindir):
    """Across launches this machine is not one machine: a 16 KiB ping-pong settles, for a whole
    launch, in one of several states (2.5, 2.8, 3.1 or 3.6 us here, each stable within its
    launch for seconds: the vCPUs' placement on the host, which an idle gap between launches
    lets change). #25's 5% across five launches is not met here; this bound (the states' own
    spread, 1.5x) keeps a gross regression (a launch twice as slow, a cold k = 1) visible."""
    recs = [measure_clean(bindir) for _ in range(5)]
    medians = [r["stats"]["median"] for r in recs]
    assert max(medians) / min(medians) <= 1.5, medians
