"""The report's entry points: the HTML (render_report, write_report) and the figure files of a
comparison, a history and a trace."""
from __future__ import annotations

from pathlib import Path

from hpceval.outfiles import outputs

from .areas import FIGURES
from hpceval.views.plot import make_figure

from .render import render
from .trends import history_figure, save_all
from .views import figure_sections, figures_of, normalised_figure, report_view, safe


def _build(runs: list[dict], title: str | None, history: list[dict] | None = None) -> tuple[str, list]:
    view = report_view(runs, title, history)
    return render(view, figures_of(view))


def render_report(runs: list[dict], *, title: str | None = None) -> str:
    """The complete, self-contained HTML report of `runs` (export-format dicts, in this order)."""
    return _build(list(runs), title)[0]


def write_report(runs: list[dict], path, *, figure_dir=None, title: str | None = None,
                 pdf: bool = False, history: list[dict] | None = None) -> list[Path]:
    """Write the report to `path`; with `figure_dir`, also every figure as <stem>.svg and
    <stem>.png, and <stem>.pdf with `pdf` (stems like run3-pingpong_latency,
    compare-memory_latency, history-headline). Returns the paths written, the HTML first.
    `history`: the first run's machine's runs, whose run-to-run spread widens the comparison's
    intervals (analysis/runspread.py).
    The figures and the HTML are renamed into place together (outfiles.Outputs), so a failure
    or a refusal leaves an older report and its figures as they were."""
    html, made = _build(list(runs), title, history)
    path = Path(path)
    written = [path]
    with outputs("-o") as batch:
        if figure_dir is not None:
            written += save_all(made, Path(figure_dir), pdf, batch)
        with batch.open(path, "w", "html") as f:
            f.write(html)
    return written


def save_comparison_figures(runs: list[dict], directory, *, pdf: bool = False) -> list[Path]:
    """The comparison's figures: every registered figure overlaying the runs that have its
    benchmark, and the normalised headline bars. Returns the files written."""
    figs = [f for sec in figure_sections(runs, "compare", compare=True) for f in sec["figures"]]
    normalised = normalised_figure(runs)
    figs += [normalised] if normalised else []
    return save_all([(f["stem"], f["figure"]) for f in figs], Path(directory), pdf)


def save_trace_figures(trace: dict, label: str, directory, *, pdf: bool = False) -> list[Path]:
    """The task Gantt chart and utilization counts of one merged trace (hpceval trace)."""
    run = {"traces": [{"benchmark": "trace", "label": label, "trace": trace}]}
    made = []
    for spec in FIGURES:
        if spec.benchmark == "trace" and spec.make.__name__.startswith("trace1_"):
            fig = make_figure(spec, [run])
            if fig is not None:
                made.append((spec.make.__name__.replace("trace1_", "trace-"), fig))
    return save_all(made, Path(directory), pdf)


def save_history_figures(series: list, directory, *, pdf: bool = False) -> list[Path]:
    """One figure per history series (value over runs, spread bars, change points)."""
    made = []
    for i, x in enumerate(series):
        fig = history_figure([x], x.key)
        if fig is not None:
            made.append((f"history-{i:02d}-{safe(x.benchmark)}-{safe(x.metric)}", fig))
    return save_all(made, Path(directory), pdf)
