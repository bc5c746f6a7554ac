"""Self-contained HTML report of runs in the export format (docs/export.md).

    render_report(runs, title=None) -> str        the complete HTML document
    write_report(runs, path, figure_dir=None, pdf=False)
                                                  writes it; optionally each figure as SVG + PNG
                                                  (+ PDF)
    save_comparison_figures(runs, dir, pdf=False) overlay + normalised figures of a comparison
    save_history_figures(series, dir, pdf=False)  one figure per history series
    save_trace_figures(trace, label, dir, pdf=False)
                                                  Gantt chart and utilization counts of a trace

The machine card comes first in every run; with more than one run a comparison section and a
history section (the latest run's machine over the runs given) follow the contents.

The HTML has inline CSS and inline SVG figures only: no scripts and nothing fetched from
anywhere, so it can be mailed or opened on an air-gapped login node.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from hpceval.analysis.card import machine_card
from hpceval.analysis.compare import compare
from hpceval.analysis.history import history
from hpceval.analysis.summary import comparison_lines
from hpceval.areas import hook_items, import_prefixed

from . import data
from .trends import comparison_figure, history_figure, save_all
from .tables import TABLES, Table, TableSpec, register_table
from .figures import FIGURES, SVG_CSS, FigureSpec, make_figure, register_figure, to_svg

# Each area adds its figures in a module named figures_<area>.py (calling register_figure), and
# tables that stand alone in tables_<area>.py (register_table);
# importing them here keeps this file free of per-area edits.
import_prefixed(__name__, __path__, ("figures_", "tables_"))
# ... and a benchmark's catalog module may return its own from a hook `figures()`.
for _item in hook_items("figures"):
    (register_table if isinstance(_item, TableSpec) else register_figure)(_item)

__all__ = ["render_report", "write_report", "save_comparison_figures", "save_history_figures",
           "save_trace_figures", "FIGURES", "FigureSpec", "register_figure", "TABLES",
           "Table", "TableSpec", "register_table"]

STATUS_CLASS = {"ok": "ok", "failed": "bad", "interrupted": "warn", "running": "info",
                "abandoned": "bad",
                "queued": "info", "incomplete": "warn", "cancelled": "warn", "timeout": "bad"}


def _template() -> jinja2.Template:
    # Read through importlib.resources so the template is found in an installed wheel too.
    text = resources.files(__package__).joinpath("templates/report.html.j2").read_text("utf-8")
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    return env.from_string(text)


def _safe(name: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", str(name))


class _Figures:
    """Collects every figure once: its inline SVG for the page and its file stem for figure_dir."""

    def __init__(self) -> None:
        self.made: list[tuple[str, Any]] = []  # (file stem, Figure)

    def sections(self, runs: list[dict], stem: str, compare: bool = False) -> list[dict]:
        """[{section, figures: [{title, svg}]}] in registry order. With compare, a figure is made
        from the runs that have its benchmark, and only when at least two do."""
        out: list[dict] = []
        for spec in FIGURES:
            use = [r for r in runs if data.records(r, spec.benchmark)] if compare else runs
            fig = make_figure(spec, use) if len(use) > int(compare) else None
            if fig is None:
                continue
            name = f"{stem}-{spec.make.__name__}"
            svg = to_svg(fig, id_prefix=f"f{len(self.made)}-")
            self.made.append((name, fig))
            group = _group(out, spec.section)
            # The SVG is matplotlib's output with comments stripped and text drawn as paths, so
            # no string from the runs is in it as markup; it is safe to mark as such.
            group["figures"].append({"title": spec.title, "svg": Markup(svg)})
        if not compare and len(runs) == 1:
            for tspec in TABLES:
                table = tspec.make(runs[0])
                if table is not None and table.rows:
                    _group(out, tspec.section)["tables"].append(
                        {"title": tspec.title, "columns": table.columns, "rows": table.rows,
                         "note": table.note})
        return out


def _group(groups: list[dict], section: str) -> dict:
    """The section's group, created at the end when new (figures of a section stay together)."""
    for g in groups:
        if g["section"] == section:
            return g
    groups.append({"section": section, "figures": [], "tables": []})
    return groups[-1]


def _run_view(run: dict, index: int, figs: _Figures, stems: set) -> dict:
    stem = f"run{_safe(run.get('id', index))}"
    if stem in stems:  # runs from different databases may share an id
        stem += f"-{index}"
    stems.add(stem)
    launches = data.launch_rows(run)
    results = data.result_tables(run)
    status = str(run.get("status") or "unknown")
    return {
        "anchor": f"run-{index}", "id": run.get("id", "?"), "uuid": run.get("uuid") or "",
        "label": data.run_label(run), "suite": run.get("suite") or data.MISSING,
        "status": status, "status_class": STATUS_CLASS.get(status, "warn"),
        "started": run.get("started") or data.MISSING, "finished": run.get("finished") or data.MISSING,
        "tags": [str(t) for t in run.get("tags") or []],
        "card": data.card_rows(machine_card(run)),
        "summary": data.summary_view(run),
        "machine": data.fingerprint_rows(run),
        "headline": data.headline_rows(run),
        "figure_sections": figs.sections([run], stem),
        "results": results,
        "launches": launches,
        "failed_launches": sum(not r["ok"] for r in launches),
        "unconverged": sum(t["unconverged"] for t in results),
    }


def _inline(figs: _Figures, stem: str, fig, title: str) -> dict:
    svg = to_svg(fig, id_prefix=f"f{len(figs.made)}-")
    figs.made.append((stem, fig))
    return {"title": title, "svg": Markup(svg)}   # matplotlib's SVG, text as paths (see above)


def _comparison_view(runs: list[dict], figs: _Figures) -> dict:
    result = compare(runs)
    names = [data.run_label(r) for r in runs]
    fig = comparison_figure(result, [data.fig_label(r) for r in runs])
    return {
        "names": names, "tags": [[str(t) for t in r.get("tags") or []] for r in runs],
        "lines": comparison_lines(result, runs),
        "headline": data.compare_rows(result["headline"]),
        "rows": data.compare_rows(result["rows"]),
        "summary": data.compare_summary(result["summary"]),
        "figure": _inline(figs, "compare-normalised", fig, "Headline figures normalised by the best run")
                  if fig is not None else None,
        "overlays": figs.sections(runs, "compare", compare=True),
    }


def _history_view(runs: list[dict], figs: _Figures) -> dict | None:
    series = history(runs)          # the latest run's machine, over the runs of this report
    if not series or max(len(x.points) for x in series) < 2:
        return None
    fig = history_figure(series, "Headline figures over time")
    machine = next((r for r in sorted(runs, key=lambda r: str(r.get("started") or ""))[::-1]), {})
    return {"machine": data.run_label(machine), "rows": data.history_rows(series),
            "figure": _inline(figs, "history-headline", fig, "Headline figures over time")
                      if fig is not None else None}


def _build(runs: list[dict], title: str | None) -> tuple[str, list]:
    figs = _Figures()
    comparison = _comparison_view(runs, figs) if len(runs) > 1 else None
    hist = _history_view(runs, figs) if len(runs) > 1 else None
    stems: set = set()
    views = [_run_view(run, i, figs, stems) for i, run in enumerate(runs, 1)]
    html = _template().render(
        title=title or "hpceval report",
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        runs=views, comparison=comparison, history=hist, svg_css=SVG_CSS,
    ).lstrip()  # the template's leading macro definitions leave blank lines
    return html, figs.made


def save_comparison_figures(runs: list[dict], directory, *, pdf: bool = False) -> list[Path]:
    """The comparison's figures: every registered figure overlaying the runs that have its
    benchmark, and the normalised headline bars. Returns the files written."""
    figs = _Figures()
    figs.sections(runs, "compare", compare=True)
    fig = comparison_figure(compare(runs), [data.fig_label(r) for r in runs])
    if fig is not None:
        figs.made.append(("compare-normalised", fig))
    return save_all(figs.made, Path(directory), pdf)


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
            made.append((f"history-{i:02d}-{_safe(x.benchmark)}-{_safe(x.metric)}", fig))
    return save_all(made, Path(directory), pdf)


def render_report(runs: list[dict], *, title: str | None = None) -> str:
    """The complete, self-contained HTML report of `runs` (export-format dicts, in this order)."""
    return _build(list(runs), title)[0]


def write_report(runs: list[dict], path, *, figure_dir=None, title: str | None = None,
                 pdf: bool = False, write_text=None) -> list[Path]:
    """Write the report to `path`; with `figure_dir`, also every figure as <stem>.svg and
    <stem>.png, and <stem>.pdf with `pdf` (stems like run3-pingpong_latency,
    compare-memory_latency, history-headline). Returns the paths written, the HTML first.
    The figures are written first and the HTML last, by write_text(path, html) when given
    (the command line writes it whole), so a failure leaves an older report as it was."""
    html, made = _build(list(runs), title)
    path = Path(path)
    written = [path]
    if figure_dir is not None:
        written += save_all(made, Path(figure_dir), pdf)
    if write_text is None:
        path.write_text(html, encoding="utf-8")
    else:
        write_text(path, html)
    return written
