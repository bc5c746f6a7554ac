"""Change-point detection on synthetic histories with known steps and noise."""
import numpy as np
import pytest

from hpceval.analysis.history import Settings, analyse, collect, history, latest_verdict, regressions


def run(i, v, cv=0.02, host="h", fp="ab" * 32, tags=()):
    stats = {"n": 20, "min": v * (1 - cv), "median": v, "mean": v, "max": v * (1 + 2 * cv),
             "stddev": v * cv, "ci_low": v * 0.99, "ci_high": v * 1.01}
    return {"id": i, "uuid": f"u{i:04d}", "started": f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00+00:00",
            "tags": list(tags), "fingerprint": {"hash": fp, "hostname": host},
            "records": [{"benchmark": "pingpong", "params": {"bytes": 8, "ranks": "0-1"}, "metric": "latency",
                         "unit": "us", "statistic": "median", "better": "lower", "converged": True,
                         "stats": stats}]}


def noisy(n, seed, noise=0.03, base=2.0):
    return base * (1 + noise * np.random.default_rng(seed).standard_normal(n))


def series_of(values, cvs=None):
    runs = [run(i, float(v), cv=(cvs[i] if cvs is not None else 0.02)) for i, v in enumerate(values)]
    [s] = history(runs)
    return s


@pytest.mark.parametrize("seed", range(20))
def test_unchanged_noisy_history_is_not_flagged(seed):
    s = series_of(noisy(24, seed))
    assert s.changes == []
    assert s.latest["verdict"] == "unchanged"
    assert regressions([s]) == []


@pytest.mark.parametrize("seed", range(10))
def test_injected_20_percent_slowdown_is_flagged(seed):
    v = noisy(24, seed)
    v[16:] *= 1.2                      # latency 20% higher from run 16 on
    s = series_of(v)
    steps = [c for c in s.changes if c.kind == "step"]
    assert len(steps) == 1 and steps[0].index == 16 and steps[0].verdict == "regression"
    assert 0.12 < steps[0].relative < 0.28
    assert regressions([s]) == [s]     # the latest run is in the slow segment


def test_slowdown_of_the_latest_run_alone():
    v = noisy(12, 7)
    v[-1] = np.median(v[:-1]) * 1.2
    s = series_of(v)
    assert s.latest["verdict"] == "regression" and 0.15 < s.latest["worse_by"] < 0.25
    assert not [c for c in s.changes if c.kind == "step"]   # one point: no segment to test


def test_improvement_and_direction_for_bandwidth():
    v = noisy(20, 3)
    v[10:] *= 1.3
    s = analyse(collect([run(i, float(x)) for i, x in enumerate(v)])[0])
    assert [c.verdict for c in s.changes if c.kind == "step"] == ["regression"]   # latency up
    w = list(noisy(12, 4)[:-1]) + [2.0 * 1.3]
    assert latest_verdict(w, "higher", Settings())["verdict"] == "improvement"   # bandwidth up
    assert latest_verdict(w, "lower", Settings())["verdict"] == "regression"     # latency up


def test_rise_in_variability_is_flagged():
    cvs = list(0.02 * (1 + 0.1 * np.random.default_rng(1).standard_normal(20)))
    cvs[12:] = [c * 4 for c in cvs[12:]]   # the X1 case: same median, far more scatter
    s = series_of(noisy(20, 2, noise=0.01), cvs)
    var = [c for c in s.changes if c.kind == "variability"]
    assert len(var) == 1 and var[0].index == 12 and var[0].verdict == "noisier"
    assert not [c for c in s.changes if c.kind == "step"]


def test_noise_larger_than_threshold_is_not_a_regression():
    v = noisy(12, 5, noise=0.15)
    v[-1] = np.median(v[:-1]) * 1.12       # within the scatter of earlier runs
    assert series_of(v).latest["verdict"] == "unchanged"


def test_machine_and_tag_selection():
    runs = [run(0, 1.0), run(1, 1.0, fp="cd" * 32), run(2, 1.1, tags=["nightly"]),
            run(3, 9.0, fp="cd" * 32, tags=["nightly"])]
    [s] = history(runs)                                # latest run's machine: cd...
    assert [p["run"] for p in s.points] == [1, 3]
    [s] = history(runs, fingerprint="abab")
    assert [p["run"] for p in s.points] == [0, 2]
    [s] = history(runs, tag="nightly")
    assert [p["run"] for p in s.points] == [2, 3]


def test_two_levels_of_a_shared_host_are_not_a_regression():
    """Earlier runs mostly on one level of the host, some 15% above it (a vCPU moved: docs/
    repeatability.md): a latest run on the upper level is within their scatter. A median
    absolute deviation of runs mostly on one level saw none of it and called it a regression."""
    rng = np.random.default_rng(52)
    v = list(2.0 * (1 + 0.01 * rng.standard_normal(10)))
    for i in (2, 5, 8):
        v[i] *= 1.15
    assert latest_verdict(v + [2.0 * 1.15], "lower", Settings())["verdict"] == "unchanged"
    # the same history with one level: the step beyond it is a regression
    flat = list(2.0 * (1 + 0.01 * rng.standard_normal(10)))
    assert latest_verdict(flat + [2.0 * 1.15], "lower", Settings())["verdict"] == "regression"


@pytest.mark.parametrize("seed", range(5))
def test_a_step_stays_flagged_on_the_runs_after_it(seed):
    """A 20% step in a 3%-noise series: the first slow run, and the next two (before the change
    point has the three runs a side it needs), are each a regression: the first slow runs are
    not scatter that widens the guard."""
    v = noisy(12, seed)
    base = float(np.median(v))
    for extra in range(3):
        w = list(v) + [base * 1.2 * (1 + 0.01 * k) for k in range(extra + 1)]
        assert latest_verdict(w, "lower", Settings())["verdict"] == "regression", extra
