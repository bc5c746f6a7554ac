"""The run-to-run spread of one machine's points (hpceval/analysis/runspread.py): the standard
deviation of the log values over the runs, Student's t for few runs, simulated runs and points
of fewer than 3 runs left out; the reference machine's runs chosen from the store's rows."""
import math

import numpy as np
import pytest
from scipy import stats

from hpceval.analysis import runspread


def _run(values, simulated=False):
    recs = [{"benchmark": "pingpong", "metric": "latency", "params": {"bytes": b},
             "unit": "us", "statistic": "median", "better": "lower", "converged": True,
             "stats": {"n": 10, "median": v}} for b, v in values.items()]
    fp = {"hash": "ab" * 8, **({"simulated": {"nodes": 2, "ppn": 1}} if simulated else {})}
    return {"records": recs, "fingerprint": fp}


def test_spread_is_the_sd_of_log_values_with_t_for_few_runs():
    levels = [2.0, 2.2, 1.9, 2.1, 2.05]
    got = runspread.spreads([_run({8: v, 64: 3.0}) for v in levels])
    key = ("pingpong", "latency", '{"bytes": 8}')
    sd = float(np.std(np.log(levels), ddof=1))
    assert got[key].runs == 5 and got[key].sd_log == pytest.approx(sd, rel=1e-12)
    assert got[key].half_width() == pytest.approx(stats.t.ppf(0.975, 4) * math.sqrt(2) * sd)
    assert got[("pingpong", "latency", '{"bytes": 64}')].sd_log == pytest.approx(0.0, abs=1e-15)
    assert runspread.describe(got[key]) == f"{100 * math.expm1(sd):.2g}% over 5 runs of this machine"


def test_too_few_runs_and_simulated_runs_give_no_spread():
    assert runspread.spreads([_run({8: 2.0}), _run({8: 2.2})]) == {}
    sim = [_run({8: v}, simulated=True) for v in (2.0, 2.5, 3.0)]
    assert runspread.spreads(sim) == {}
    # a point only some runs measured counts only where it has 3
    got = runspread.spreads([_run({8: 2.0, 64: 1.0}), _run({8: 2.1}), _run({8: 2.2, 64: 1.1})])
    assert [k[2] for k in got] == ['{"bytes": 8}']


def test_history_runs_are_the_reference_machines_but_the_judged():
    rows = [{"id": i, "fp_hash": "ab" * 8 if i != 4 else "cd" * 8} for i in range(1, 9)]
    ref = {"id": 5, "fingerprint": {"hash": "ab" * 8}}
    assert runspread.history_runs(rows, ref, [7]) == [1, 2, 3, 5, 6, 8]
    assert runspread.history_runs(rows, ref, [7], limit=3) == [5, 6, 8]
    assert runspread.history_runs(rows, {"id": 5, "fingerprint": {}}, []) == []
