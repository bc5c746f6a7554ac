"""The parallel shallow water model on 2 and 4 ranks: every process grid, mapping, FFT (transpose
or distributed) and global sum equals the serial model to round-off (bitwise where the latitudes
are not split), test case 2 stays at round-off, and grids that do not fit are refused."""
import os
import subprocess

import pytest

from helpers import BIN, one_line_error
from hpceval.records import parse_record

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]


def mpirun(np, *args):
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    p = subprocess.run(cmd + [str(BIN / "hpceval-psst"), *args], capture_output=True, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
    return p, [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("np,grids", [(2, {(1, 2), (2, 1)}), (4, {(1, 4), (2, 2), (4, 1)})])
def test_every_variant_equals_serial(np, grids):
    p, res = mpirun(np, "--truncation", "10", "--levels", "2", "--test", "6", "--days", "0.5",
                    *TINY)
    assert p.returncode == 0, p.stderr
    times = [r for r in res if r["metric"] == "run_time"]
    variants = {(r["params"]["P"], r["params"]["Q"], r["params"]["mapping"],
                 r["params"]["transpose"], r["params"]["sum"]) for r in times}
    assert variants == {(P, Q, m, t, s) for P, Q in grids for m in ("row", "col")
                        for t in ("alltoallv", "pairwise") for s in ("allreduce", "ring")}
    for r in times:
        assert r["check"] == "ok" and r["max_rel_diff_vs_serial"] <= 1e-12
        if r["params"]["P"] == 1 and r["params"]["Q"] == 1:
            assert r["bitwise_equal_to_serial"]


@pytest.mark.parametrize("np,grids", [(2, {(1, 2), (2, 1)}), (4, {(1, 4), (2, 2), (4, 1)})])
def test_distributed_fft_equals_serial(np, grids):
    # T10: nlon 32, so Q = 2 and 4 split the longitudes; binary exchange inside the FFTs
    p, res = mpirun(np, "--truncation", "10", "--levels", "2", "--test", "6", "--days", "0.5",
                    "--transposes", "distributed", *TINY)
    assert p.returncode == 0, p.stderr
    times = [r for r in res if r["metric"] == "run_time"]
    variants = {(r["params"]["P"], r["params"]["Q"], r["params"]["mapping"],
                 r["params"]["transpose"], r["params"]["sum"]) for r in times}
    assert variants == {(P, Q, m, "distributed", s) for P, Q in grids for m in ("row", "col")
                        for s in ("allreduce", "ring")}
    for r in times:
        assert r["check"] == "ok" and r["max_rel_diff_vs_serial"] <= 1e-12


def test_distributed_fft_case2_round_off():
    p, res = mpirun(4, "--truncation", "21", "--levels", "1", "--grids", "1x4", "--mappings",
                    "row", "--sums", "ring", "--transposes", "distributed", "--days", "1", *TINY)
    assert p.returncode == 0, p.stderr
    [t] = [r for r in res if r["metric"] == "run_time"]
    assert t["max_rel_diff_vs_serial"] <= 1e-12
    assert max(t["err_l1"], t["err_l2"], t["err_linf"]) < 1e-12


def test_case2_parallel_round_off():
    p, res = mpirun(2, "--truncation", "21", "--levels", "1", "--grids", "2x1", "--mappings",
                    "col", "--sums", "ring", "--transposes", "pairwise", "--days", "1", *TINY)
    assert p.returncode == 0, p.stderr
    [t] = [r for r in res if r["metric"] == "run_time"]
    assert max(t["err_l1"], t["err_l2"], t["err_linf"]) < 1e-12


@pytest.mark.parametrize("start", ["classic", "euler"])
def test_case6_checked_for_either_start(start):
    """Test case 6's errors are checked against their bound as in sst, with either leapfrog start
    (the parallel steps follow the serial model's start pass for pass)."""
    p, res = mpirun(2, "--truncation", "10", "--test", "6", "--grids", "1x2,2x1", "--mappings",
                    "row", "--sums", "ring", "--transposes", "pairwise", "--days", "0.5",
                    "--start", start, *TINY)
    assert p.returncode == 0, p.stderr
    times = [r for r in res if r["metric"] == "run_time"]
    assert len(times) == 2
    for t in times:
        assert t["params"]["start"] == start and t["err_bound"] == 0.15
        assert 0 < max(t["err_l1"], t["err_l2"], t["err_linf"]) < 0.15 / 10
        assert t["max_rel_diff_vs_serial"] <= 1e-12
        assert t["passes"] == t["steps"] + (start == "classic")


@pytest.mark.parametrize("fft", ["alltoallv", "distributed"])
def test_corrupt_state_fails(fft):
    p, _ = mpirun(2, "--truncation", "5", "--grids", "1x2", "--transposes", fft, "--inject",
                  "corrupt", *TINY)
    assert p.returncode != 0
    assert "differs from the serial" in p.stderr


@pytest.mark.parametrize("np,args,msg", [
    (2, ["--grids", "3x1"], "does not fit 2 ranks"),
    (4, ["--truncation", "1", "--grids", "1x4"], "Q = 4 exceeds the 2 wavenumbers"),
    (4, ["--truncation", "1", "--grids", "4x1"], "P = 4 exceeds the 2 latitudes"),
    (2, ["--levels", "0"], "levels 0"),
    (2, ["--sums", "tree"], "--sums"),
    (2, ["--transposes", "fft"], "--transposes"),
    # T3: nlon 10 does not split into 4 equal longitude blocks
    (4, ["--truncation", "3", "--grids", "1x4", "--transposes", "distributed"],
     "Q a power of two dividing nlon 10"),
])
def test_bad_grids(np, args, msg):
    p, _ = mpirun(np, *args, *TINY)
    assert p.returncode == 2
    assert msg in p.stderr


def test_psst_through_cli(cli):
    p = cli("run", "psst", "--np", "2", "--set", "truncation=5", "--set", "levels=1",
            "--set", "mappings=row", "--set", "days=0.2", "--set", "budget=0.02",
            "--set", "min-reps=1", "--set", "max-reps=2", "--set", "warmup=0")
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    from hpceval.analysis.kernels import parallel_relative
    rows = parallel_relative(run)
    assert {r["grid"] for r in rows} == {"1x2", "2x1"} and len(rows) == 8
    for grid in ("1x2", "2x1"):
        rel = [r["relative"] for r in rows if r["grid"] == grid]
        assert min(rel) == 0 and all(x >= 0 for x in rel)
    p = cli("run", "psst", "--np", "2", "--set", "grids=2x2")
    assert p.returncode == 2 and "does not fit 2 ranks" in one_line_error(p.stderr)
    p = cli("run", "psst", "--np", "4", "--set", "truncation=3", "--set", "grids=1x4",
            "--set", "transposes=distributed")
    assert p.returncode == 2 and "power of two dividing nlon 10" in one_line_error(p.stderr)


def test_psst_rank_sweep_overhead_breakdown(cli):
    """ranks=1,2: the report's CCM/MP-2D breakdown of the spectral model closes, and counts the
    replicated spectral update of a 2x1 grid as duplicated work."""
    from hpceval.analysis.scaling import overhead_rows, record_breakdown, baseline_of
    from hpceval.report import FIGURES, make_figure
    p = cli("run", "psst", "--set", "ranks=1,2", "--set", "truncation=10", "--set", "levels=2",
            "--set", "mappings=row", "--set", "sums=allreduce", "--set", "transposes=alltoallv",
            "--set", "days=0.2", "--set", "budget=0.05", "--set", "min-reps=3", "--set",
            "max-reps=5", "--set", "warmup=1")
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    rows = overhead_rows(run["records"], "psst")
    assert [r["nranks"] for r in rows] == [1, 2] and all(r["closes"] for r in rows)
    times = {(r["params"]["P"], r["params"]["Q"]): r for r in run["records"]
             if r["metric"] == "run_time"}
    b = record_breakdown(times[(2, 1)], baseline_of(times[(1, 1)]))
    assert b.duplicated > 0 and b.closes()
    spec = next(s for s in FIGURES if s.make.__name__ == "psst_overhead")
    assert make_figure(spec, [run]) is not None
