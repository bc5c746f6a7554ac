"""The SP2 application set as a whole: the `nas` suite plans, and two runs of it (before and after
a change, as the SP2 paper's communication-subsystem upgrade) compare as old/new bars of time and
Mop/s per benchmark."""
import json

from helpers import FAST

TINY = ["--set", "npb-cg.class=S", "--set", "npb-mg.class=S", "--set", "phold.lps=64",
        "--set", "phold.end=4", "--set", "phold.lookahead=0.5", "--set", "phold.remote=0.5",
        "--set", "phold.sync=yawns"]


def test_nas_suite_plans_every_benchmark(cli):
    p = cli("run", "nas", "--dry-run")
    assert p.returncode == 0, p.stderr
    for what in ("npb-cg np=2 class W", "npb-mg np=1 class S", "npb-lu np=2 class W",
                 "npb-bt np=4 class S", "npb-bt np=1 class W", "npb-sp np=4 class S",
                 "phold np=2"):
        assert what in p.stdout, p.stdout


def test_two_runs_compare_as_old_new_bars(cli, tmp_path):
    for tag in ("old", "new"):
        p = cli("run", "npb-cg", "npb-mg", "phold", "--np", "2", *FAST, *TINY, "--tag", tag,
                timeout=300)
        assert p.returncode == 0, p.stderr
    out = json.loads(cli("compare", "1", "2", "--json", "--all").stdout)
    pairs = {(r["benchmark"], r["metric"]) for r in out["rows"]}
    assert {("npb-cg", "mops"), ("npb-cg", "run_time"), ("npb-mg", "mops"),
            ("phold", "event_rate")} <= pairs, pairs
    p = cli("compare", "1", "2", "--figures", str(tmp_path / "fig"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "fig" / "compare-normalised.svg").is_file()
    report = tmp_path / "r.html"
    assert cli("report", "1", "2", "-o", str(report)).returncode == 0
    html = report.read_text()
    assert "SP2 application set" in html and "NAS MG (NPB): Mop/s vs ranks" in html
