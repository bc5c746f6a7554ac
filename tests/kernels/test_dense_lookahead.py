"""hpceval's own LU with look-ahead (csrc/kernels/lib/dense_lookahead.c, dense --solver
lookahead): real systems on 1 x Q grids, solved by ScaLAPACK's pdgetrs from its factors and
checked by HPL's residual on every sample; orders that are not a multiple of NB (a narrow last
panel) and panels owned by every rank in turn; the residual failing a perturbed solution; the
kinds and grids it cannot do refused in one line, by the binary and by the plan."""
from __future__ import annotations

import pytest

from kernel_helpers import mpirun, results

from hpceval.analysis.tune import tuned_table


def _gflops(recs):
    return {(r["params"]["n"], r["params"]["Q"]): r for r in results(recs)
            if r["metric"] == "gflops"}


@pytest.mark.parametrize("np_", [1, 2, 3])
def test_verified_on_1_to_3_ranks(bindir, np_):
    p, recs = mpirun("dense", np_, "--kinds", "real", "--solver", "lookahead", "--n",
                     "200,301", "--nb", "32", "--grids", f"1x{np_}", "--warmup", "0",
                     "--min-reps", "2", "--max-reps", "2", timeout=120)
    assert p.returncode == 0, p.stderr
    got = _gflops(recs)
    assert set(got) == {(200, np_), (301, np_)}
    for r in got.values():
        assert r["params"]["solver"] == "lookahead" and r["params"]["routine"] == "pdgesv"
        assert r["verified"] is True and 0 <= r["residual"] < 16
        assert r["stats"]["n"] == 2


def test_same_residual_scale_as_scalapack(bindir):
    """Both factorisations pivot by the same rule on the same matrix: their residuals are of
    the same (tiny) size, ScaLAPACK's records say no solver, and the tuned table ranks the two
    as two choices."""
    runs, both = {}, []
    for solver in ("scalapack", "lookahead"):
        p, recs = mpirun("dense", 2, "--kinds", "real", "--solver", solver, "--n", "257",
                         "--nb", "16", "--grids", "1x2", "--warmup", "0", "--min-reps", "1",
                         "--max-reps", "1")
        assert p.returncode == 0, p.stderr
        (runs[solver],) = _gflops(recs).values()
        both += results(recs)
    assert "solver" not in runs["scalapack"]["params"]
    a, b = (runs[s]["residual"] for s in ("scalapack", "lookahead"))
    assert 0 < b < 16 and b < 100 * a
    # `tune dense` tells the two factorisations apart: two candidates of one problem
    (row,) = tuned_table(both, "dense")
    assert row["candidates"] == 2
    assert {row["best_name"], row["runner_up_name"]} == {"NB 16 1x2", "NB 16 1x2 lookahead"}


def test_a_perturbed_solution_fails_the_residual(bindir):
    p, recs = mpirun("dense", 2, "--kinds", "real", "--solver", "lookahead", "--n", "240",
                     "--nb", "32", "--grids", "1x2", "--inject", "corrupt", "--warmup", "0",
                     "--min-reps", "2", "--max-reps", "2")
    assert p.returncode == 1, p.stderr
    assert "HPL's scaled residual" in p.stderr and "exceeds the bound 16" in p.stderr
    assert not results(recs)


@pytest.mark.parametrize("args,msg", [
    (["--kinds", "complex"], "option --solver lookahead: real systems only"),
    (["--kinds", "real", "--grids", "2x1"], "option --solver lookahead: 1 x Q grids only "
                                            "(grid 2x1)"),
])
def test_what_it_cannot_do_exits_2_with_one_line(bindir, args, msg):
    p, recs = mpirun("dense", 2, "--solver", "lookahead", "--n", "100", *args)
    assert p.returncode == 2
    assert msg in p.stderr
    assert not results(recs)


def test_the_plan_refuses_before_launching(cli):
    p = cli("run", "dense", "--np", "2", "--set", "dense.solver=lookahead", "--set",
            "dense.n=200")
    assert p.returncode == 2
    assert p.stderr.strip() == ("hpceval: error: dense: --set solver=lookahead solves real "
                                "systems on 1 x Q grids (--set kind=real --set grids=1xQ)")
