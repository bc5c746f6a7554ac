"""Report sections "Application proxies" and "Traces": figures from synthetic barotropic records
and Chrome traces shaped as docs/records.md and docs/trace.md, tables, the whole HTML report;
and, when the barotropic binary is built, the same from a real run with real ranks."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from hpceval.analysis.scaling import CLOSURE_TOL, overhead_rows
from hpceval.report import TABLES, render_report, write_report
from hpceval.views import figures_proxies as fp
from hpceval.views.data import fmt_num
from hpceval.views import figures_trace as ft
from hpceval.report import FIGURES
from hpceval.views.plot import make_figure, to_svg
from proxy_runs import GRIDS, VARIANTS, make_run, solver_model, stats

ROOT = Path(__file__).resolve().parents[2]
BAROTROPIC = ROOT / "build" / "bin" / "hpceval-barotropic"
TRACELIB = ROOT / "build" / "lib" / "libhpceval-trace.so"

PROXY_FIGS = [s for s in FIGURES if s.section == fp.SECTION and s.benchmark == "barotropic"]
TRACE_FIGS = [s for s in FIGURES if s.section == ft.SECTION]


@pytest.fixture(scope="module")
def run():
    return make_run()


def test_every_proxy_figure_renders(run):
    assert [s.make.__name__ for s in PROXY_FIGS] == ["barotropic_variants", "barotropic_scaling",
                                                     "barotropic_overhead"]
    for spec in PROXY_FIGS:
        fig = make_figure(spec, [run])
        assert isinstance(fig, Figure), spec.title
        assert "<svg" in to_svg(fig, "t-")


def test_figures_return_none_without_data():
    empty = make_run(with_baro=False, with_traces=False)
    empty["records"] = [{"benchmark": "pingpong", "params": {"bytes": 8}, "metric": "latency",
                         "unit": "us", "statistic": "median", "better": "lower",
                         "stats": stats(1.0)}]
    for spec in PROXY_FIGS + TRACE_FIGS:
        assert make_figure(spec, [empty]) is None, spec.title
    for spec in TABLES:
        if spec.section in (fp.SECTION, ft.SECTION):
            assert spec.make(empty) is None
    # records without phase timers: variants and scaling, but no overhead breakdown
    bare = make_run(with_traces=False)
    for r in bare["records"]:
        r.get("extra", {}).pop("phases", None)
    assert fp.barotropic_variants([bare]) is not None
    assert fp.barotropic_scaling([bare]) is not None
    assert fp.barotropic_overhead([bare]) is None and fp.overhead_table(bare) is None


def test_variants_table(run):
    t = fp.variants_table(run)
    assert len(t.rows) == len(VARIANTS) * (len(GRIDS) + 3)
    first = t.rows[0]
    assert first[:6] == ["96x64, continents", "1 x 1", "—", "datatype", "allreduce", "—"]
    assert first[6] == "140" and first[10] == "3.0e-13"
    t1 = solver_model(1, 1, 0)[1]
    assert first[7] == fmt_num(t1) and first[9] == fmt_num(3600.0 / (140 * t1 * 1e-6))
    tree = next(r for r in t.rows if r[4] == "tree")
    assert tree[5] == "2"
    assert all(r[9] != "—" for r in t.rows)  # sim days/day found for every configuration


def test_overhead_table_and_closure(run):
    t = fp.overhead_table(run)
    rows = overhead_rows(run["records"])
    assert len(t.rows) == len(rows) == len(VARIANTS) * 3  # 1, 2, 4 ranks (best grid), strong
    assert all(r[-2] == "yes" for r in t.rows)
    assert f"{100 * CLOSURE_TOL:g}%" in t.note
    for row in rows:
        b = row["breakdown"]
        pc = b.percent()
        # the model's ranks wait for the slowest inside the halo phase: that is the imbalance
        arr = row["record"]["extra"]["phases"]
        work = [c + k for c, k in zip(arr["compute"]["per_rank"], arr["copy"]["per_rank"])]
        assert b.imbalance == pytest.approx(sum(max(work) - w for w in work))
        assert sum(pc[k] for k in ("communication", "imbalance", "copies", "duplicated",
                                   "rate_change", "unattributed")) == pytest.approx(pc["overhead"])
        assert b.efficiency == pytest.approx(
            run_time(run, row, 1) / (row["nranks"] * row["time_us"]))


def run_time(run, row, p):
    return next(r["stats"]["median"] for r in run["records"]
                if r["metric"] == "iteration_time" and r["params"]["scaling"] == "strong"
                and r["params"]["P"] * r["params"]["Q"] == p and r["params"]["halo"] == row["halo"]
                and r["params"]["sum"] == row["sum"])


def test_scaling_table(run):
    t = fp.scaling_table(run)
    strong = [r for r in t.rows if r[0] == "strong"]
    weak = [r for r in t.rows if r[0] == "weak"]
    assert len(strong) == len(VARIANTS) * 3 and len(weak) == len(VARIANTS) * 3
    assert {r[4] for r in strong if r[3] == "2"} == {"2x1"}   # the faster aspect ratio
    assert all(r[7] == "100.0%" for r in t.rows if r[3] == "1")
    assert {r[1] for r in weak} == {"1536 points/rank, continents"}


def test_trace_figures_and_table(run):
    gantt, util = TRACE_FIGS[0], TRACE_FIGS[1]
    fig = make_figure(gantt, [run])
    assert isinstance(fig, Figure)
    legend = fig.axes[0].get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert {"compute", "MPI_Waitall (idle)", "MPI_Allreduce (overhead)"} <= set(labels)
    colours = [tuple(h.get_facecolor()) for h in legend.legend_handles]
    assert len(set(colours)) == len(colours)          # one colour per phase or call
    assert "window, middle of the run: 2–4 ms of 6 ms" in fig._suptitle.get_text()
    short = make_figure(gantt, [make_run(with_baro=False, iterations=10)])
    assert short._suptitle.get_text().endswith("task Gantt chart\nwhole trace, 1000 µs")
    assert isinstance(make_figure(util, [run]), Figure)
    assert make_figure(TRACE_FIGS[2], [run]) is None    # the run has one trace
    assert make_figure(gantt, [run, make_run(8)]) is None  # traces are per run
    table = next(s for s in TABLES if s.title == "Trace 1: per-rank summary").make(run)
    assert table.columns[:5] == ["rank", "host", "busy %", "overhead %", "idle %"]
    assert "compute %" in table.columns and "global_sum %" in table.columns
    assert len(table.rows) == 5 and table.rows[-1][0] == "mean"
    # rank 0 computes 60 of every 100 us; its halo wait is 23 us; the sum 13 + 2 us in MPI
    r0 = table.rows[0]
    assert r0[2:5] == ["62.0", "15.0", "23.0"]


def test_long_trace_gantt_draws_a_window_and_stays_small():
    run = make_run(with_baro=False, iterations=3000)   # 72000 slices
    fig = ft._gantt([run], 0)
    title = fig._suptitle.get_text()
    assert "window" in title and "middle of the run" in title
    svg = to_svg(fig, "g-")
    assert len(svg) < 600_000
    util = to_svg(ft._utilization([run], 0), "u-")
    assert len(util) < 300_000


def test_report_has_the_sections(run):
    html = render_report([run])
    assert "<h4>Application proxies</h4>" in html and "<h4>Traces</h4>" in html
    for spec in PROXY_FIGS + TRACE_FIGS[:2]:
        assert spec.title in html
    for title in ("Barotropic solver variants", "Barotropic solver scaling",
                  "Barotropic solver overhead shares", "Trace 1: per-rank summary"):
        assert f"<h5>{title}</h5>" in html
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    both = render_report([run, make_run(8, with_traces=False)])
    comparison = both.split('<section id="comparison">', 1)[1].split("</section>", 1)[0]
    assert "Barotropic solver: parallel overhead breakdown" in comparison
    assert "Gantt" not in comparison


def test_figure_files(tmp_path, run):
    write_report([run], tmp_path / "r.html", figure_dir=tmp_path / "fig")
    names = {p.name for p in (tmp_path / "fig").glob("*.svg")}
    assert {"run7-barotropic_overhead.svg", "run7-trace1_gantt.svg",
            "run7-trace1_utilization.svg"} <= names


# ---------------------------------------------------------------- real runs, real ranks

def _mpirun(np_, args, env=None, timeout=120):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(np_), str(BAROTROPIC),
           *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})}, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def _export(rec):
    """A JSON Lines result record as the export format holds it: extra keys under "extra"."""
    cols = {"benchmark", "params", "metric", "unit", "statistic", "better", "stats", "converged"}
    out = {k: v for k, v in rec.items() if k in cols}
    out["extra"] = {k: v for k, v in rec.items() if k not in cols and k != "type"}
    return out


def test_real_barotropic_breakdown_closes_and_renders(tmp_path, bindir):
    """1, 2 and 4 real ranks, one variant: the overhead shares add up to the measured total
    within the stated tolerance, and every figure of both sections draws."""
    one = ["--grids", "64x48", "--halos", "pack", "--sums", "allreduce", "--mappings", "row",
           "--budget", "0.3"]
    recs = []
    for np_, grid in ((1, "1x1"), (2, "2x1"), (4, "2x2")):
        recs += [_export(r) for r in _mpirun(np_, one + ["--pgrids", grid])
                 if r.get("type") == "result"]
    rows = overhead_rows(recs)
    assert [r["nranks"] for r in rows] == [1, 2, 4]
    for row in rows:
        b = row["breakdown"]
        assert row["closes"], (row["nranks"], b)
        assert b.overhead == pytest.approx(b.communication + b.imbalance + b.copies
                                           + b.duplicated + b.rate_change + b.unattributed)
    run = make_run(9, with_traces=False)
    run["records"] = recs
    from hpceval.trace.chrome import validate
    from hpceval.trace.merge import merge_dir
    tdir = tmp_path / "trace"
    _mpirun(2, one + ["--pgrids", "2x1", "--budget", "0.05"],
            env={"HPCEVAL_TRACE_DIR": str(tdir), "LD_PRELOAD": str(TRACELIB)})
    trace = merge_dir(tdir, "hpceval-barotropic")
    validate(trace)
    run["traces"] = [{"benchmark": "barotropic", "label": "barotropic np=2", "trace": trace}]
    summary = ft._summary_table(run, 0)
    assert [r[0] for r in summary.rows] == ["0", "1", "mean"]
    assert "compute %" in summary.columns and "halo %" in summary.columns
    for spec in PROXY_FIGS + TRACE_FIGS[:2]:
        assert isinstance(make_figure(spec, [run]), Figure), spec.title
    html = render_report([run])
    assert "<h5>Barotropic solver overhead shares</h5>" in html
