"""The kernels through the command line: one copy and one per rank (2 ranks), planning refusals,
and the report's kernel figures and error table."""
from helpers import one_line_error

TINY = ["--set", "budget=0.02", "--set", "min-reps=1", "--set", "max-reps=2", "--set", "warmup=0"]


def test_sst_one_copy_and_two(cli, tmp_path):
    p = cli("run", "sst", "--set", "truncations=5,10", "--set", "levels=1,2", "--set", "days=0.5",
            "--set", "copies=1,2", "--set", "test=2,6", "--set", "alpha=0", *TINY)
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    recs = [r for r in run["records"] if r["benchmark"] == "sst"]
    mf = [r for r in recs if r["metric"] == "mflops"]
    # (copies 1, 2) x (test 2, 6) x 2 truncations x 2 level counts
    assert len(mf) == 16
    assert {r["params"]["copies"] for r in mf} == {1, 2}
    assert all(r["stats"]["median"] > 0 for r in mf)
    errs = [r for r in recs if r["metric"] == "height_error" and r["params"]["test"] == 2]
    assert len(errs) == 2 * 2 * 2 * 3 and all(r["stats"]["max"] < 1e-12 for r in errs)
    assert {l["meta"]["nranks"] for l in run["launches"]} == {1, 2}

    html = tmp_path / "r.html"
    p = cli("report", "latest", "-o", str(html), "--figures", str(tmp_path / "fig"))
    assert p.returncode == 0, p.stderr
    text = html.read_text()
    assert "MFlop/s vs levels per truncation" in text and "one core vs all cores" in text
    assert "test-case height errors" in text
    names = {f.name for f in (tmp_path / "fig").iterdir()}
    assert {"run1-sst_levels.svg", "run1-sst_contention.svg"} <= names


def test_blown_up_sst_fails_the_run(cli):
    """A blown-up integration marks the run failed and stores no rate for it; the point before
    it (T5, stable at that step) stays stored, with its start and the bound it met."""
    p = cli("run", "sst", "--set", "truncations=5,42", "--set", "levels=1", "--set", "copies=1",
            "--set", "test=6", "--set", "dt=7200", "--set", "days=2", *TINY)
    assert p.returncode == 1
    assert "test case 6 at T42" in one_line_error(p.stderr)
    [run] = cli.export("latest")
    assert run["status"] == "failed"
    [launch] = run["launches"]
    assert launch["status"] == "failed" and "not finite" in launch["message"]
    assert {r["params"]["truncation"] for r in run["records"]} == {5}
    for r in run["records"]:
        assert r["params"]["start"] == "classic" and r["extra"]["err_bound"] == 0.15


def test_column_through_cli(cli, tmp_path):
    p = cli("run", "column", "--set", "nlons=1,16,512", *TINY)
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    assert sorted(r["params"]["nlon"] for r in run["records"]) == [1, 16, 512]
    p = cli("report", "latest", "-o", str(tmp_path / "c.html"))
    assert p.returncode == 0 and "Column-physics kernel vs longitude dimension" in (
        tmp_path / "c.html").read_text()


def test_plan_refusals(cli):
    for args, msg in [(["sst", "--set", "levels=0"], "levels"),
                      (["sst", "--set", "truncations=21", "--set", "nlon=60"], "aliases"),
                      (["sst", "--set", "truncations=5,10", "--set", "nlat=20"], "one truncation"),
                      (["sst", "--set", "scheme=implicit"], "scheme"),
                      (["column", "--set", "nlons=1024"], "ncols")]:
        p = cli("run", *args)
        assert p.returncode == 2, (args, p.stderr)
        assert msg in one_line_error(p.stderr)


def test_kernels_suite_is_registered(cli):
    p = cli("list")
    assert p.returncode == 0
    line = next(l for l in p.stdout.splitlines() if l.strip().startswith("kernels"))
    assert "column" in line and "sst" in line
