"""The significance of an experiment's differences, on stored-looking runs."""
import pytest

from hpceval.experiment.analysis import compare, main_metric, overlap_note, point_labels


def _rec(variant, rnd, median, metric="mflops", better="higher", copies=1, overlap=1.0, **params):
    tag = {"kind": "binding", "variant": variant, "round": rnd, "copy": 1, "copies": copies,
           "overlap": overlap}
    return {"benchmark": "k", "params": params or {"n": 8}, "metric": metric, "unit": "MFlop/s",
            "statistic": "median", "better": better, "converged": True,
            "stats": {"median": median}, "extra": {"experiment": tag}}


def _run(values, rounds=5, **kw):
    recs = [_rec(v, r, xs[r - 1], **kw) for r in range(1, rounds + 1) for v, xs in values.items()]
    return {"settings": {"experiment": {"kind": "binding", "variants": list(values)}},
            "records": recs}


def test_a_clear_difference_is_significant_and_noise_is_not():
    run = _run({"a": [100, 101, 99, 100, 102], "b": [80, 81, 79, 80, 82],
                "c": [100, 99, 102, 98, 101]})
    rows = {r.variant: r for r in compare(run)}
    assert rows["a"].verdict == "baseline" and rows["a"].p is None
    assert rows["b"].p < 0.05 and rows["b"].verdict.startswith("significantly worse (-20")
    assert rows["b"].ratio == pytest.approx(0.8)
    assert rows["c"].verdict == "no significant difference"


def test_lower_is_better_and_too_few_rounds():
    run = _run({"a": [2.0, 2.1, 2.0], "b": [1.0, 1.1, 1.0]}, rounds=3, metric="latency",
               better="lower")
    b = [r for r in compare(run) if r.variant == "b"][0]
    assert "too few samples" in b.verdict                  # 3 vs 3: p >= 0.1 always
    run = _run({"a": [2.0, 2.1, 2.0, 2.2], "b": [1.0, 1.1, 1.0, 0.9]}, rounds=4,
               metric="latency", better="lower")
    b = [r for r in compare(run) if r.variant == "b"][0]
    assert b.verdict.startswith("significantly better")


def test_points_are_named_by_what_differs_and_the_rate_is_shown():
    assert point_labels([{"n": 8, "m": 1}, {"n": 16, "m": 1}]) == ["n=8", "n=16"]
    assert point_labels([{"n": 8}]) == ["all"]
    run = _run({"a": [1] * 5, "b": [1] * 5}, metric="latency", better="lower")
    run["records"] += _run({"a": [1] * 5, "b": [1] * 5})["records"]
    assert main_metric(run) == "mflops"


def test_copies_that_barely_overlapped_are_noted():
    assert overlap_note(_run({"1": [1] * 4, "2": [1] * 4}, rounds=4, copies=2)) is None
    note = overlap_note(_run({"1": [1] * 4, "2": [1] * 4}, rounds=4, copies=2, overlap=0.3))
    assert "only 30%" in note


def test_sharing_sums_the_jobs_and_lays_the_process_grid_aside():
    recs = []
    for rnd in range(1, 5):
        recs.append(_rec("one", rnd, 10.0, P=1, Q=2, n=8))
        recs.append(_rec("one", rnd, 12.0, P=2, Q=1, n=8))        # the job's best grid counts
        for copy in (1, 2):
            r = _rec("1:block", rnd, 8.0, P=1, Q=1, n=8)
            r["extra"]["experiment"]["copy"] = copy
            recs.append(r)
    run = {"settings": {"experiment": {"kind": "sharing", "variants": ["one", "1:block"],
                                       "combine": True}}, "records": recs}
    rows = {r.variant: r for r in compare(run)}
    assert rows["one"].samples == [12.0] * 4 and rows["1:block"].samples == [16.0] * 4
    assert rows["1:block"].point == {"n": 8} and rows["1:block"].p < 0.05
