"""The same point measured again in one launch (issue: a cold first sample used to lock the batch
length at one round trip; #25: five launches within 5%): here, what the harness does with each
repeated point. How far the points and launches agree is held where the answer is planted
(tests/simulate/test_repeatability_planted.py: within 0.1% of the planted time, never a cold
batch); on this VM they move between its states for seconds to minutes (2.5-4.2 us at 16 KiB:
the host lowers the vCPUs' clock, another guest shares a core, a vCPU moves), which
benchmarks/launch_states.py measures (docs/repeatability.md)."""

from helpers_comm import launch

from hpceval.records import parse_record


def test_each_repeated_point_is_calibrated_and_sampled_afresh(bindir):
    """Six points of 16 KiB in one launch: six records, each with its own batch length, its
    samples and the harness's verdict on the machine's state while it ran."""
    p = launch(bindir, "pingpong", ["--sizes", ",".join(["16384"] * 6), "--refine", "0",
                                    "--budget", "0.05", "--min-reps", "3"])
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [r for r in map(parse_record, p.stdout.splitlines())
            if r["type"] == "result" and r["metric"] == "latency"]
    assert len(recs) == 6
    for r in recs:
        s = r["stats"]
        assert r["params"]["bytes"] == 16384 and r["check"] == "ok", r
        assert s["n"] >= 3 and 0 < s["min"] <= s["median"] <= s["max"], s
        assert r["round_trips_per_sample"] >= 1, r
        # the verdict: False, or the reason in words
        assert r["disturbed"] is False or isinstance(r["disturbed"], str) and r["disturbed"], r
        assert "preemptions" in r["quiet"], r
