"""The same point measured five times agrees (issue: a cold first sample used to lock the batch
length at one round trip, and 16 KiB came out at 3.1 us once and 2.0 us four times).

#25 asks for 5% across five launches; NOT met on this VM, and not by any program: it moves
between states that mostly last a whole launch (quiet runs, 20 points of 16 KiB per launch: one
launch 3.61-3.64 us throughout, the next 2.52 us throughout, others 2.8 and 3.2), and a plain
OSU-style loop (2000 round trips per point, 10 points per launch, launches alternating with
hpceval's) ranged 2.61-4.43 us over six launches, with jumps of up to 39% inside one launch.
What these tests hold is what the harness controls and a gross regression would break: no
cold batch length (k >= 8), five points of one launch within 25% of their median, five
launches within 2x."""

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


@pytest.mark.alone
def test_one_point_measured_five_times_in_one_launch_agrees(bindir):
    """Each point calibrates its batch length and samples afresh; five such measurements of
    16 KiB in one launch agree within 25% of their median (the same launch's states: 2.71-3.18
    us in one quiet launch here). A leading sixth point is left out: a pair's first
    milliseconds after start-up often ran apart (2.9 us, then 2.5 us for 38 points)."""
    p = launch(bindir, "pingpong", ["--sizes", ",".join(["16384"] * 6), "--refine", "0",
                                    "--budget", "0.3"])
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [r for r in map(parse_record, p.stdout.splitlines())
            if r["type"] == "result" and r["metric"] == "latency"][1:]
    runs = [(r["stats"]["median"], r["round_trips_per_sample"]) for r in recs]
    typical = statistics.median(m for m, _ in runs)
    assert len(runs) == 5 and all(abs(m / typical - 1) <= 0.25 for m, _ in runs), runs
    # ~2 us one way is ~4 us a round trip: a 50 us batch needs k >= 8, never the cold k = 1
    assert all(k >= 8 for _, k in runs), runs


@pytest.mark.alone
def test_five_launches_agree_within_the_machine_s_states(bindir):
    """Across launches a 16 KiB ping-pong settles in one of this machine's states (2.5-4.4 us
    for any program here); five launches within 2x keep a launch twice as slow visible."""
    recs = [measure_clean(bindir) for _ in range(5)]
    medians = [r["stats"]["median"] for r in recs]
    assert max(medians) / min(medians) <= 2.0, medians
