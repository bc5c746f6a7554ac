"""NAS LU (npb-lu): class S verifies against NPB 3.4's residual and error norms and surface
integral on 1, 2 and 4 ranks under Open MPI and MPICH (NPB's 2-D grids 1x1, 2x1, 2x2); the
records carry the verification; planned, measured, carded and drawn through `hpceval run` (bad
usage and a corrupted solution: test_npb_failures.py)."""
import pytest

from helpers import FAST
from hpceval.catalog.bench_npb_lu import proc_grid
from kernel_helpers import mpirun
from npb_checks import assert_plan_refused, assert_run_carded_and_drawn, launch_mpich, time_record

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
# NPB 3.4 LU/verify.f90, class S (xcrref, xceref, xciref)
RSD_S = [1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03,
         1.5029584435994323e-03, 3.4264073155896461e-02]
ERR_S = [6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05,
         5.8474222595157350e-05, 1.3103347914111294e-03]
FRC_S = 7.8418928865937083e+00
PHASES = {"rhs": "compute", "lower": "compute", "upper": "compute", "update": "compute",
          "norm": "compute", "halo": "comm", "pipeline": "comm", "reduce": "comm"}


def launch(np, *args, timeout=60):
    return mpirun("npb-lu", np, *args, timeout=timeout)


def by_metric(recs):
    return {r["metric"]: r for r in recs if r["type"] == "result"}


def rel(a, b):
    return abs(a / b - 1)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("np", [1, 2, 4])
def test_class_s_verifies_against_npb(mpi, np):
    p, recs = (launch(np, "--class", "S", *TINY) if mpi == "openmpi"
               else launch_mpich("npb-lu", np, "--class", "S", *TINY))
    assert p.returncode == 0, p.stderr
    [meta] = [r for r in recs if r["type"] == "meta"]
    assert meta["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    res = by_metric(recs)
    assert set(res) == {"mops", "run_time"}
    xdim, ydim = proc_grid(np)
    for r in res.values():
        assert r["params"] == {"class": "S", "n": 12, "itmax": 50, "ranks": np}
        assert (r["xdim"], r["ydim"]) == (xdim, ydim) == {1: (1, 1), 2: (2, 1), 4: (2, 2)}[np]
        assert r["rsdnm_ref"] == RSD_S and r["errnm_ref"] == ERR_S and r["frc_ref"] == FRC_S
        assert r["epsilon"] == 1e-8 and r["dt"] == 0.5
        assert r["verified"] is True and r["check"] == "ok"
        assert "verify.f90" in r["verify_source"]
        # NPB asks 1e-8 of each; the same arithmetic on any grid gives round-off only
        errs = ([rel(a, b) for a, b in zip(r["rsdnm"], RSD_S)]
                + [rel(a, b) for a, b in zip(r["errnm"], ERR_S)] + [rel(r["frc"], FRC_S)])
        assert r["rel_err"] == pytest.approx(max(errs), rel=1e-3, abs=1e-15)
        assert r["rel_err"] < 1e-10
    # one sample: Mop/s is NPB's operation count over that sample's time
    t = res["run_time"]["stats"]["median"]
    ops = 50 * (1984.77 * 12 ** 3 - 10923.3 * 12 ** 2 + 27770.9 * 12 - 144010)
    assert res["mops"]["stats"]["median"] == pytest.approx(ops / t / 1e6, rel=1e-5)


def test_time_record_has_every_ranks_phases():
    r = time_record("npb-lu", 4, PHASES)
    # a 2 x 2 grid: every rank exchanges halos and waits in the wavefront
    assert all(x > 0 for x in r["phases"]["halo"]["per_rank"])
    assert all(x > 0 for x in r["phases"]["pipeline"]["per_rank"])


def test_run_card_headline_and_figure(cli, tmp_path):
    assert_run_carded_and_drawn(cli, tmp_path, "npb-lu", "NAS LU (NPB)", FAST)


@pytest.mark.parametrize("ranks,msg", [
    ("3", "npb-lu: 3 ranks: NPB runs on a power of two ranks (1, 2, 4, 8, ...)"),
    ("32", "npb-lu: class S (12^3) is too small for 32 ranks (a 8 x 4 grid): at least 3 points "
           "a rank in i and j"),
])
def test_plan_refusals(cli, ranks, msg):
    assert_plan_refused(cli, "npb-lu", ranks, msg, FAST)


def test_proc_grid_is_npbs():
    # NPB's proc_grid: ydim the largest power of two with ydim^2 <= P, xdim = P / ydim
    assert [proc_grid(p) for p in (1, 2, 4, 8, 16, 32, 64)] == [
        (1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (8, 4), (8, 8)]
