"""hpceval predict on real runs: the machine's ping-pong, collectives and one-rank proxy runs give
a prediction on 1 and 2 ranks held against the measured runs, extrapolated rank counts, figures,
the report's Models section; bad input is one line and exit 2."""
import json

import pytest

from helpers import CLI, FAST, one_line_error

BARO = ["--set", "barotropic.grids=48x32", "--set", "barotropic.land=none",
        "--set", "barotropic.halos=pack", "--set", "barotropic.sums=allreduce",
        "--set", "barotropic.mappings=row"]
PSST = ["--set", "psst.truncation=21", "--set", "psst.levels=1", "--set", "psst.days=0.5",
        "--set", "psst.transposes=alltoallv", "--set", "psst.sums=allreduce"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("predict") / "r.sqlite")
    p = cli("run", "pingpong", "collectives", "barotropic", "psst", "--np", "2", *FAST,
            "--set", "ranks=1,2", "--set", "pingpong.refine=0",
            "--set", "collectives.ops=allreduce,alltoall", *BARO, *PSST, timeout=300)
    assert p.returncode == 0, p.stderr
    return cli


# What predict does with real runs: rows, parts, sources and the error it states. How close the
# prediction comes is no bound here (this VM's states move the measured side by 1.3x:
# docs/repeatability.md); it is benchmarks/real_predict.py's figure (docs/models.md), and the
# models are held against simulated runs, where nothing but the planted platform enters the
# time (tests/simulate/test_predict16.py).
@pytest.mark.parametrize("proxy,args", [("barotropic", ["--grid", "48x32"]),
                                        ("psst", ["--set", "truncation=21", "--set", "levels=1"])])
def test_prediction_against_measurement(measured, proxy, args):
    p = measured("predict", proxy, "--ranks", "1,2", *args, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [r["ranks"] for r in out["rows"]] == [1, 2]
    for r in out["rows"]:
        assert r["measured"] > 0 and r["predicted"] > 0 and r["measured_in_run"] == 1, r
        # the error is (predicted - measured) / measured, of the figures beside it
        assert r["error"] == pytest.approx(r["predicted"] / r["measured"] - 1, rel=1e-6), r
        assert abs(sum(r["parts"].values()) - r["predicted"]) < 1e-9 * r["predicted"]
    assert "message time" in out["sources"] and out["rows"][1]["grid"] in ("1x2", "2x1")
    table = measured("predict", proxy, "--ranks", "1,2", *args).stdout
    assert "predicted" in table and "measured" in table and "message time:" in table


def test_extrapolation_and_figures(measured, tmp_path):
    p = measured("predict", "barotropic", "--grid", "960x640", "--extrapolate",
                 "--figures", str(tmp_path / "f"))
    assert p.returncode == 0, p.stderr
    assert "100000" in p.stdout and "communication exceeds computation from" in p.stdout
    assert {f.name for f in (tmp_path / "f").iterdir()} == {"predict-barotropic.svg",
                                                           "predict-barotropic.png"}
    # a grid too small for the far rank counts: those are left out, and said so
    p = measured("predict", "barotropic", "--grid", "48x32", "--extrapolate")
    assert p.returncode == 0 and "left out:" in p.stdout, p.stdout


def test_report_has_a_models_section(measured, tmp_path):
    out = tmp_path / "r.html"
    assert measured("report", "latest", "-o", str(out)).returncode == 0
    html = out.read_text()
    assert ">Models<" in html and "barotropic: predicted vs measured" in html


@pytest.mark.parametrize("args,msg", [
    (["pop"], "no model of 'pop'"),
    (["barotropic", "--ranks", "0"], "--ranks 0"),
    (["barotropic", "--ranks", "two"], "--ranks two"),
    (["barotropic", "--set", "bogus=1"], "barotropic's options are"),
    (["montecarlo", "--grid", "8x8"], "montecarlo has no grid option"),
    (["barotropic", "--grid", "8"], "expected NXxNY"),
    (["sweep", "--grid", "8x8x8"], "no one-rank sweep record"),
    (["barotropic", "--machine", "999"], "999"),
    ([], "give a proxy to predict, or --run RUN"),
    (["--run", "999"], "999"),
    (["pop", "--run", "1"], "no model of 'pop'"),
])
def test_bad_input(measured, args, msg):
    p = measured("predict", *args)
    assert p.returncode == 2 and msg in one_line_error(p.stderr), p.stderr


def test_every_model_against_a_run(measured):
    # the run measured barotropic (48x32, no land) and psst on 1 and 2 ranks: each model is
    # predicted at exactly those rungs and held against them
    p = measured("predict", "--run", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    got = {c["proxy"]: c for c in out["checked"]}
    assert {"barotropic", "psst"} <= set(got), out
    for proxy in ("barotropic", "psst"):
        rows = got[proxy]["rows"]
        assert got[proxy]["skipped"] is None and [r["ranks"] for r in rows] == [1, 2], got[proxy]
        for r in rows:
            assert r["error"] == pytest.approx(r["predicted"] / r["measured"] - 1, rel=1e-6)
    errors = sorted(abs(r["error"]) for c in out["checked"] for r in c["rows"])
    assert out["median_abs_error"] == pytest.approx(
        (errors[(len(errors) - 1) // 2] + errors[len(errors) // 2]) / 2)
    text = measured("predict", "--run", "latest", "barotropic").stdout
    assert "median absolute error" in text and "psst" not in text, text


def test_a_run_is_held_against_its_own_times(measured, tmp_path):
    """`predict --run` compares each rung with what that run measured, not the best of every
    run of the machine: a copy of the run twice as fast, imported beside it, changes nothing of
    `--run 1` and is itself held against its own halved times."""
    before = json.loads(measured("predict", "--run", "1", "barotropic", "--json").stdout)
    (run,) = json.loads(measured("export", "1", "--format", "json").stdout)
    run["uuid"] = "00000000-0000-4000-8000-000000000001"
    for r in run["records"]:
        if r["benchmark"] == "barotropic" and r["metric"] == "iteration_time":
            r["stats"] = {k: v / 2 if isinstance(v, float) else v for k, v in r["stats"].items()}
            for where in (r, r.get("extra") or {}):
                if where.get("samples"):
                    where["samples"] = [x / 2 for x in where["samples"]]
    (tmp_path / "fast.json").write_text(json.dumps([run]))
    p = measured("import", str(tmp_path / "fast.json"))
    assert p.returncode == 0, p.stderr
    fast_id = int(p.stdout.split("(ids: ")[1].split(")")[0])
    after = json.loads(measured("predict", "--run", "1", "barotropic", "--json").stdout)
    rows = lambda out: {r["ranks"]: r for c in out["checked"] for r in c["rows"]}  # noqa: E731
    assert {n: r["measured"] for n, r in rows(after).items()} == \
        {n: r["measured"] for n, r in rows(before).items()}
    fast = json.loads(measured("predict", "--run", str(fast_id), "barotropic", "--json").stdout)
    for n, r in rows(fast).items():
        assert r["measured"] == pytest.approx(rows(before)[n]["measured"] / 2), (n, r)


def test_no_runs(tmp_path):
    p = CLI(tmp_path / "empty.sqlite")("predict", "barotropic")
    assert p.returncode == 2 and one_line_error(p.stderr), p.stderr
