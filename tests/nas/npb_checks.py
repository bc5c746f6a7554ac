"""What the NPB kernels' tests (npb-mg, npb-lu) check alike: a bad option or rank count is one
line and exit 2, a failed verification an error record and exit 1, and neither gives results."""


def assert_usage_error(p, recs, np, msg):
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert msg in lines[0], p.stderr
    if np == 0:  # alone, the binary says one line (mpirun adds its own report after it)
        assert len(lines) == 1, p.stderr
    assert not [r for r in recs if r["type"] == "result"]


def assert_verification_fails(p, recs, *phrases):
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    for phrase in phrases + ("exceeds the bound 1e-08",):
        assert phrase in err["message"], err["message"]
    assert not [r for r in recs if r["type"] == "result"]


def assert_run_carded_and_drawn(cli, tmp_path, bench, what, fast):
    """`hpceval run BENCH` at class S on 2 ranks: verified records, a machine-card row and a
    headline, and the report's Mop/s-vs-ranks figure, titled with `what` (e.g. NAS MG (NPB))."""
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    p = cli("run", bench, "--set", f"{bench}.class=S", "--np", "2", *fast, timeout=120)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and [l["nranks"] for l in run["launches"]] == [2]
    [mops] = [r for r in run["records"] if r.get("metric") == "mops"]
    assert mops["extra"]["verified"] is True and mops["params"]["ranks"] == 2
    card = {r["quantity"]: r for r in machine_card(run)}
    assert card[f"{what}, Mop/s"]["measured"]
    assert any(bench in str(h["record"]["benchmark"]) for h in headlines(run["records"]))
    out = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(out)).returncode == 0
    assert f"{what}: Mop/s vs ranks, per class" in out.read_text()


def assert_plan_refused(cli, bench, ranks, msg, fast):
    from helpers import one_line_error
    p = cli("run", bench, "--set", f"{bench}.ranks={ranks}", *fast)
    assert p.returncode != 0
    assert one_line_error(p.stderr) == f"hpceval: error: {msg}"


def assert_phases_cover_wall(r):
    """The phases of a run_time record cover the timed run, each rank's wall time."""
    import pytest
    for k, wall in enumerate(r["wall_per_rank"]):
        assert sum(v["per_rank"][k] for v in r["phases"].values()) == pytest.approx(wall, rel=0.05)
