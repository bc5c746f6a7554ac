"""hpceval tune on real runs: every choice measured, the tuned table as JSON (best, runner-up,
margin, significance), where the best choice changes over rank counts, the report's table; bad
input is one line and exit 2 with nothing written."""
import json

import pytest

from helpers import CLI, FAST, one_line_error
from hpceval.analysis.tune import TUNABLE

SETS = FAST[:FAST.index("--no-remeasure")]        # the budgets (tune re-measures nothing)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory, bindir):
    d = tmp_path_factory.mktemp("tune")
    cli = CLI(d / "r.sqlite")
    out = d / "baro.json"
    p = cli("tune", "barotropic", "--ranks", "1,2", "-o", str(out), *SETS,
            "--set", "barotropic.grids=32x32", "--set", "barotropic.land=none", timeout=300)
    return cli, p, out


def test_barotropic_table(tuned, tmp_path):
    cli, p, out = tuned
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    assert data["tuned_table_version"] == 1 and data["benchmark"] == "barotropic"
    rows = {r["ranks"]: r for r in data["rows"]}
    assert set(rows) == {1, 2}
    two = rows[2]
    # 3 halos x (allreduce + 2 trees + onesided) x 2 grids x 2 mappings on 2 ranks
    assert two["candidates"] >= 24 and two["margin"] >= 0
    assert two["best_time"] <= two["runner_up_time"] and isinstance(two["significant"], bool)
    assert set(two["best"]) == {"halo", "sum", "branch", "P", "Q", "mapping"}
    assert "tuned table" in p.stdout and "significant" in p.stdout
    report = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(report)).returncode == 0
    assert "Tuned algorithm choices: barotropic" in report.read_text()


def test_psst_on_two_ranks(tmp_path, bindir):
    cli = CLI(tmp_path / "r.sqlite")
    out = tmp_path / "psst.json"
    p = cli("tune", "psst", "--np", "2", "-o", str(out), *SETS, "--set", "psst.truncation=10",
            "--set", "psst.days=0.2", "--set", "psst.levels=1", timeout=300)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(out.read_text())["rows"]
    assert row["ranks"] == 2 and row["candidates"] >= 12        # 3 FFTs x 2 sums x 2 grids ...
    assert row["best"]["transpose"] in ("alltoallv", "pairwise", "distributed")


@pytest.mark.parametrize("args,msg", [
    (["pop"], f"tune pop: one of {', '.join(sorted(TUNABLE))}"),
    (["psst", "--np", "2", "--ranks", "1,2"], "two ways"),
    (["psst", "--np", "0"], "--np 0"),
    (["psst", "-o", "/nonexistent/dir/t.json"], "directory /nonexistent/dir does not exist"),
])
def test_bad_input(tmp_path, args, msg):
    p = CLI(tmp_path / "r.sqlite")("tune", *args)
    assert p.returncode == 2 and msg in one_line_error(p.stderr), p.stderr



def test_dense_block_size_and_grid(tmp_path, bindir):
    """`hpceval tune dense`: every process grid and NB 32, 64, 128 of one order; the best NB
    and grid per kind, order and rank count (hpceval/analysis/tune.py's dense entry)."""
    cli = CLI(tmp_path / "r.sqlite")
    out = tmp_path / "dense.json"
    p = cli("tune", "dense", "--np", "2", "-o", str(out), "--set", "dense.n=300",
            "--set", "min-reps=3", "--set", "max-reps=3", "--set", "warmup=0", timeout=300)
    assert p.returncode == 0, p.stderr
    [row] = json.loads(out.read_text())["rows"]
    assert row["problem"] == {"kind": "complex", "n": 300} and row["ranks"] == 2
    assert row["candidates"] == 6                      # NB 32, 64, 128 x grids 1x2, 2x1
    assert row["best_name"] == f"NB {row['best']['nb']} {row['best']['P']}x{row['best']['Q']}"
