"""compare's verdicts on planted samples (hpceval/analysis/decide.py): a 20%-slower point is
slower with its interval, an identical distribution the same, a wide overlapping spread
undecided with the reason; disturbed points decided by their samples; points stored without
samples decided from their stored CIs."""
import numpy as np
import pytest
import scipy.stats  # noqa: F401  (a second to import: at collection, not in the first test)

from hpceval.analysis import decide as dec
from hpceval.analysis.compare import compare

RNG = np.random.default_rng(52)
# 200 samples of a 2.5 us latency with 2% spread: the kind a quiet ping-pong point keeps
QUIET = 2.5 * RNG.lognormal(0.0, 0.02, 200)


def rec(samples, better="lower", bench="pingpong", metric="latency", disturbed=None,
        keep_samples=True, **params):
    x = np.asarray(samples, dtype=float)
    s, n = np.sort(x), len(x)
    lo, hi = max(0, n // 2 - int(n ** 0.5)), min(n - 1, n // 2 + int(n ** 0.5))
    r = {"benchmark": bench, "metric": metric, "params": params or {"bytes": 8},
         "unit": "us" if better == "lower" else "MB/s", "statistic": "median", "better": better,
         "converged": True,
         "stats": {"n": n, "min": s[0], "median": float(np.median(x)), "mean": x.mean(),
                   "max": s[-1], "stddev": x.std(ddof=1), "ci_low": s[lo], "ci_high": s[hi]}}
    if keep_samples:
        r["samples"] = x.tolist()
    if disturbed:
        r["extra"] = {"disturbed": disturbed}
    return r


def test_twenty_percent_slower_is_slower_with_its_interval():
    d = dec.decide(rec(QUIET), rec(1.2 * QUIET))
    assert d["verdict"] == dec.SLOWER and d["method"] == dec.BOOTSTRAP and d["why"] is None
    assert d["ratio"] == pytest.approx(1.2, rel=1e-12)
    assert 1.05 < d["low"] < 1.2 < d["high"] < 1.25
    # a bandwidth 20% lower is slower too, by the point's direction; 20% higher is faster
    bw = 8 / QUIET
    assert dec.decide(rec(bw, "higher"), rec(bw / 1.2, "higher"))["verdict"] == dec.SLOWER
    assert dec.decide(rec(bw, "higher"), rec(bw * 1.2, "higher"))["verdict"] == dec.FASTER
    assert dec.decide(rec(1.2 * QUIET), rec(QUIET))["verdict"] == dec.FASTER


def test_an_identical_distribution_is_the_same():
    d = dec.decide(rec(QUIET), rec(RNG.permutation(QUIET)))
    assert d["verdict"] == dec.SAME and d["ratio"] == 1.0
    assert 0.95 <= d["low"] <= 1.0 <= d["high"] <= 1.05
    # another draw of the same distribution: the same too
    assert dec.decide(rec(QUIET), rec(2.5 * RNG.lognormal(0.0, 0.02, 200)))["verdict"] == dec.SAME


def test_a_disturbed_point_is_decided_by_its_samples():
    why = "rank 1's core ran 1.46x slower than its fastest in this launch"
    assert dec.decide(rec(QUIET, disturbed=why), rec(QUIET, disturbed=why))["verdict"] == dec.SAME
    assert dec.decide(rec(QUIET), rec(1.2 * QUIET, disturbed=why))["verdict"] == dec.SLOWER


def test_a_wide_overlapping_spread_is_undecided_with_the_reason():
    wide = RNG.lognormal(0.0, 0.3, 30)
    d = dec.decide(rec(wide), rec(1.03 * RNG.permutation(wide), disturbed="preempted 40 times"))
    assert d["verdict"] == dec.UNDECIDED and d["low"] < 0.95 and d["high"] > 1.05
    assert d["why"].startswith("the interval is wider than the ±5% band (CV ")
    assert "this run disturbed (preemptions)" in d["why"]


def test_a_difference_about_the_tolerance_is_undecided():
    d = dec.decide(rec(QUIET), rec(1.05 * QUIET))
    assert d["verdict"] == dec.UNDECIDED and d["low"] < 1.05 < d["high"]
    assert "straddles the +5% edge" in d["why"]
    # a wider tolerance calls it the same, a narrower one slower
    assert dec.decide(rec(QUIET), rec(1.05 * QUIET), tolerance=0.1)["verdict"] == dec.SAME
    assert dec.decide(rec(QUIET), rec(1.05 * QUIET), tolerance=0.02)["verdict"] == dec.SLOWER


def test_points_without_samples_are_decided_from_their_stored_cis():
    d = dec.decide(rec(QUIET, keep_samples=False), rec(1.2 * QUIET, keep_samples=False))
    assert d["verdict"] == dec.SLOWER and d["method"] == dec.STORED_CIS
    assert d["low"] < 1.2 < d["high"]


def test_no_interval_from_too_few_samples_or_a_simulated_point():
    d = dec.decide(rec(QUIET[:5]), rec(1.2 * QUIET[:5]))
    assert d["verdict"] == dec.UNDECIDED
    assert d["why"] == "5 samples: an interval needs 6 on each side"
    sim = simulated(rec(1.1 * QUIET))
    d = dec.decide(rec(QUIET), sim)
    # a twin against the machine it models: its error as a ratio, never a verdict
    assert d["verdict"] == dec.NOT_COMPARABLE and d["low"] is None
    assert d["ratio"] == pytest.approx(1.1) and "never a verdict" in d["why"]


def simulated(r):
    r["extra"] = {**(r.get("extra") or {}), "where": {"placement": "simulated"}}
    return r


def test_a_twin_is_summarised_by_its_error_against_the_real_run():
    """Planted: a simulated run 2% off at three sizes and 30% off at one; as the later run and
    as the reference (the error is always simulated over real less 1)."""
    real = [rec(QUIET, bytes=b) for b in (8, 64, 1024, 4096)]
    sim = [simulated(rec(f * QUIET, bytes=b)) for f, b in zip((1.02, 0.98, 1.02, 1.3),
                                                              (8, 64, 1024, 4096))]
    for order in ((real, sim), (sim, real)):
        out = compare([run(1, order[0]), run(2, order[1])])
        e = out["summary"][1]["model_error"]
        assert e["points"] == 4 and e["within_10"] == 3 and e["within_20"] == 3
        assert e["median_abs"] == pytest.approx(0.02, rel=1e-6)
        assert e["worst"][0]["params"] == {"bytes": 4096}
        assert e["worst"][0]["error"] == pytest.approx(0.3, rel=1e-6)
        assert out["summary"][1]["verdicts"][dec.NOT_COMPARABLE] == 4
    # two real runs: no model error
    assert compare([run(1, real), run(2, real)])["summary"][1]["model_error"] is None


def test_the_interval_is_reproducible():
    a, b = rec(RNG.lognormal(0, 0.1, 50)), rec(RNG.lognormal(0, 0.1, 50))
    assert dec.decide(a, b) == dec.decide(a, b)


def run(i, recs):
    return {"id": i, "fingerprint": {"hash": "ab" * 8}, "records": recs}


def test_compare_decides_every_shared_point():
    benches = ("mem-latency", "stream", "pingpong")
    wide = RNG.lognormal(0.0, 0.3, 30)
    base = [rec(QUIET, bench="mem-latency"), rec(QUIET, bench="stream"),
            rec(wide, bench="pingpong")]
    other = [rec(1.2 * QUIET, bench="mem-latency"), rec(RNG.permutation(QUIET), bench="stream"),
             rec(1.03 * RNG.permutation(wide), bench="pingpong")]
    out = compare([run(1, base), run(2, other)])
    by = {r["benchmark"]: r for r in out["rows"]}
    assert [by[b]["verdicts"] for b in benches] == [
        ["baseline", dec.SLOWER], ["baseline", dec.SAME], ["baseline", dec.UNDECIDED]]
    slow = by["mem-latency"]
    assert slow["ratios"][1] == pytest.approx(1.2) and slow["intervals"][1][0] > 1.05
    assert slow["methods"] == [None, dec.BOOTSTRAP] and slow["why"] == [None, None]
    assert by["pingpong"]["why"][1].startswith("the interval is wider")
    assert out["summary"][1]["verdicts"] == {dec.FASTER: 0, dec.SLOWER: 1, dec.SAME: 1,
                                             dec.UNDECIDED: 1, dec.NOT_COMPARABLE: 0}
    assert out["tolerance"] == dec.TOLERANCE and out["interval"]["level"] == 0.95


@pytest.mark.filterwarnings("error")
def test_identical_samples_are_decided_not_undecided():
    """A simulated point's samples are all one value (tests/simulate/test_regression_planted.py):
    the interval is the ratio itself, and the verdict follows it, without a warning."""
    flat = [1.5] * 20
    same = dec.decide(rec(flat), rec(flat))
    assert same["verdict"] == dec.SAME and same["low"] == same["high"] == 1.0, same
    slow = dec.decide(rec(flat), rec([1.8] * 20))
    assert slow["verdict"] == dec.SLOWER, slow
    assert slow["low"] == pytest.approx(1.2) and slow["high"] == pytest.approx(1.2)
    near = dec.decide(rec(flat), rec([1.5 * 1.03] * 20))
    assert near["verdict"] == dec.SAME, near
