"""The tuned table's arithmetic (hpceval/analysis/tune.py) on made-up records."""
import pytest


def test_changes_are_counted_only_between_significant_bests():
    from hpceval.analysis.tune import tuned_table

    def rec(n, t, halo, ci=0.01):
        return {"benchmark": "barotropic", "metric": "iteration_time", "unit": "us",
                "statistic": "median", "better": "lower", "converged": True,
                "params": {"nx": 32, "ny": 32, "land": "none", "halo": halo, "sum": "allreduce",
                           "branch": 0, "P": n, "Q": 1, "mapping": "row"},
                "stats": {"n": 10, "median": t, "ci_low": t * (1 - ci), "ci_high": t * (1 + ci)}}
    rows = tuned_table([rec(1, 10.0, "pack"), rec(1, 10.05, "put"),        # noise on one rank
                        rec(2, 6.0, "put"), rec(2, 8.0, "pack"),
                        rec(4, 4.0, "pack"), rec(4, 5.0, "put")], "barotropic")
    assert [(r["ranks"], r["best"]["halo"], r["significant"], r["changed"]) for r in rows] == [
        (1, "pack", False, False), (2, "put", True, False), (4, "pack", True, True)]
    assert rows[1]["margin"] == pytest.approx(8.0 / 6.0 - 1)
