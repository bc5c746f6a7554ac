"""The barotropic solver's globally addressable variants (issue #49 item 1: the X1 study's
Co-Array Fortran halo update and global sum): OpenSHMEM with pairwise flags, and Co-Array
Fortran itself (OpenCoarrays: puts and `sync images`, the master reading the partial sums). On
1, 2 and 4 ranks every process grid and mapping gives the direct solve's answer and the MPI
variants' to round-off; a corrupted solution is caught under each; a build without them refuses
one by name and leaves it out of 'all', in the binary and in the plan (pop-step's solver too);
`tune` ranks them beside the others."""
import json

import pytest

from helpers import FAST, ROOT, one_line_error
from kernel_helpers import mpich_run, mpirun

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--grids", "30x21", "--land", "continents"]   # uneven blocks at P, Q = 4
MPICH = ROOT / "build-mpich" / "bin"
HALOS, SUMS = ("pack", "shmem", "caf"), ("allreduce", "shmem", "caf")


def test_this_build_has_both():
    info = json.loads((ROOT / "build" / "bin" / "buildinfo.json").read_text())
    assert info["shmem"] is True and info.get("caf") is True, \
        "make test installs OpenSHMEM (Open MPI) and OpenCoarrays (HPCEVAL_CAF=1)"


@pytest.mark.parametrize("np,grids", [(1, {(1, 1)}), (2, {(1, 2), (2, 1)}),
                                      (4, {(1, 4), (2, 2), (4, 1)})])
def test_the_variants_agree_with_the_direct_solve_and_mpi(np, grids):
    p, recs = mpirun("barotropic", np, *SMALL, *TINY, "--halos", ",".join(HALOS),
                     "--sums", ",".join(SUMS), timeout=120)
    assert p.returncode == 0, p.stderr
    its = [r for r in recs if r["type"] == "result" and r["metric"] == "iteration_time"]
    assert {(r["params"]["P"], r["params"]["Q"], r["params"]["mapping"], r["params"]["halo"],
             r["params"]["sum"]) for r in its} == {
        (P, Q, m, h, s) for P, Q in grids for m in ("row", "col") for h in HALOS for s in SUMS}
    for r in its:
        assert r["check"] == "ok"
        assert r["max_rel_diff_vs_direct"] < 1e-9 and r["max_rel_diff_vs_exact"] < 1e-9
        assert r["max_rel_diff_vs_first_variant"] < 1e-12
    # the halo variant never changes the arithmetic: same grid and sum, same iterations; the
    # shmem and caf sums add in rank order alike: the same iterations too
    iters = {}
    for r in its:
        p_ = r["params"]
        iters.setdefault((p_["P"], p_["Q"], p_["mapping"], p_["sum"]), set()).add(r["iterations"])
    assert all(len(v) == 1 for v in iters.values()), iters
    for P, Q in grids:
        for m in ("row", "col"):
            assert iters[(P, Q, m, "shmem")] == iters[(P, Q, m, "caf")]


@pytest.mark.parametrize("variant", ["shmem", "caf"])
def test_a_corrupted_solution_is_caught(variant):
    p, recs = mpirun("barotropic", 2, *SMALL, *TINY, "--pgrids", "2x1", "--mappings", "row",
                     "--halos", variant, "--sums", variant, "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert f"halo {variant}, sum {variant}" in err["message"] and "differs" in err["message"]


def test_a_build_without_them_refuses_them_by_name_and_skips_them_in_all(cli, monkeypatch):
    info = json.loads((MPICH / "buildinfo.json").read_text())
    assert info["shmem"] is False and "caf" not in info
    # the plan: 'all' leaves them out with a note, one named is refused before launch
    monkeypatch.setenv("HPCEVAL_BINDIR", str(MPICH))
    for bench in ("barotropic", "pop-step"):      # the whole step's solver as barotropic's
        p = cli("run", bench, "--set", f"{bench}.halos=all", "--dry-run")
        said = " ".join((p.stdout + p.stderr).split())
        assert p.returncode == 0
        assert f"{bench}: halos shmem left out: this build has no OpenSHMEM" in said
        assert f"{bench}: halos caf left out: this build has no Co-Array Fortran" in said
        for variant, needs in (("shmem", "OpenSHMEM"), ("caf", "Co-Array Fortran")):
            p = cli("run", bench, "--set", f"{bench}.sums=tree,{variant}", "--dry-run")
            assert p.returncode == 2 and one_line_error(p.stderr).startswith(
                f"hpceval: error: --set {bench}.sums: {variant} needs a build with {needs}")


@pytest.mark.parametrize("variant,needs", [("shmem", "OpenSHMEM"), ("caf", "Co-Array Fortran")])
def test_the_mpich_binary_refuses_them_by_name_and_leaves_them_out_of_all(variant, needs):
    p, _ = mpich_run("barotropic", 1, *SMALL, *TINY, "--halos", variant)
    assert p.returncode == 2 and f"option --halos: {variant} needs a build with {needs}" \
        in p.stderr
    p, recs = mpich_run("barotropic", 1, *SMALL, *TINY, "--halos", "all", "--sums", "all",
                        "--branches", "2", "--mappings", "row")
    assert p.returncode == 0, p.stderr
    its = [r for r in recs if r["type"] == "result" and r["metric"] == "iteration_time"]
    assert {r["params"]["halo"] for r in its} == {"datatype", "pack", "put"}
    assert {r["params"]["sum"] for r in its} == {"allreduce", "tree", "onesided"}


def test_tune_ranks_the_globally_addressable_variants(cli, tmp_path):
    out = tmp_path / "tuned.json"
    p = cli("tune", "barotropic", "--np", "2", *FAST[:8], "--set", "barotropic.grids=32x24",
            "--set", f"barotropic.halos={','.join(HALOS)}",
            "--set", f"barotropic.sums={','.join(SUMS)}",
            "--set", "barotropic.pgrids=2x1", "--set", "barotropic.mappings=row",
            "--set", "barotropic.land=none", "-o", str(out), timeout=300)
    assert p.returncode == 0, p.stderr
    [row] = json.loads(out.read_text())["rows"]
    assert row["candidates"] == 9            # three halos x three sums
    [run] = cli.export("latest")
    assert {(r["params"]["halo"], r["params"]["sum"]) for r in run["records"]
            if r["metric"] == "iteration_time"} == {(h, s) for h in HALOS for s in SUMS}
