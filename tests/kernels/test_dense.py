"""The dense solve on ScaLAPACK (csrc/kernels/dense.c): `hpceval run dense` verified on 1, 2 and
4 ranks with Open MPI and MPICH, both kinds; the standard operation count and the time split;
HPL's residual failing a perturbed solution (exit 1); bad input refused (exit 2) before
anything is timed; the best grid per rank count from the measured records."""
from __future__ import annotations

import shutil

import pytest

from helpers import ROOT
from kernel_helpers import mpirun, results

from hpceval.analysis.card import machine_card
from hpceval.analysis.dense import best_per_ranks
from hpceval.analysis.tune import tuned_table
from hpceval.catalog.bench_dense import flops

MPICH_BIN = ROOT / "build-mpich" / "bin"
SETS = ["--set", "dense.ranks=1,2,4", "--set", "dense.n=200,320", "--set", "dense.nb=32",
        "--set", "dense.kind=all", "--set", "min-reps=3", "--set", "max-reps=3",
        "--set", "warmup=0", "--no-remeasure", "--llc", "reported"]


def _run(cli, *more, env=None):
    p = cli("run", "dense", *SETS, *more, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and all(l["status"] == "ok" for l in run["launches"])
    return run


ALL_GRIDS = {(1, 1), (1, 2), (2, 1), (1, 4), (2, 2), (4, 1)}


def _check_records(run, orders=(200, 320), grids=ALL_GRIDS):
    recs = [r for r in run["records"] if r["benchmark"] == "dense"]
    by = {}
    for r in recs:
        p = r["params"]
        by.setdefault((p["kind"], p["n"], p["P"], p["Q"]), {})[r["metric"]] = r
    # every grid asked for on 1, 2 and 4 ranks, both kinds, every order, four metrics each
    assert set(by) == {(k, n, p, q) for k in ("complex", "real") for n in orders
                       for p, q in grids}
    for (kind, n, p, q), m in by.items():
        assert set(m) == {"gflops", "time", "factor_time", "solve_time"}
        g, t = m["gflops"], m["time"]
        assert g["params"]["routine"] == {"complex": "pzgesv", "real": "pdgesv"}[kind]
        assert g["params"]["ranks"] == p * q and g["params"]["nb"] == 32
        extra = g["extra"]
        assert extra["verified"] is True and 0 <= extra["residual"] < 16
        assert extra["flops_per_solve"] == pytest.approx(flops(kind, n))
        # three samples each: the median rate is the count over the median time
        assert g["stats"]["n"] == 3
        assert g["stats"]["median"] == pytest.approx(flops(kind, n) / t["stats"]["median"] / 1e9,
                                                     rel=1e-4)
        # the slowest rank's total lies between its factorisation and factorisation + solve
        f, s = m["factor_time"]["stats"]["max"], m["solve_time"]["stats"]["max"]
        assert f <= t["stats"]["max"] * (1 + 1e-5) and t["stats"]["max"] <= (f + s) * (1 + 1e-5)
    return recs


def test_verified_on_1_2_4_ranks_open_mpi(cli, bindir):
    run = _run(cli)
    recs = _check_records(run)
    assert all(l["meta"]["mpi_library"].startswith("Open MPI") for l in run["launches"])
    # one rank per core: OpenBLAS's threads are off in every launch
    assert all(l["env"].get("OPENBLAS_NUM_THREADS") == "1" for l in run["launches"])
    best = best_per_ranks(recs)
    assert set(best) == {(k, n) for k in ("complex", "real") for n in (1, 2, 4)}
    # the tuned table: NB and grid per kind, order and rank count where there was a choice
    rows = tuned_table(recs, "dense")
    assert {(r["problem"]["kind"], r["problem"]["n"], r["ranks"]) for r in rows} == \
        {(k, n, r) for k in ("complex", "real") for n in (200, 320) for r in (2, 4)}
    assert all(r["best_name"].startswith("NB 32 ") for r in rows)
    card = {row["quantity"]: row for row in machine_card(run)}
    cell = card["Dense solve complex (pzgesv, AORSA3D), GFlop/s"]
    assert cell["value"] == max(r["stats"]["median"] for r in recs
                                if r["metric"] == "gflops" and r["params"]["kind"] == "complex")


def test_verified_on_1_2_4_ranks_mpich(cli):
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not (MPICH_BIN / "hpceval-dense").is_file():
        pytest.fail(f"{MPICH_BIN}/hpceval-dense is not built: run 'make build-mpich' (with "
                    "libscalapack-mpich-dev: scripts/install-deps.sh)")
    # MPICH polls while it waits: 4 ranks on this machine's 2 cores crawl (20 s for the five
    # grids of 4 ranks at n 200), so one order and one grid per rank count
    grids = {(1, 1), (1, 2), (2, 2)}
    run = _run(cli, "--set", "dense.n=200", "--set", "dense.grids=1x1,1x2,2x2",
               env={"HPCEVAL_BINDIR": str(MPICH_BIN)})
    _check_records(run, (200,), grids)
    assert all(l["meta"]["mpi_library"].startswith("MPICH") for l in run["launches"])


@pytest.mark.parametrize("kind", ["complex", "real"])
def test_a_perturbed_solution_fails_the_residual(bindir, kind):
    p, recs = mpirun("dense", 2, "--n", "240", "--nb", "32", "--kinds", kind, "--inject",
                     "corrupt", "--warmup", "0", "--min-reps", "2", "--max-reps", "2")
    assert p.returncode == 1, p.stderr
    assert "HPL's scaled residual" in p.stderr and "exceeds the bound 16" in p.stderr
    assert not results(recs)
    [err] = [r for r in recs if r["type"] == "error"]
    assert err["exit_status"] == 1


@pytest.mark.parametrize("args,msg", [
    (["--n", "30", "--nb", "32"], "a block of 32 is larger than the matrix (n 30)"),
    (["--n", "100", "--grids", "3x1"], "3x1 does not fit 2 ranks"),
    (["--n", "200000", "--nb", "64"], "exceeds 2^31 elements"),
    (["--kinds", "quad"], "'quad' is not one of complex, real"),
])
def test_bad_input_exits_2_with_one_line(bindir, args, msg):
    p, recs = mpirun("dense", 2 if "--grids" in args else 0, *args)
    assert p.returncode == 2
    assert msg in p.stderr
    assert not results(recs)


@pytest.mark.parametrize("sets,msg", [
    (["dense.n=300000"], "needs about"),
    (["dense.n=100", "dense.nb=128"], "NB 128 is larger than the matrix (n 100)"),
    (["dense.grids=3x1"], "3x1 does not fit 2 ranks"),
    (["dense.kind=quad"], "'quad' is not one of complex, real"),
    (["dense.memory=0.9"], "out of range"),
])
def test_the_plan_refuses_before_launching(cli, sets, msg):
    p = cli("run", "dense", "--np", "2", *[w for s in sets for w in ("--set", s)])
    assert p.returncode == 2 and msg in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_a_build_without_scalapack_leaves_dense_out_and_says_why(cli, tmp_path):
    """csrc/Makefile with no ScaLAPACK (SCALAPACK empty: what a machine without the package
    finds) names the package, records why in buildinfo.json, and `hpceval run dense` on that
    build refuses in one line before launching."""
    import subprocess
    build = tmp_path / "build"
    info = build / "bin" / "buildinfo.json"
    p = subprocess.run(["make", "-s", "-C", str(ROOT / "csrc"), "SCALAPACK=", f"BUILD={build}",
                        str(info)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "dense left out" in p.stdout and "libscalapack-openmpi-dev" in p.stdout
    r = cli("run", "dense", "--np", "2", env={"HPCEVAL_BINDIR": str(build / "bin")})
    assert r.returncode == 2
    assert r.stderr.strip() == (f"hpceval: error: dense is not in the build {build / 'bin'}: no "
                                "ScaLAPACK for openmpi (install libscalapack-openmpi-dev: "
                                "scripts/install-deps.sh)")
    # beside other benchmarks (a suite, the study) it is left out and said; the rest runs
    (build / "bin" / "hpceval-column").symlink_to(ROOT / "build" / "bin" / "hpceval-column")
    r = cli("run", "dense", "column", "--np", "1", "--set", "column.nlons=8", "--set",
            "column.ncols=16", "--set", "budget=0.05", "--no-remeasure", "--llc", "reported",
            env={"HPCEVAL_BINDIR": str(build / "bin")})
    assert r.returncode == 0, r.stderr
    assert "hpceval: plan: dense left out: not in this build (no ScaLAPACK for openmpi" in r.stderr
    (run,) = cli.export("latest")
    assert {x["benchmark"] for x in run["records"]} == {"column"}
    assert any(n.startswith("dense left out") for n in run["settings"]["plan_notes"])


def test_hpceval_run_with_a_perturbed_solution_fails(cli, bindir):
    p = cli("run", "dense", "--np", "2", "--set", "dense.n=200", "--set", "dense.nb=32",
            "--set", "dense.grids=1x2", "--set", "inject=corrupt", "--set", "warmup=0",
            "--no-remeasure", "--llc", "reported")
    assert p.returncode == 1
    assert "HPL's scaled residual" in p.stderr and "exceeds the bound 16" in p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "failed" and not run["records"]
