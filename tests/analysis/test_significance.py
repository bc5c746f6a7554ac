"""Verdicts from stored statistics: CI overlap, unconverged and disturbed points."""
from hpceval.analysis import decide as dec
from hpceval.analysis import significance as sig
from hpceval.analysis.compare import compare
from hpceval.analysis.history import history


def rec(v, lo, hi, better="higher", converged=True, disturbed=None, bench="pingpong"):
    r = {"benchmark": bench, "metric": "bandwidth", "params": {"bytes": 1 << 20}, "unit": "MB/s",
         "statistic": "median", "better": better, "converged": converged,
         "stats": {"n": 30, "min": lo, "median": v, "mean": v, "max": hi, "stddev": 1,
                   "ci_low": lo, "ci_high": hi}}
    if disturbed:
        r["extra"] = {"disturbed": disturbed}
    return r


def test_overlapping_cis_are_no_change_whatever_the_ratio():
    # the case: 171.9 MB/s with a CI of 129..10,134 against 341 MB/s
    assert sig.judge(rec(171.9, 129, 10134), rec(341, 330, 350)) == sig.SAME


def test_separate_cis_give_the_direction_by_better():
    assert sig.judge(rec(100, 99, 101), rec(120, 119, 121)) == sig.BETTER
    assert sig.judge(rec(100, 99, 101, "lower"), rec(120, 119, 121, "lower")) == sig.WORSE


def test_unconverged_or_disturbed_points_are_not_comparable():
    assert sig.judge(rec(100, 99, 101, converged=False), rec(200, 199, 201)) == sig.NOT_COMPARABLE
    assert sig.judge(rec(100, 99, 101), rec(50, 49, 51, disturbed="preempted 3 times")) \
        == sig.NOT_COMPARABLE


def run(i, recs):
    return {"id": i, "started": f"2026-01-0{i}T00:00:00", "fingerprint": {"hash": "ab" * 8},
            "records": recs}


def test_a_uniformly_slower_run_on_one_machine_is_called_out():
    benches = ["mem-latency", "stream", "pingpong", "mem-bandwidth"]
    slow = [rec(50, 49, 51, bench=b) for b in benches]
    fast = [rec(100, 99, 101, bench=b) for b in benches]
    s = compare([run(1, slow), run(2, fast)])["summary"]      # bandwidths: twice is faster
    assert s[1]["uniform"] == dec.FASTER and s[1]["verdicts"][dec.FASTER] == 4


def test_history_does_not_call_noise_an_improvement():
    a = run(1, [rec(171.9, 129, 10134, converged=False)])
    b = run(2, [rec(341, 330, 350)])
    [s] = history([a, b])
    assert s.latest["verdict"] == sig.NOT_COMPARABLE
    c = run(3, [rec(171.9, 150, 400)])
    [s] = history([b, c])
    assert s.latest["verdict"] == "unchanged"
