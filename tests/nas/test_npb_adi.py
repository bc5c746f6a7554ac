"""NAS BT and SP (npb-bt, npb-sp), NPB's ADI pseudo-applications: class S verifies against NPB
3.4's residual and error norms on 1 and 4 ranks (NPB's square rule: grids 1x1 and 2x2) under
Open MPI and MPICH (larger classes: benchmarks/nas_ab.py); planned, measured, carded and drawn
through `hpceval run` (bad usage and a corrupted solution: test_npb_failures.py)."""
import pytest

from helpers import FAST
from kernel_helpers import mpirun
from npb_checks import assert_plan_refused, assert_run_carded_and_drawn, launch_mpich, time_record

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
# NPB 3.4 BT/verify.f90 and SP/verify.f90, class S (xcrref, xceref of the runs without I/O)
REF = {"npb-bt": ([1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02,
                   2.6436421275166801e-02, 1.9211784131744430e-01],
                  [4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05,
                   7.3821238632439731e-05, 8.9269630987491446e-04]),
       "npb-sp": ([2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02,
                   1.5840557224455615e-02, 3.4849040609362460e-02],
                  [2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05,
                   1.5750704994480102e-05, 3.4177666183390531e-05])}
# n, niter, dt, NPB's operation count per step (bt.f90, sp.f90)
SIZE = {"npb-bt": (12, 60, 0.01, lambda n: 3478.8 * n ** 3 - 17655.7 * n ** 2 + 28023.7 * n),
        "npb-sp": (12, 100, 0.015,
                   lambda n: 881.174 * n ** 3 - 4683.91 * n ** 2 + 11484.5 * n - 19272.4)}
PHASES = {"rhs": "compute", "norm": "compute", "halo": "comm", "pipeline": "comm",
          "reduce": "comm", "xsolve": "compute", "ysolve": "compute", "zsolve": "compute",
          "add": "compute"}


def by_metric(recs):
    return {r["metric"]: r for r in recs if r["type"] == "result"}


@pytest.mark.parametrize("bench", ["npb-bt", "npb-sp"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("np", [1, 4])
def test_class_s_verifies_against_npb(bench, mpi, np):
    args = ("--class", "S", *TINY)
    p, recs = mpirun(bench, np, *args) if mpi == "openmpi" else launch_mpich(bench, np, *args)
    assert p.returncode == 0, p.stderr
    [meta] = [r for r in recs if r["type"] == "meta"]
    assert meta["mpi_library"].startswith("Open MPI" if mpi == "openmpi" else "MPICH")
    res = by_metric(recs)
    assert set(res) == {"mops", "run_time"}
    n, niter, dt, ops = SIZE[bench]
    rsd, err = REF[bench]
    for r in res.values():
        assert r["params"] == {"class": "S", "n": n, "niter": niter, "ranks": np}
        assert (r["xdim"], r["ydim"]) == {1: (1, 1), 4: (2, 2)}[np]
        assert r["rsdnm_ref"] == rsd and r["errnm_ref"] == err and "frc" not in r
        assert r["epsilon"] == 1e-8 and r["dt"] == dt
        assert r["verified"] is True and r["check"] == "ok"
        assert f"{bench[4:].upper()}/verify.f90" in r["verify_source"]
        errs = ([abs(a / b - 1) for a, b in zip(r["rsdnm"], rsd)]
                + [abs(a / b - 1) for a, b in zip(r["errnm"], err)])
        assert r["rel_err"] == pytest.approx(max(errs), rel=1e-3, abs=1e-15)
        assert r["rel_err"] < 1e-10   # NPB asks 1e-8; round-off only on any grid
    t = res["run_time"]["stats"]["median"]
    assert res["mops"]["stats"]["median"] == pytest.approx(niter * ops(n) / t / 1e6, rel=1e-5)


@pytest.mark.parametrize("bench", ["npb-bt", "npb-sp"])
def test_time_record_has_every_ranks_phases(bench):
    r = time_record(bench, 4, PHASES)
    # a 2 x 2 grid: every rank passes lines to and from its neighbours
    assert all(x > 0 for x in r["phases"]["pipeline"]["per_rank"])


@pytest.mark.parametrize("bench,what", [("npb-bt", "NAS BT (NPB)"), ("npb-sp", "NAS SP (NPB)")])
def test_run_card_headline_and_figure(cli, tmp_path, bench, what):
    assert_run_carded_and_drawn(cli, tmp_path, bench, what, FAST, np=1)


@pytest.mark.parametrize("bench,ranks,msg", [
    ("npb-bt", "2", "npb-bt: 2 ranks: NPB runs it on a square number of ranks (1, 4, 9, 16, ...)"),
    ("npb-sp", "25", "npb-sp: class S (12^3) is too small for 25 ranks (a 5 x 5 grid): at least "
                     "3 points a rank in i and j"),
])
def test_plan_refusals(cli, bench, ranks, msg):
    assert_plan_refused(cli, bench, ranks, msg, FAST)
