"""The PCTM-like coupled model on 1, 2 and 4 ranks, both layouts, Open MPI and MPICH: the
coupler's two regriddings keep their global integrals to round-off, the atmosphere stays on test
case 2's steady state, the ocean's volume budget closes within the solver's tolerance, the land
and ice columns are the same set on every decomposition; the concurrent split covers the ranks;
a damaged flux fails loudly and bad options are refused in one line."""

import pytest

from kernel_helpers import assert_check_fails, assert_usage_error, mpich_run, mpirun

SMALL = ["--ocean", "32x24", "--truncation", "10", "--days", "0.5", "--ocn-steps", "1", "--tol", "1e-5"]
TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
COMPONENTS = ["atmosphere", "ocean", "land", "ice", "regrid", "coupler"]


def mpich(np, *args, timeout=60):
    return mpich_run("pctm", np, *args, timeout=timeout)


def openmpi(np, *args, timeout=60):
    return mpirun("pctm", np, *args, timeout=timeout)


def coupled(run, np):
    layouts = "sequential" if np == 1 else "sequential,concurrent"
    # MPICH's waiting ranks poll the 2 cores away from 4 busy ones: its ocean on one rank there
    # (the balanced split is Open MPI's part)
    split = ["--ocean-ranks", "1"] if run is mpich and np > 1 else []
    p, recs = run(np, *SMALL, "--layouts", layouts, *split, *TINY)
    assert p.returncode == 0, p.stderr
    return [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("run", [openmpi, mpich], ids=["openmpi", "mpich"])
@pytest.mark.parametrize("np", [1, 2, 4])
def test_both_layouts_conserve_and_check(run, np):
    recs = coupled(run, np)
    times = [r for r in recs if r["metric"] == "run_time"]
    years = [r for r in recs if r["metric"] == "sim_years_per_day"]
    assert [r["params"]["layout"] for r in years] == (["sequential"] if np == 1 else
                                                      ["sequential", "concurrent"])
    for r in recs:
        assert r["check"] == "ok" and r["params"]["ranks"] == np and r["intervals"] == 2
        assert r["coupler_max_rel_diff"] < 1e-12
        assert r["atm_height_error"] < 1e-11
        assert r["ocean_budget_error"] <= r["ocean_budget_bound"]
        assert r["ocean_iters_per_step"] > 0
        # the columns are the Gaussian grid's land and polar cells whoever holds them
        assert (r["land_columns"], r["ice_columns"]) == (recs[0]["land_columns"], 128)
    for r in years:
        p = r["params"]
        if p["layout"] == "concurrent":
            assert p["ocean_ranks"] + p["atm_ranks"] == np and p["ocean_ranks"] >= 1
        else:
            assert p["ocean_ranks"] == p["atm_ranks"] == np
        assert r["stats"]["median"] > 0
    for r in times:  # every rank's time per component; the slowest rank's in *_s_per_day
        assert list(r["phases"]) == COMPONENTS and len(r["wall_per_rank"]) == np
        for c in COMPONENTS:
            assert max(r["phases"][c]["per_rank"]) == pytest.approx(r[f"{c}_s_per_day"],
                                                                     rel=1e-5)


def test_the_split_follows_the_ocean_ranks_given():
    p, recs = openmpi(4, *SMALL, "--layouts", "concurrent", "--ocean-ranks", "1", *TINY)
    assert p.returncode == 0, p.stderr
    r = next(r for r in recs if r["type"] == "result")
    assert (r["params"]["ocean_ranks"], r["params"]["atm_ranks"]) == (1, 3)
    assert r["atm_grid"] == "1x3" and r["ocean_blocks"] == "1x1"


@pytest.mark.parametrize("run", [openmpi, mpich], ids=["openmpi", "mpich"])
def test_a_damaged_flux_fails_with_either_mpi(run):
    p, recs = run(2, *SMALL, "--inject", "corrupt", *TINY)
    assert_check_fails(p, recs, "pctm: the coupler's atmosphere-to-ocean flux, interval 0")


@pytest.mark.parametrize("args,msg", [
    (["--layouts", "concurrent"], "the concurrent layout needs at least 2 ranks"),
    (["--atm-steps", "1"], "beyond T10's stable"),
    (["--days", "0.3"], "is not a whole number of 6 h coupling intervals"),
    (["--ocean", "4x4"], "option --ocean: 4x4 is outside"),
    (["--ocean", "32x24,64x48"], "option --ocean: one grid"),
])
def test_bad_options_one_line(args, msg):
    p, _ = openmpi(0, *SMALL, *args)
    assert_usage_error(p, msg, alone=True)


def test_a_split_that_does_not_fit_is_refused():
    p, _ = openmpi(2, *SMALL, "--ocean-ranks", "2")
    assert_usage_error(p, "--ocean-ranks 2 does not split 2 ranks", alone=False)
