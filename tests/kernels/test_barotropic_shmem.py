"""The barotropic solver's OpenSHMEM variants (issue #49 item 1: the X1 study's Co-Array Fortran
halo update and global sum with pairwise flags): on 1, 2 and 4 ranks every process grid and
mapping gives the direct solve's answer and the MPI variants' to round-off; a corrupted
solution is caught; a build without OpenSHMEM refuses shmem by name and leaves it out of
'all', in the binary and in the plan (pop-step's solver too); `tune` ranks the shmem variants
beside the others."""
import json

import pytest

from helpers import FAST, ROOT, one_line_error
from kernel_helpers import mpirun

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--grids", "30x21", "--land", "continents"]   # uneven blocks at P, Q = 4
MPICH = ROOT / "build-mpich" / "bin"


@pytest.mark.parametrize("np,grids", [(1, {(1, 1)}), (2, {(1, 2), (2, 1)}),
                                      (4, {(1, 4), (2, 2), (4, 1)})])
def test_shmem_variants_agree_with_the_direct_solve_and_mpi(np, grids):
    p, recs = mpirun("barotropic", np, *SMALL, *TINY, "--halos", "pack,shmem",
                     "--sums", "allreduce,shmem", timeout=120)
    assert p.returncode == 0, p.stderr
    its = [r for r in recs if r["type"] == "result" and r["metric"] == "iteration_time"]
    assert {(r["params"]["P"], r["params"]["Q"], r["params"]["mapping"], r["params"]["halo"],
             r["params"]["sum"]) for r in its} == {
        (P, Q, m, h, s) for P, Q in grids for m in ("row", "col")
        for h in ("pack", "shmem") for s in ("allreduce", "shmem")}
    for r in its:
        assert r["check"] == "ok"
        assert r["max_rel_diff_vs_direct"] < 1e-9 and r["max_rel_diff_vs_exact"] < 1e-9
        assert r["max_rel_diff_vs_first_variant"] < 1e-12
    # the halo variant never changes the arithmetic: same grid and sum, same iterations
    iters = {}
    for r in its:
        p_ = r["params"]
        iters.setdefault((p_["P"], p_["Q"], p_["mapping"], p_["sum"]), set()).add(r["iterations"])
    assert all(len(v) == 1 for v in iters.values()), iters


def test_a_corrupted_solution_is_caught_under_shmem():
    p, recs = mpirun("barotropic", 2, *SMALL, *TINY, "--pgrids", "2x1", "--mappings", "row",
                     "--halos", "shmem", "--sums", "shmem", "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "halo shmem, sum shmem" in err["message"] and "differs" in err["message"]


def test_a_build_without_openshmem_refuses_it_by_name_and_skips_it_in_all(cli, monkeypatch):
    info = json.loads((MPICH / "buildinfo.json").read_text())
    assert info["shmem"] is False
    # the plan: 'all' leaves shmem out with a note, shmem named is refused before launch
    monkeypatch.setenv("HPCEVAL_BINDIR", str(MPICH))
    for bench in ("barotropic", "pop-step"):      # the whole step's solver as barotropic's
        p = cli("run", bench, "--set", f"{bench}.halos=all", "--dry-run")
        assert p.returncode == 0 and f"{bench}: halos shmem left out: this build has no " \
            "OpenSHMEM" in " ".join((p.stdout + p.stderr).split())
        p = cli("run", bench, "--set", f"{bench}.sums=tree,shmem", "--dry-run")
        assert p.returncode == 2 and one_line_error(p.stderr).startswith(
            f"hpceval: error: --set {bench}.sums: shmem needs a build with OpenSHMEM")


def test_tune_ranks_the_shmem_variants(cli, tmp_path):
    out = tmp_path / "tuned.json"
    p = cli("tune", "barotropic", "--np", "2", *FAST[:8], "--set", "barotropic.grids=32x24",
            "--set", "barotropic.halos=pack,shmem", "--set", "barotropic.sums=allreduce,shmem",
            "--set", "barotropic.pgrids=2x1", "--set", "barotropic.mappings=row",
            "--set", "barotropic.land=none", "-o", str(out), timeout=300)
    assert p.returncode == 0, p.stderr
    [row] = json.loads(out.read_text())["rows"]
    assert row["candidates"] == 4            # pack and shmem halos x allreduce and shmem sums
    [run] = cli.export("latest")
    assert {(r["params"]["halo"], r["params"]["sum"]) for r in run["records"]
            if r["metric"] == "iteration_time"} == {(h, s) for h in ("pack", "shmem")
                                                     for s in ("allreduce", "shmem")}
