"""POP's whole time step on 1, 2 and 4 ranks, Open MPI and MPICH, every process grid: the
tracers kept to round-off, the state of rank 0's one-block run reproduced on every
decomposition and 3-D halo variant; records whose phases add up and whose years per day and
phase split follow from the step; a corrupted state and bad options refused."""

import pytest

from kernel_helpers import (assert_check_fails, assert_phases_within_loop, assert_usage_error,
                            mpich_run, mpirun)

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
GRID = ["--grids", "24x16x5", "--steps", "6"]
METRICS = {"step_time", "sim_years_per_day", "barotropic_share", "barotropic_time",
           "baroclinic_time"}
PHASES = {"compute": "compute", "halo": "comm", "copy": "copy", "global_sum": "comm",
          "clinic": "compute", "clinic_halo": "comm", "clinic_copy": "copy", "vmix": "compute"}


def launch(np, *args, timeout=90):
    return mpirun("pop-step", np, *args, timeout=timeout)


def mpich(np, *args, timeout=90):
    return mpich_run("pop-step", np, *args, timeout=timeout)


def steps(recs):
    return [r for r in recs if r["type"] == "result" and r["metric"] == "step_time"]


def verified(np, *extra, run=launch, pgrids="all", grid=GRID, clinics="levels,aggregate"):
    p, recs = run(np, *grid, "--pgrids", pgrids, "--clinic-halos", clinics, *extra, *TINY)
    assert p.returncode == 0, p.stderr
    recs = steps(recs)
    grids = {(r["params"]["P"], r["params"]["Q"]) for r in recs}
    assert grids == ({(p, np // p) for p in range(1, np + 1) if np % p == 0} if pgrids == "all"
                     else {tuple(map(int, pgrids.split("x")))})
    for r in recs:
        assert r["conservation_bound"] == 1e-12 and r["bound"] == 1e-6
        assert r["T_rel_change"] <= 1e-13 and r["S_rel_change"] <= 1e-13
        # only the solver's sums differ in order: the state agrees far inside the bound
        assert r["max_rel_diff_vs_one_rank"] < 1e-12
        assert r["solver_iterations_per_step"] > 1
    return recs


@pytest.mark.parametrize("np", [1, 2, 4])
def test_every_decomposition_keeps_the_tracers_and_the_one_rank_state(np):
    recs = verified(np)
    assert {r["params"]["clinic_halo"] for r in recs} == {"levels", "aggregate"}
    if np == 1:  # the same code on the same block: the same bits
        assert {r["max_rel_diff_vs_one_rank"] for r in recs} == {0}


# One process grid and 3-D halo each, fewer steps: MPICH's ranks busy-poll, and 4 of them on 2
# cores took 50 s for every grid and halo.
@pytest.mark.parametrize("np,pgrids", [(1, "1x1"), (2, "1x2"), (4, "2x2")])
def test_mpich_gives_the_same_verified_state(np, pgrids):
    verified(np, run=mpich, pgrids=pgrids, grid=["--grids", "24x16x5", "--steps", "3"],
             clinics="levels")


def test_solver_variants_give_the_same_state():
    recs = verified(2, "--halos", "datatype,put", "--sums", "tree,onesided")
    assert {(r["params"]["halo"], r["params"]["sum"], r["params"]["branch"]) for r in recs} == \
        {(h, s, 4 if s == "tree" else 0) for h in ("datatype", "put") for s in ("tree", "onesided")}


@pytest.mark.parametrize("np", [2, 4])
def test_the_globally_addressable_solver_variants_give_the_same_state(np):
    """The X1 study's Co-Array Fortran halo update and global sum, with OpenSHMEM's pairwise
    flags and in Co-Array Fortran itself, inside the whole step as inside barotropic: every
    process grid keeps the tracers and the one-rank state, the solver's iterations unchanged by
    the halo variant."""
    halos, sums = ("pack", "shmem", "caf"), ("allreduce", "shmem", "caf")
    recs = verified(np, "--halos", ",".join(halos), "--sums", ",".join(sums),
                    clinics="aggregate")
    assert {(r["params"]["halo"], r["params"]["sum"]) for r in recs} == {
        (h, s) for h in halos for s in sums}
    iters = {}
    for r in recs:
        key = (r["params"]["P"], r["params"]["Q"], r["params"]["mapping"], r["params"]["sum"])
        iters.setdefault(key, set()).add(r["solver_iterations_per_step"])
    assert all(len(v) == 1 for v in iters.values()), iters


@pytest.mark.parametrize("variant", ["shmem", "caf"])
def test_a_corrupted_state_is_caught(variant):
    p, recs = launch(2, *GRID, "--pgrids", "2x1", "--halos", variant, "--sums", variant,
                     "--clinic-halos", "aggregate", "--inject", "corrupt", *TINY)
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert f"halo {variant}, sum {variant}" in err["message"]
    assert "volume integral" in err["message"]


def test_mpich_refuses_shmem_by_name_and_leaves_it_out_of_all():
    p, recs = mpich(2, *GRID, "--pgrids", "2x1", "--halos", "shmem", *TINY)
    assert p.returncode == 2 and "shmem needs a build with OpenSHMEM" in p.stderr
    p, recs = mpich(2, "--grids", "24x16x5", "--steps", "2", "--pgrids", "2x1", "--halos", "all",
                    "--clinic-halos", "levels", "--mappings", "row", *TINY)
    assert p.returncode == 0, p.stderr
    assert {r["params"]["halo"] for r in steps(recs)} == {"datatype", "pack", "put"}


def test_records_match_the_format():
    p, recs = launch(2, *GRID, "--pgrids", "2x1", "--clinic-halos", "aggregate",
                     "--min-reps", "3", "--max-reps", "3", "--warmup", "1")
    assert p.returncode == 0, p.stderr
    res = {r["metric"]: r for r in recs if r["type"] == "result"}
    assert set(res) == METRICS
    st, ypd, share, bt, bc = (res[k] for k in ("step_time", "sim_years_per_day",
                                               "barotropic_share", "barotropic_time",
                                               "baroclinic_time"))
    assert st["params"] == share["params"] == {
        "nx": 24, "ny": 16, "nz": 5, "P": 2, "Q": 1, "mapping": "row", "clinic_halo": "aggregate",
        "halo": "pack", "sum": "allreduce", "branch": 0, "land": "continents", "steps": 6,
        "dt_s": 1920}
    assert [res[k]["unit"] for k in ("step_time", "sim_years_per_day", "barotropic_share")] == \
        ["ms", "years/day", "%"]
    assert ypd["better"] == "higher" and st["better"] == bt["better"] == "lower"
    assert all(r["stats"]["n"] == 3 for r in res.values())
    # years per day = dt / step time / 365, sample by sample
    assert ypd["stats"]["max"] == pytest.approx(1920 / (st["stats"]["min"] * 1e-3) / 365,
                                                rel=1e-4)
    # the share is the barotropic part of the two phases' rank-mean times, sample by sample:
    # each sample's share lies within what the phases' extremes allow, and so does its median
    # (the ratio of the medians is no bound: a preempted sample moves one phase, not the other)
    b, c = bt["stats"], bc["stats"]
    low, high = 100 * b["min"] / (b["min"] + c["max"]), 100 * b["max"] / (b["max"] + c["min"])
    assert low * (1 - 1e-9) <= share["stats"]["median"] <= high * (1 + 1e-9)
    assert 0 < share["stats"]["min"] <= share["stats"]["max"] < 100
    for name, kind in PHASES.items():
        assert st["phases"][name]["kind"] == kind and len(st["phases"][name]["per_rank"]) == 2
    assert_phases_within_loop(st, PHASES)
    assert 0 < st["ocean_columns"] < 24 * 16


def test_no_reference_beyond_ref_max_but_conservation_still_checked():
    p, recs = launch(2, *GRID, "--ref-max", "100", "--clinic-halos", "aggregate", *TINY)
    assert p.returncode == 0, p.stderr
    for r in steps(recs):
        assert "max_rel_diff_vs_one_rank" not in r and r["T_rel_change"] <= 1e-13


def test_a_long_run_stays_finite_and_conservative():
    p, recs = launch(1, "--grids", "32x24x6", "--steps", "300", "--clinic-halos", "aggregate",
                     *TINY)
    assert p.returncode == 0, p.stderr
    [r] = steps(recs)
    assert r["T_rel_change"] <= 1e-13 and r["S_rel_change"] <= 1e-13


@pytest.mark.parametrize("run", [launch, mpich], ids=["openmpi", "mpich"])
def test_a_corrupted_state_fails_with_either_mpi(run):
    p, recs = run(2, *GRID, "--clinic-halos", "aggregate", "--inject", "corrupt", *TINY)
    assert_check_fails(p, recs, "the volume integral of T changed in 6 steps")


def test_a_corrupted_state_fails_without_the_reference_too():
    p, recs = launch(2, *GRID, "--ref-max", "0", "--inject", "corrupt", *TINY)
    assert_check_fails(p, recs, "the volume integral of T changed")


@pytest.mark.parametrize("np,args,msg", [
    (2, ["--pgrids", "3x1"], "option --pgrids: 3x1 does not fit 2 ranks"),
    (4, ["--grids", "3x8x4", "--pgrids", "4x1"], "4x1 process grid leaves blocks smaller"),
    (0, ["--grids", "2x8x4"], "grid is too small"),
    (0, ["--grids", "64x48"], "option --grids: '64x48' is not NXxNYxNZ"),
    (0, ["--grids", "16000x16000x40"], "grid is too big"),
    (0, ["--grids", "32x24x2000"], "grid is too big"),
    (0, ["--clinic-halos", "fused"], "option --clinic-halos"),
    (0, ["--halos", "fused"], "option --halos"),
    (0, ["--sums", "ring"], "option --sums"),
    (0, ["--steps", "0"], "option --steps"),
    (0, ["--dt", "86400"], "option --dt"),
    (0, ["--tol", "0"], "option --tol"),
])
def test_bad_options(np, args, msg):
    p, _ = launch(np, *args, *TINY)
    assert_usage_error(p, msg, alone=np == 0)
