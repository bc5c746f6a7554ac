"""The POP-like barotropic solver on 1, 2 and 4 ranks: every process grid, mapping, halo variant
and global sum gives the direct solve's answer to round-off; the records carry per-rank phases,
wall times and flops that add up; weak scaling grows the grid; bad options and a corrupted
solution are refused."""

import pytest

from helpers import one_line_error
from kernel_helpers import assert_phases_within_loop, mpirun

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--grids", "30x21", "--land", "continents"]  # uneven blocks at P, Q = 4
PARAMS = {"nx", "ny", "P", "Q", "mapping", "halo", "sum", "branch", "land", "scaling"}
PHASES = {"compute": "compute", "halo": "comm", "copy": "copy", "global_sum": "comm"}


def launch(np, *args, timeout=60):
    return mpirun("barotropic", np, *args, timeout=timeout)


def results(recs, metric):
    return [r for r in recs if r["type"] == "result" and r["metric"] == metric]


def variant(r):
    p = r["params"]
    return (p["P"], p["Q"], p["mapping"], p["halo"], p["sum"], p["branch"])


@pytest.mark.parametrize("np,grids", [(1, {(1, 1)}), (2, {(1, 2), (2, 1)}),
                                      (4, {(1, 4), (2, 2), (4, 1)})])
def test_every_variant_agrees_with_the_direct_solve(np, grids):
    p, recs = launch(np, *SMALL, *TINY)
    assert p.returncode == 0, p.stderr
    its = results(recs, "iteration_time")
    sums = [("allreduce", 0), ("tree", 2), ("tree", 4), ("onesided", 0)]
    assert {variant(r) for r in its} == {(P, Q, m, h, s, b) for P, Q in grids
                                         for m in ("row", "col")
                                         for h in ("datatype", "pack", "put") for s, b in sums}
    assert len(its) == len(grids) * 2 * 3 * 4
    for r in its:
        assert r["check"] == "ok"
        # tol 1e-10: the error from x_true, the direct solve and the other variants is round-off
        assert r["max_rel_diff_vs_direct"] < 1e-9
        assert r["max_rel_diff_vs_exact"] < 1e-9
        assert r["max_rel_diff_vs_first_variant"] < 1e-12
        assert r["relative_residual"] < 1e-9
    # the halo variant never changes the arithmetic: same decomposition and sum, same iterations
    by = {}
    for r in its:
        key = (variant(r)[:3], r["params"]["sum"], r["params"]["branch"])
        by.setdefault(key, set()).add(r["iterations"])
    assert all(len(v) == 1 for v in by.values())


def test_records_match_the_format():
    p, recs = launch(2, *SMALL, "--pgrids", "2x1", "--mappings", "col", "--halos", "pack",
                     "--sums", "tree", "--branches", "2", "--min-reps", "3", "--max-reps", "3",
                     "--warmup", "1", "--dt", "3600")
    assert p.returncode == 0, p.stderr
    [it] = results(recs, "iteration_time")
    [sd] = results(recs, "sim_days_per_day")
    assert it["params"] == sd["params"] == {
        "nx": 30, "ny": 21, "P": 2, "Q": 1, "mapping": "col", "halo": "pack", "sum": "tree",
        "branch": 2, "land": "continents", "scaling": "strong"}
    assert (it["unit"], it["statistic"], it["better"]) == ("us", "median", "lower")
    assert (sd["unit"], sd["statistic"], sd["better"]) == ("days/day", "median", "higher")
    assert it["stats"]["n"] == sd["stats"]["n"] == 3
    # one solve is one step of dt: days per day = dt / (time per iteration x iterations)
    solve_s = it["stats"]["median"] * 1e-6 * it["iterations"]
    assert sd["stats"]["median"] == pytest.approx(3600 / solve_s, rel=1e-4)
    assert it["dt_s"] == 3600 and it["iterations"] > 10
    assert set(it["phases"]) == set(PHASES)
    for name, kind in PHASES.items():
        assert it["phases"][name]["kind"] == kind
        assert len(it["phases"][name]["per_rank"]) == 2
    assert all(it["phases"]["copy"]["per_rank"][r] > 0 for r in range(2))  # pack/unpack
    wall = it["wall_per_rank"]
    assert len(wall) == 2 and all(w > 0 for w in wall)
    assert_phases_within_loop(it, PHASES)
    # the slowest rank's time per iteration is at least any rank's mean (same samples)
    assert it["stats"]["max"] >= min(wall) * 0.97
    # loops cover every block point (land too, as POP): the ranks' flops add up to the serial count
    assert len(it["flops_per_rank"]) == 2
    assert sum(it["flops_per_rank"]) == pytest.approx(it["serial_flops"], rel=1e-9)
    assert it["serial_flops"] > 28 * 30 * 21
    assert sum(it["ocean_points_per_rank"]) == it["ocean_points"] < 30 * 21


def test_land_none_and_branch_zero_outside_the_tree():
    p, recs = launch(2, "--grids", "24x16", "--land", "none,continents", "--pgrids", "1x2",
                     "--mappings", "row", "--halos", "datatype", "--sums", "allreduce,tree",
                     "--branches", "3", *TINY)
    assert p.returncode == 0, p.stderr
    its = results(recs, "iteration_time")
    got = {(r["params"]["land"], r["params"]["sum"], r["params"]["branch"]) for r in its}
    assert got == {(l, s, b) for l in ("none", "continents") for s, b in
                   (("allreduce", 0), ("tree", 3))}
    none = [r for r in its if r["params"]["land"] == "none"]
    assert all(r["ocean_points"] == 24 * 16 for r in none)


def test_weak_scaling_grows_the_grid():
    p, recs = launch(2, "--weak-block", "16x12", "--mappings", "row", "--halos", "pack",
                     "--sums", "allreduce", *TINY)
    assert p.returncode == 0, p.stderr
    its = results(recs, "iteration_time")
    assert {(r["params"]["nx"], r["params"]["ny"], r["params"]["P"], r["params"]["Q"],
             r["params"]["scaling"]) for r in its} == {(16, 24, 1, 2, "weak"),
                                                        (32, 12, 2, 1, "weak")}
    # each grid is its own first configuration
    assert all(r["max_rel_diff_vs_first_variant"] == 0 for r in its)


def test_no_direct_solve_beyond_direct_max():
    p, recs = launch(1, *SMALL, "--direct-max", "10", "--halos", "pack", "--sums", "allreduce",
                     "--mappings", "row", *TINY)
    assert p.returncode == 0, p.stderr
    [it] = results(recs, "iteration_time")
    assert "max_rel_diff_vs_direct" not in it
    assert it["max_rel_diff_vs_exact"] < 1e-9


def test_corrupt_solution_fails():
    p, recs = launch(2, *SMALL, "--inject", "corrupt", *TINY)
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "differs from x_true" in err["message"]
    assert not results(recs, "iteration_time")


def test_not_converged_fails():
    p, recs = launch(1, *SMALL, "--max-iters", "5", "--halos", "pack", "--sums", "allreduce",
                     "--mappings", "row", *TINY)
    assert p.returncode == 1
    assert "not converged to tol 1e-10 in 5 iterations" in p.stderr


@pytest.mark.parametrize("np,args,msg", [
    (2, ["--pgrids", "3x1"], "option --pgrids: 3x1 does not fit 2 ranks"),
    (4, ["--grids", "3x8", "--pgrids", "4x1"], "4x1 process grid leaves blocks smaller than one"),
    (0, ["--halos", "pack,put,pack"], "option --halos: 'pack' is given twice"),
    (0, ["--branches", "4,4"], "option --branches: an element is given twice"),
    (0, ["--pgrids", "2by1"], "option --pgrids: '2by1' is not PxQ"),
    (0, ["--grids", "2x8"], "grid is too small"),
    (0, ["--grids", "96x64,,32x24"], "is not a comma list"),
    (0, ["--halos", "nope"], "option --halos: 'nope' is not one of datatype, pack, put, shmem, caf"),
    (0, ["--sums", "ring"], "option --sums: 'ring' is not one of allreduce, tree, onesided"),
    (0, ["--branches", "1"], "option --branches"),
    (0, ["--land", "ice"], "option --land: 'ice'"),
    (0, ["--mappings", "snake"], "option --mappings: 'snake' is not row or col"),
    (0, ["--weak-block", "1x1"], "makes a 1x1 grid, too small"),
    (0, ["--weak-block", "0x4"], "option --weak-block: '0x4' is not BXxBY"),
    (0, ["--tol", "0"], "option --tol"),
])
def test_bad_options(np, args, msg):
    p, _ = launch(np, *args, *TINY)
    assert p.returncode == 2
    first = [l for l in p.stderr.splitlines() if l.strip()][0]
    assert msg in first and "Traceback" not in p.stderr


def test_barotropic_through_cli(cli):
    p = cli("run", "barotropic", "--set", "ranks=1,2", "--set", "grids=24x16",
            "--set", "mappings=row", "--set", "halos=pack", "--set", "sums=allreduce",
            "--set", "scaling=strong,weak", "--set", "weak-block=12x16",
            "--set", "budget=0.02", "--set", "min-reps=1", "--set", "max-reps=2",
            "--set", "warmup=0")
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    recs = [r for r in run["records"] if r["benchmark"] == "barotropic"]
    got = {(r["params"]["scaling"], r["params"]["P"], r["params"]["Q"], r["params"]["nx"])
           for r in recs if r["metric"] == "iteration_time"}
    assert got == {("strong", 1, 1, 24), ("strong", 1, 2, 24), ("strong", 2, 1, 24),
                   ("weak", 1, 1, 12), ("weak", 1, 2, 12), ("weak", 2, 1, 24)}
    p = cli("run", "barotropic", "--np", "2", "--set", "pgrids=4x1")
    assert p.returncode == 2 and "none of 4x1 fits 2 ranks" in one_line_error(p.stderr)
