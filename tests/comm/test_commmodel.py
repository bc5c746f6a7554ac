"""The piecewise Hockney fit: recovers known parameters and breakpoints from noisy data."""
import numpy as np
import pytest

from hpceval.analysis.commmodel import fit_piecewise, message_times, run_models

SIZES = np.array(sorted({2 ** k for k in range(0, 23)} | {3 * 2 ** k for k in range(0, 21)}),
                 dtype=float)


def synthetic(regions, noise, seed):
    """regions: [(n_hi, t0, r_inf)]; times with multiplicative Gaussian noise."""
    rng = np.random.default_rng(seed)
    t = np.empty_like(SIZES)
    lo = 0
    for n_hi, t0, r in regions:
        m = (SIZES > lo) & (SIZES <= n_hi)
        t[m] = t0 + SIZES[m] / r
        lo = n_hi
    return t * (1 + noise * rng.standard_normal(len(t)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recovers_eager_rendezvous_switches(seed):
    truth = [(4096, 0.2, 3000.0), (65536, 2.0, 6000.0), (np.inf, 10.0, 9000.0)]
    m = fit_piecewise(SIZES, synthetic(truth, 0.02, seed))
    assert m.breakpoints == [(4096, 6144), (65536, 98304)]
    for reg, (_, t0, r) in zip(m.regions, truth):
        assert reg.t0 == pytest.approx(t0, rel=0.15)
        assert reg.r_inf == pytest.approx(r, rel=0.1)
        assert reg.n_half == pytest.approx(reg.t0 * reg.r_inf)
    assert m.rms_rel < 0.04


def test_no_breakpoint_in_a_straight_line():
    m = fit_piecewise(SIZES, synthetic([(np.inf, 1.0, 5000.0)], 0.03, 7))
    assert m.breakpoints == [] and len(m.regions) == 1
    assert m.regions[0].r_inf == pytest.approx(5000, rel=0.05)


def test_outliers_neither_drag_nor_split():
    t = synthetic([(8192, 0.5, 4000.0), (np.inf, 5.0, 8000.0)], 0.01, 11)
    t[[5, 30]] *= 40   # two disturbed samples, as a busy shared machine gives
    m = fit_piecewise(SIZES, t)
    assert m.breakpoints == [(8192, 12288)]
    assert m.regions[1].r_inf == pytest.approx(8000, rel=0.1)


def test_saw_tooth_is_exposed_as_regions():
    # SP2-like: the time jumps at every 16 KiB (a packet refill), a line within each tooth
    n = np.arange(1024, 65537, 1024, dtype=float)
    t = 10 + n / 100.0 + 40 * (n // 16384 - (n % 16384 == 0))
    m = fit_piecewise(n, t, max_regions=4)
    assert [b for b, _ in m.breakpoints] == [16384, 32768, 49152]


def test_models_from_a_run():
    recs = []
    for b, t in zip(SIZES.astype(int), synthetic([(4096, 0.2, 3000.0), (np.inf, 2.0, 9000.0)],
                                                  0.01, 5)):
        recs.append({"benchmark": "p2p", "metric": "latency", "params": {
            "bytes": int(b), "mode": "pingpong", "protocol": "send", "pattern": "0-1"},
            "stats": {"median": float(t)}})
        recs.append({"benchmark": "p2p", "metric": "bandwidth", "params": {
            "bytes": int(b), "mode": "stream", "protocol": "isend", "pattern": "0-1", "window": 64},
            "stats": {"median": float(b / t)}})
    run = {"records": recs}
    assert set(message_times(run)) == {"p2p pingpong send", "p2p stream isend"}
    models = run_models(run)
    assert models["p2p pingpong send"].breakpoints == [(4096, 6144)]
    assert models["p2p stream isend"].regions[-1].r_inf == pytest.approx(9000, rel=0.1)


def test_too_few_points():
    with pytest.raises(ValueError):
        fit_piecewise([8], [1.0])
