"""`hpceval spec FILE [RUN]` and `--spec FILE` on run and report (hpceval/cli/cmd_spec.py): the
sheet checked before anything runs, stored with the run, and set against what it measured."""
from __future__ import annotations

SHEET = """name = "two-core test sheet"
peak_gflops_per_node = 200
cores_per_node = 2
memory_bandwidth_gbs_per_node = 40
"""
TINY = ["--set", "dense.n=200", "--set", "dense.nb=32", "--set", "dense.grids=1x1",
        "--set", "min-reps=3", "--set", "max-reps=3", "--set", "warmup=0", "--no-remeasure",
        "--llc", "reported"]
PCT = "Dense solve, % of spec-sheet peak"


def _pct_line(out: str) -> str:
    return next(line for line in out.splitlines() if PCT in line)


def test_run_with_a_sheet_then_spec_and_report(cli, bindir, tmp_path):
    sheet = tmp_path / "v.toml"
    sheet.write_text(SHEET)
    p = cli("run", "dense", "--np", "1", "--spec", str(sheet), *TINY)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["settings"]["spec"] == {"name": "two-core test sheet", "peak_gflops_per_node": 200.0,
                                       "cores_per_node": 2, "memory_bandwidth_gbs_per_node": 40.0}
    [g] = [r for r in run["records"] if r["metric"] == "gflops"]
    # `hpceval spec` on the stored run: the dense rate against 100 GFlop/s a core
    other = tmp_path / "w.json"
    other.write_text('{"peak_gflops_per_node": 20, "cores_per_node": 2}')
    s = cli("spec", str(other), str(run["id"]))
    assert s.returncode == 0, s.stderr
    pct = 100 * g["stats"]["median"] / 10.0
    assert f"{pct:.4g} %" in _pct_line(s.stdout)
    (again,) = cli.export("latest")
    assert again["settings"]["spec"] == {"peak_gflops_per_node": 20.0, "cores_per_node": 2}
    c = cli("spec", "--check", str(sheet))
    assert c.returncode == 0 and "peak_gflops_per_node = 200.0" in c.stdout
    html = tmp_path / "r.html"
    r = cli("report", "-o", str(html), "--spec", str(sheet))
    assert r.returncode == 0, r.stderr
    text = html.read_text()
    assert "Peaks: promised against delivered" in text and "two-core test sheet" in text
    assert "Dense solve: GFlop/s vs ranks" in text          # the figure (views/figures_dense.py)


def test_a_bad_sheet_is_refused_before_launching(cli, bindir, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("peak_gflops_per_node = 0\n")
    p = cli("run", "dense", "--np", "1", "--spec", str(bad), *TINY)
    assert p.returncode == 2
    assert p.stderr.strip() == (f"hpceval: error: spec {bad}: peak_gflops_per_node = 0 GFlop/s "
                                "is absurd (expected above 0 and at most 1e+07)")
    assert cli("runs").stdout.count("dense") == 0
    assert cli("spec", str(bad)).returncode == 2
