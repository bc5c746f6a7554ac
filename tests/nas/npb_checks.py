"""What the NPB kernels' tests (npb-mg, npb-lu, npb-bt) check alike: a bad option or rank count
is one line and exit 2, a failed verification an error record and exit 1, and neither gives
results; runs through `hpceval run` are carded and drawn; the MPICH build runs the same."""
import shutil
import subprocess

import pytest

from helpers import ROOT
from kernel_helpers import parse_record


def launch_mpich(name, np, *args, timeout=60):
    """hpceval-NAME of the MPICH build on np ranks under mpiexec.mpich: the process, records."""
    binary = ROOT / "build-mpich" / "bin" / f"hpceval-{name}"
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not binary.is_file():
        pytest.fail(f"{binary} is not built: run 'make build-mpich' (make test does)")
    p = subprocess.run(["mpiexec.mpich", "-n", str(np), str(binary), *args],
                       capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p, [parse_record(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]


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


def assert_run_carded_and_drawn(cli, tmp_path, bench, what, fast, np=2):
    """`hpceval run BENCH` at class S on np ranks: verified records, a machine-card row and a
    headline, and the report's Mop/s-vs-ranks figure, titled with `what` (e.g. NAS MG (NPB))."""
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.headlines import headlines
    p = cli("run", bench, "--set", f"{bench}.class=S", "--np", str(np), *fast, timeout=120)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and [l["nranks"] for l in run["launches"]] == [np]
    [mops] = [r for r in run["records"] if r.get("metric") == "mops"]
    assert mops["extra"]["verified"] is True and mops["params"]["ranks"] == np
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


def time_record(bench, np, phases):
    """The run_time record of `bench` at class S on np ranks, whose phases are `phases` (name:
    kind), each with np per-rank values that cover the rank's timed run."""
    from kernel_helpers import mpirun
    p, recs = mpirun(bench, np, "--class", "S", "--min-reps", "1", "--max-reps", "1",
                     "--warmup", "0")
    assert p.returncode == 0, p.stderr
    [r] = [r for r in recs if r["type"] == "result" and r["metric"] == "run_time"]
    assert {k: v["kind"] for k, v in r["phases"].items()} == phases
    assert all(len(v["per_rank"]) == np for v in r["phases"].values())
    assert_phases_cover_wall(r)
    return r


def assert_phases_cover_wall(r):
    """The phases of a run_time record cover the timed run, each rank's wall time."""
    for k, wall in enumerate(r["wall_per_rank"]):
        assert sum(v["per_rank"][k] for v in r["phases"].values()) == pytest.approx(wall, rel=0.05)


def assert_setting_refused(cli, bench, setting, msg):
    """`hpceval run BENCH --set SETTING`: exit 2 before any launch, one line holding msg."""
    from helpers import FAST, one_line_error
    p = cli("run", bench, "--set", setting, *FAST)
    assert p.returncode == 2
    assert msg in one_line_error(p.stderr)
