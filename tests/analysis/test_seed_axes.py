"""The seeds' axes (issue #49 item 4): a proxy's declared SeedAxis read from the records of its
best variant at each rung: psst's MFlop/s per processor and seconds per simulated day (the ORNL
study's Fig. 6), pop-step's simulated years per day (the X1 study's); and the report's figure of
them, a panel per axis."""
import pytest

from hpceval.analysis.scaling import PROXIES, seed_axis_rows


def _rec(metric, v, P, Q, transpose, unit):
    return {"benchmark": "psst", "metric": metric, "unit": unit, "statistic": "median",
            "better": "lower" if metric == "run_time" else "higher",
            "params": {"truncation": 21, "levels": 4, "test": 2, "P": P, "Q": Q,
                       "transpose": transpose, "sum": "allreduce", "mapping": "row"},
            "stats": {"median": v, "n": 5, "ci_low": v, "ci_high": v}}


def _variant(P, Q, transpose, seconds, flops=4.0e9, days=1.0):
    """A run of `days` simulated days taking `seconds`: its three records, as psst writes them."""
    return [_rec("run_time", seconds, P, Q, transpose, "s"),
            _rec("mflops", flops / seconds / 1e6, P, Q, transpose, "MFlop/s"),
            _rec("sim_days_per_day", days / (seconds / 86400.0), P, Q, transpose, "days/day")]


RECORDS = (_variant(1, 1, "alltoallv", 8.0) + _variant(1, 1, "pairwise", 9.0)
           + _variant(2, 1, "alltoallv", 5.0) + _variant(2, 1, "pairwise", 4.0)
           + _variant(2, 2, "alltoallv", 2.5) + _variant(2, 2, "pairwise", 3.0))


def test_the_best_variant_s_rate_per_processor_and_time_per_day():
    inverse, per_proc = PROXIES["psst"].scales.seed_axes
    days = seed_axis_rows(RECORDS, "psst", inverse)
    assert [(r["nranks"], r["best"]) for r in days] == [(1, "alltoallv/allreduce"),
                                                        (2, "pairwise/allreduce"),
                                                        (4, "alltoallv/allreduce")]
    # seconds per simulated day: the run's seconds over its one day
    assert [r["value"] for r in days] == pytest.approx([8.0, 4.0, 2.5])
    rates = seed_axis_rows(RECORDS, "psst", per_proc)
    assert [r["value"] for r in rates] == pytest.approx([500.0, 1000.0 / 2, 1600.0 / 4])
    assert all(r["rate_record"]["metric"] == "mflops" for r in rates)


def test_a_rung_without_the_rate_record_is_left_out():
    inverse, _ = PROXIES["psst"].scales.seed_axes
    recs = [r for r in RECORDS if not (r["metric"] == "sim_days_per_day" and r["params"]["P"] == 2
                                       and r["params"]["Q"] == 1)]
    assert [r["nranks"] for r in seed_axis_rows(recs, "psst", inverse)] == [1, 4]


def test_pop_step_declares_simulated_years_per_day():
    [axis] = PROXIES["pop-step"].scales.seed_axes
    assert (axis.metric, axis.per) == ("sim_years_per_day", "") and "X1" in axis.seed


def test_the_figure_has_a_panel_per_axis():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    [fig] = [f for f in FIGURES if f.benchmark == "psst" and "as the seeds drew it" in f.title]
    assert "Fig. 6" in fig.title
    axes = fig.make([{"id": 1, "records": RECORDS, "launches": [], "fingerprint": {}}]).axes
    assert [a.get_ylabel() for a in axes] == ["seconds per simulated day",
                                               "MFlop/s per processor (the serial model's count)"]
    assert [len(a.get_lines()) for a in axes] == [1, 1]
    assert list(axes[0].get_lines()[0].get_ydata()) == pytest.approx([8.0, 4.0, 2.5])
    assert fig.make([{"records": []}]) is None
