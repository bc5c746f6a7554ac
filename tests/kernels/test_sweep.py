"""The Sweep3D-like KBA sweep on 1, 2 and 4 ranks: particle balance at convergence for S4, S6
and S8, with and without the fix-up; the scalar flux of every process grid and pipeline
blocking equals the serial solve's (rank 0 solves the small problems alone too) and the one-rank
run's checksum; the records carry the phases and the grind time's basis; bad input is one line
and exit 2, a corrupted flux or no convergence exit 1."""
import os
import subprocess

import pytest

from helpers import BIN
from kernel_helpers import assert_phases_within_loop
from hpceval.records import parse_record

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
GRID = ["--grid", "9x7x6"]  # uneven blocks on 2 x 2
PHASES = {"compute": "compute", "wait": "comm", "send": "comm", "copy": "copy", "reduce": "comm"}


def sweep(np, *args, timeout=60):
    """np ranks under mpirun; np 0: the binary alone (an MPI singleton)."""
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)] if np else []
    if np and os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    p = subprocess.run(cmd + [str(BIN / "hpceval-sweep"), *args, *TINY], capture_output=True,
                       text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
    return p, recs


def result(recs, metric="iteration_time"):
    [r] = [r for r in recs if r["type"] == "result" and r["metric"] == metric]
    return r


def solve(np, *args):
    p, recs = sweep(np, *args)
    assert p.returncode == 0, p.stderr
    return result(recs)


@pytest.mark.parametrize("sn,per_octant", [(4, 3), (6, 6), (8, 10)])
def test_balance_and_serial_reference(sn, per_octant):
    r = solve(0, "--grid", "8x8x8", "--sn", str(sn), "--mmi", "2", "--mk", "3")
    assert r["check"] == "ok" and r["angles"] == 8 * per_octant
    assert r["balance_rel_error"] < 1e-10
    assert r["source"] == pytest.approx(8 ** 3)
    assert r["absorption"] + sum(r["leakage"]) == pytest.approx(r["source"], rel=1e-10)
    # a cube with a uniform source leaks the same through all six faces (symmetric quadrature)
    assert max(r["leakage"]) == pytest.approx(min(r["leakage"]), rel=1e-10)
    assert r["max_rel_diff_vs_serial"] == 0 and r["serial_iterations"] == r["iterations"] > 10


def test_decomposition_independence():
    ref = solve(0, *GRID, "--mk", "6", "--mmi", "3")
    runs = [(2, ["--npe-i", "2", "--mk", "4", "--mmi", "3"]),
            (2, ["--npe-j", "2", "--mk", "1", "--mmi", "3"]),
            (4, ["--npe-i", "2", "--npe-j", "2", "--mk", "5", "--mmi", "3"]),
            (4, ["--npe-i", "2", "--npe-j", "2", "--mk", "2", "--mmi", "4"]),
            (2, ["--npe-i", "2", "--mk", "3", "--mmi", "6"])]
    for np, args in runs:
        r = solve(np, *GRID, *args)
        assert (r["params"]["P"] * r["params"]["Q"], r["params"]["nx"]) == (np, 9), args
        # same mmi: the same operations per cell whatever the blocks, bit for bit; another mmi
        # sums a cell's directions in other groups: round-off
        assert r["max_rel_diff_vs_serial"] <= (0 if r["params"]["mmi"] == 3 else 1e-12), args
        assert r["iterations"] == ref["iterations"], args
        assert r["checksum"] == pytest.approx(ref["checksum"], rel=1e-12), args
        assert r["balance_rel_error"] < 1e-10, args


def test_fixup_keeps_the_balance():
    thick = ["--grid", "8x8x8", "--sigma-t", "30", "--sigma-s", "15", "--source", "center"]
    plain = solve(0, *thick, "--fixup", "0")
    fixed = solve(2, *thick, "--fixup", "1", "--npe-i", "2", "--mk", "3")
    assert plain["fixups_last_iteration"] == 0 and fixed["fixups_last_iteration"] > 0
    assert fixed["balance_rel_error"] < 1e-10 and fixed["max_rel_diff_vs_serial"] == 0
    assert fixed["checksum"] != plain["checksum"]


@pytest.mark.parametrize("source,cells", [("center", 5 ** 3), ("third", 3 ** 3)])
def test_source_boxes(source, cells):
    # 9 cells an axis: the central half is [2, 7), Sweep3D's central third [3, 6)
    r = solve(2, "--grid", "9x9x9", "--source", source, "--h", "0.5")
    assert r["params"]["source"] == source
    assert r["source"] == pytest.approx(cells * 0.125, rel=1e-14)
    assert r["balance_rel_error"] < 1e-10 and r["max_rel_diff_vs_serial"] == 0


def test_blocks_bigger_than_the_grid_are_clamped():
    p, recs = sweep(0, "--grid", "5x5x4", "--sn", "2", "--mk", "10", "--mmi", "3")
    assert p.returncode == 0, p.stderr
    [meta] = [r for r in recs if r["type"] == "meta"]
    assert (meta["options"]["mk"], meta["options"]["mmi"]) == (4, 1)
    r = result(recs)
    assert (r["params"]["mk"], r["params"]["mmi"], r["angles"]) == (4, 1, 8)
    assert r["balance_rel_error"] < 1e-10 and r["max_rel_diff_vs_serial"] == 0


def test_records_and_weak_scaling():
    p, recs = sweep(2, "--per-rank", "6x5x4", "--npe-i", "2", "--sn", "4", "--mk", "3",
                    "--ref-max", "0")
    assert p.returncode == 0, p.stderr
    it, gr = result(recs), result(recs, "grind_time")
    assert it["params"] == gr["params"] == {
        "nx": 12, "ny": 5, "nz": 4, "P": 2, "Q": 1, "sn": 4, "mk": 3, "mmi": 3, "fixup": 0,
        "source": "uniform", "scaling": "weak"}
    assert (gr["unit"], gr["better"], it["unit"]) == ("ns", "lower", "us")
    assert it["cell_angles_per_rank"] == 6 * 5 * 4 * 24 and it["flops_per_cell_angle"] == 15
    assert it["cell_angles_per_rank_each"] == [6 * 5 * 4 * 24] * 2
    # grind time = time per iteration / the rank's cell-angles
    assert gr["stats"]["median"] == pytest.approx(
        it["stats"]["median"] * 1e3 / it["cell_angles_per_rank"], rel=1e-5)
    assert gr["global_grind_time_median"] == pytest.approx(gr["stats"]["median"] / 2, rel=1e-5)
    assert "max_rel_diff_vs_serial" not in it  # above --ref-max
    assert {n: v["kind"] for n, v in it["phases"].items()} == PHASES
    assert_phases_within_loop(it, PHASES)
    assert all(t > 0 for t in it["phases"]["compute"]["per_rank"])


def test_corrupt_flux_fails():
    p, recs = sweep(2, *GRID, "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "particle balance" in err["message"]
    assert not [r for r in recs if r["type"] == "result"]


def test_not_converged_fails():
    p, _ = sweep(0, *GRID, "--max-iters", "3")
    assert p.returncode == 1 and "not converged to tol 1e-12 in 3 iterations" in p.stderr


@pytest.mark.parametrize("np,args,msg", [
    (2, ["--npe-i", "3"], "--npe-i 3 x --npe-j 0 does not make the 2 ranks"),
    (2, ["--grid", "1x8x8", "--npe-i", "2"], "does not fit the 2x1 process grid"),
    (0, ["--sn", "5"], "--sn 5: there is no level-symmetric S5 set"),
    (0, ["--grid", "0x8x8"], "--grid: '0x8x8' is not IxJxK"),
    (0, ["--per-rank", "8x8"], "--per-rank: '8x8' is not IxJxK"),
    (0, ["--grid", "8x8x8", "--per-rank", "8x8x8"], "not both"),
    (0, ["--mk", "0"], "mk"),
    (0, ["--mmi", "0"], "mmi"),
    (0, ["--sigma-s", "1"], "--sigma-s 1 must be below --sigma-t 1"),
    (0, ["--tol", "1e-9"], "too loose for the 1e-10 balance check"),
    (0, ["--fixup", "2"], "fixup"),
])
def test_bad_input(np, args, msg):
    p, _ = sweep(np, *args)
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert msg in lines[0] and "Traceback" not in p.stderr
    if np == 0:
        assert len(lines) == 1
