"""hpceval.quality: disturbed and unconverged points, the spread test, the best of several
measurements of one point."""
from hpceval.quality import (best_points, clean, disturbed, mark_spread, rel_ci, verdict,
                             worth_remeasuring)


def rec(median, lo, hi, *, bytes=8, converged=True, n=20, **extra):
    return {"benchmark": "pingpong", "metric": "latency", "params": {"bytes": bytes},
            "stats": {"n": n, "median": median, "ci_low": lo, "ci_high": hi},
            "converged": converged, **extra}


def test_disturbed_is_read_from_the_record_or_the_store_extra():
    assert disturbed(rec(1, 1, 1, disturbed="steal 9%")) == "steal 9%"
    assert disturbed({**rec(1, 1, 1), "extra": {"disturbed": "x"}}) == "x"
    assert disturbed(rec(1, 1, 1, disturbed=False)) is None
    assert clean(rec(1, 1, 1)) and not clean(rec(1, 1, 1, converged=False))


def test_verdict_names_the_reason_or_the_ci():
    assert verdict(rec(1, 0.99, 1.01)) == "ok"
    assert verdict(rec(1, 0.5, 1.5, converged=False)) == "unconverged (CI ±50%)"
    assert verdict(rec(1, 1, 1, disturbed="preempted 9 times")) == "disturbed: preempted 9 times"


def test_a_spread_far_above_the_neighbours_is_marked_disturbed():
    series = [rec(1, 0.99, 1.01, bytes=b) for b in (1, 2, 4, 8, 16)]
    series[2] = rec(1, 0.6, 1.9, bytes=4)               # a CI of 130%: something ran beside it
    assert mark_spread(series) == 1
    assert "spread 130% of the median" in series[2]["disturbed"]
    assert all("disturbed" not in r for i, r in enumerate(series) if i != 2)


def test_uniformly_wide_spreads_are_not_a_disturbance():
    series = [rec(1, 0.8, 1.2, bytes=b) for b in (1, 2, 4, 8, 16)]
    assert mark_spread(series) == 0


def test_the_best_measurement_of_a_point_speaks_for_it():
    first = rec(2.0, 1.0, 3.0, disturbed="preempted")
    again = rec(1.0, 0.99, 1.01, remeasured=1)
    other = rec(5.0, 4.9, 5.1, bytes=64)
    assert best_points([first, other, again]) == [again, other]   # first place kept
    assert best_points([again, first]) == [again]
    wide, narrow = rec(1, 0.5, 1.5, converged=False), rec(1, 0.9, 1.1, converged=False, remeasured=2)
    assert best_points([wide, narrow]) == [narrow]
    # nothing measured twice: every record stays (distinct points of one sweep)
    assert best_points([wide, other]) == [wide, other]
    assert rel_ci(narrow) < rel_ci(wide)


def test_what_is_worth_measuring_again():
    assert worth_remeasuring(rec(1, 1, 1, disturbed="x"), {"max_reps": 20})
    assert worth_remeasuring(rec(1, 0, 2, converged=False, n=7), {"max_reps": 20})
    # --max-reps stopped it: the same settings cannot converge
    assert not worth_remeasuring(rec(1, 0, 2, converged=False, n=20), {"max_reps": 20})
    assert not worth_remeasuring(rec(1, 1, 1), {"max_reps": 20})
