"""The C harness's statistics and repetition control (csrc/harness/stats.c, sampler.c), checked
against numpy and the binomial distribution through csrc/tests/stats_probe.c."""
import json
import subprocess

import numpy as np
import pytest
from scipy.stats import binom

from helpers import ROOT

PROBE = ROOT / "build" / "tests" / "stats_probe"


def probe(rep: str, samples) -> dict:
    text = rep + "\n" + "\n".join(repr(float(x)) for x in samples) + "\n"
    p = subprocess.run([str(PROBE)], input=text, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("n", [1, 2, 5, 6, 7, 50, 51, 400])
def test_summary_matches_numpy(n):
    x = np.random.default_rng(n).lognormal(0.0, 0.5, n)
    r = probe(f"0 {n} {n} 0 1e9", x)
    assert r["n"] == n and r["consumed"] == n
    assert r["min"] == x.min() and r["max"] == x.max()
    assert r["median"] == pytest.approx(np.median(x), rel=1e-15)
    assert r["mean"] == pytest.approx(x.mean(), rel=1e-12)
    assert r["stddev"] == pytest.approx(x.std(ddof=1) if n > 1 else 0.0, rel=1e-12)
    assert r["ci_low"] <= r["median"] <= r["ci_high"]
    if n < 6:
        assert (r["ci_low"], r["ci_high"]) == (x.min(), x.max())


def test_median_ci_covers_95_percent():
    ranks = probe("0 1 1 0 1e9", [1.0])["ranks"]
    for n in range(6, 201):
        lo, hi = ranks[n - 1]
        # The true median lies in [x_(lo), x_(hi)] when lo <= B < hi, B ~ Binomial(n, 1/2)
        # counting samples below it.
        coverage = binom.cdf(hi - 1, n, 0.5) - binom.cdf(lo - 1, n, 0.5)
        assert 0.93 <= coverage <= 0.995, (n, lo, hi, coverage)


def test_sampler_stops_when_the_ci_is_tight():
    # warm-up 3 discarded, then constant samples: converged at min_reps
    r = probe("3 10 1000 0.01 1e9", [100.0] * 3 + [1.0] * 500)
    assert r["consumed"] == 13 and r["n"] == 10 and r["converged"] == 1
    assert r["min"] == r["max"] == 1.0          # the warm-up samples were discarded


def test_sampler_stops_at_max_reps_when_noisy():
    x = np.random.default_rng(1).uniform(1, 100, 1000)
    r = probe("0 5 40 0.001 1e9", x)
    assert r["consumed"] == 40 and r["n"] == 40 and r["converged"] == 0


def test_sampler_respects_the_time_budget():
    # budget 0 with min-reps 1: one kept sample after warm-up, whatever the noise
    r = probe("2 1 1000 0.001 0", np.random.default_rng(2).uniform(1, 2, 100))
    assert r["n"] == 1 and r["consumed"] == 3 and r["converged"] == 0


def test_budget_never_cuts_a_point_below_min_reps():
    # budget 0, min-reps 10: the minimum is kept (the memory suite's STREAM best once rested
    # on n = 1), and not one sample more
    r = probe("2 10 1000 0.001 0", np.random.default_rng(3).uniform(1, 2, 100))
    assert r["n"] == 10 and r["consumed"] == 12 and r["converged"] == 0


def test_the_stats_keep_their_samples_for_the_record():
    # up to 1000 samples: every one, in the order taken (the record's "samples")
    x = np.random.default_rng(3).lognormal(0.0, 0.5, 50)
    assert probe("0 50 50 0 1e9", x)["kept"] == x.tolist()
    # more: 1000 order statistics spread evenly over the sorted samples, min and max among them
    x = np.random.default_rng(4).lognormal(0.0, 0.5, 2500)
    kept = probe("0 2500 2500 0 1e9", x)["kept"]
    ranks = np.floor(np.arange(1000) * 2499 / 999 + 0.5).astype(int)
    assert kept == np.sort(x)[ranks].tolist() and kept[0] == x.min() and kept[-1] == x.max()
