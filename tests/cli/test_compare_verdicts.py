"""compare, show --all, export and history --stat on planted runs imported from a generated
export (in-process: the command line's own code, no subprocess): a 20%-slower point is called
slower with its interval, an identical one the same, a wide one undecided with the reason; the
percentiles are shown, exported and followed."""
import csv
import io
import json

import numpy as np
import pytest
import scipy.stats  # noqa: F401  (a second to import: at collection, not in the first test)

from hpceval.cli import _main
from hpceval.cli.common import fmt_value

RNG = np.random.default_rng(7)
QUIET = 2.5 * RNG.lognormal(0.0, 0.02, 200)
WIDE = 80.0 * RNG.lognormal(0.0, 0.3, 30)
# (benchmark, bytes): the reference's samples, and the other run's
POINTS = {("pingpong", 8): (QUIET, 1.2 * RNG.permutation(QUIET)),          # 20% slower
          ("pingpong", 1024): (4 * QUIET, 4 * RNG.permutation(QUIET)),     # identical
          ("mem-latency", 4096): (WIDE, 1.03 * RNG.permutation(WIDE))}     # wide, overlapping


def record(bench, size, x):
    s = np.sort(x)
    n = len(x)
    return {"benchmark": bench, "params": {"bytes": size}, "metric": "latency",
            "unit": "us" if bench == "pingpong" else "ns", "statistic": "median",
            "better": "lower", "converged": True,
            "stats": {"n": n, "min": s[0], "median": float(np.median(x)), "mean": x.mean(),
                      "max": s[-1], "stddev": x.std(ddof=1), "ci_low": s[n // 2 - 8],
                      "ci_high": s[n // 2 + 8]},
            "samples": x.tolist(), "extra": {"disturbed": "preempted 9 times"}}


def run(i):
    return {"export_version": 1, "uuid": f"{i}{i}{i}{i}aaaa-bbbb-cccc-dddd-eeeeffff0000",
            "started": f"2026-12-0{i}T00:00:00+00:00", "suite": "quick", "status": "ok",
            "tags": [], "fingerprint": {"hash": "ab" * 8, "hostname": "planted"}, "launches": [],
            "records": [record(b, n, xs[i - 1]) for (b, n), xs in POINTS.items()]}


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    db = tmp_path / "r.sqlite"
    f = tmp_path / "planted.json"
    f.write_text(json.dumps([run(1), run(2)]))

    def call(*args):
        code = _main([*args, "--db", str(db)])
        out = capsys.readouterr()
        assert code == 0, out.err
        return out.out
    call("import", str(f))
    return call


def test_compare_decides_the_planted_points(cli):
    out = json.loads(cli("compare", "1", "2", "--json"))
    rows = {(r["benchmark"], r["params"]["bytes"]): r for r in out["rows"]}
    slow, same, wide = (rows[k] for k in POINTS)
    assert [r["verdicts"][1] for r in (slow, same, wide)] == ["slower", "same", "undecided"]
    assert slow["ratios"][1] == pytest.approx(1.2) and 1.05 < slow["intervals"][1][0] < 1.2
    assert slow["methods"][1] == "bootstrap" and slow["why"][1] is None
    assert same["intervals"][1][0] >= 0.95 and same["intervals"][1][1] <= 1.05
    assert wide["why"][1].startswith("the interval is wider than the ±5% band")
    assert out["summary"][1]["verdicts"] == {"faster": 0, "slower": 1, "same": 1,
                                             "undecided": 1, "not comparable": 0}
    text = cli("compare", "1", "2", "--all")
    assert "0 faster, 1 slower, 1 the same" in text and "1 undecided" in text
    assert "slower x1.200 (" in text and "percentile bootstrap" in text
    assert "undecided: mem-latency latency bytes=4096, #2: the interval is wider" in text
    # --tolerance widens the band: the 20% stays slower, nothing else moves
    out = json.loads(cli("compare", "1", "2", "--json", "--tolerance", "0.1"))
    assert out["tolerance"] == 0.1 and out["summary"][1]["verdicts"]["slower"] == 1


def test_percentiles_shown_exported_and_followed(cli):
    x = POINTS[("pingpong", 8)][0]
    p90, p99 = np.percentile(x, [90, 99])
    text = cli("show", "1", "--all")
    assert "p90" in text and "p99" in text and "CV" in text
    assert f" {fmt_value(p90)} " in text and f" {fmt_value(p99)} " in text
    rows = list(csv.DictReader(io.StringIO(cli("export", "1", "--format", "csv"))))
    assert list(rows[0])[-6:] == ["converged", "dropped", "p50", "p90", "p99", "cv"]
    assert float(rows[0]["p90"]) == pytest.approx(p90, rel=1e-12)
    assert float(rows[0]["p99"]) == pytest.approx(p99, rel=1e-12)
    assert float(rows[0]["cv"]) == pytest.approx(x.std(ddof=1) / x.mean(), rel=1e-12)
    [exported] = json.loads(cli("export", "1"))
    assert exported["records"][0]["samples"] == x.tolist()
    assert exported["records"][0]["stats"]["p99"] == pytest.approx(p99, rel=1e-12)
    [series] = json.loads(cli("history", "--benchmark", "pingpong", "--param", "bytes=8",
                              "--stat", "p90", "--json"))
    assert series["stat"] == "p90"
    assert [p["value"] for p in series["points"]] == pytest.approx(
        [np.percentile(xs, 90) for xs in POINTS[("pingpong", 8)]], rel=1e-12)


def test_the_machines_run_to_run_spread_widens_the_interval(tmp_path, capsys, monkeypatch):
    """Six runs of one machine: each run's samples within 2%, but the 8 B latency's level moves
    10% from run to run (as this VM's launches do) and the 1 KiB point's 0.5%. The last run is
    20% slower on both: from its samples alone both are slower; against the machine's spread
    the 8 B is undecided, with the spread named, and the 1 KiB still slower."""
    monkeypatch.setenv("COLUMNS", "250")
    rng = np.random.default_rng(52)
    levels = {8: [1.0, 1.12, 0.9, 1.05, 0.93, 1.2 * 0.93], 1024: [1.0, 1.005, 0.995, 1.0, 1.004,
                                                                1.2 * 1.004]}
    runs = []
    for i in range(6):
        recs = [record("pingpong", b, lv[i] * 2.5 * rng.lognormal(0.0, 0.02, 200))
                for b, lv in levels.items()]
        runs.append({**run(1), "uuid": f"{i}{i}{i}{i}aaaa-bbbb-cccc-dddd-eeeeffff0000",
                     "started": f"2026-12-0{i + 1}T00:00:00+00:00", "records": recs})
    f = tmp_path / "six.json"
    f.write_text(json.dumps(runs))
    db = str(tmp_path / "six.sqlite")

    def call(*args):
        code = _main([*args, "--db", db])
        out = capsys.readouterr()
        assert code == 0, out.err
        return out.out
    call("import", str(f))
    out = json.loads(call("compare", "5", "6", "--json"))
    rows = {r["params"]["bytes"]: r for r in out["rows"]}
    assert out["interval"]["history"] == [1, 2, 3, 4, 5]      # the judged run left out
    moving, steady = rows[8], rows[1024]
    assert moving["verdicts"][1] == "undecided" and moving["run_spread"]["runs"] == 5
    assert moving["methods"][1] == "bootstrap + run-to-run spread"
    assert moving["intervals"][1][0] < 1.0 < 1.2 < moving["intervals"][1][1]
    assert "this point spreads 9" in moving["why"][1] and "over 5 runs of this machine" in \
        moving["why"][1]
    assert steady["verdicts"][1] == "slower" and 1.05 < steady["intervals"][1][0] < 1.2
    text = call("compare", "5", "6", "--all")
    assert "the reference machine's 5 runs in the database" in text
    # from the two runs' samples alone, as before: both slower
    alone = json.loads(call("compare", "5", "6", "--json", "--no-history"))
    assert [r["verdicts"][1] for r in alone["rows"]] == ["slower", "slower"]
    assert alone["interval"]["history"] == [] and alone["rows"][0]["run_spread"] is None
