"""Analysis -> view model, one pass per report section: a run, the comparison of several runs,
their history. A view is plain data for the template (text, rows) whose figures are made but
not yet drawn as SVG: each is {"title", "stem", "figure"} (stem: the file name figure_dir
gets), turned into markup by render.py."""
from __future__ import annotations

import re
from typing import Any

from hpceval.analysis.card import machine_card
from hpceval.analysis.compare import compare
from hpceval.analysis.history import history
from hpceval.analysis.summary import comparison_lines

from hpceval.views import data
from .areas import FIGURES, TABLES
from hpceval.views.plot import make_figure
from .trends import comparison_figure, history_figure

STATUS_CLASS = {"ok": "ok", "failed": "bad", "interrupted": "warn", "running": "info",
                "abandoned": "bad",
                "queued": "info", "incomplete": "warn", "cancelled": "warn", "timeout": "bad"}


def safe(name: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", str(name))


def _figure(stem: str, fig, title: str) -> dict:
    return {"title": title, "stem": stem, "figure": fig}


def _group(groups: list[dict], section: str) -> dict:
    """The section's group, created at the end when new (figures of a section stay together)."""
    for g in groups:
        if g["section"] == section:
            return g
    groups.append({"section": section, "figures": [], "tables": []})
    return groups[-1]


def figure_sections(runs: list[dict], stem: str, compare: bool = False) -> list[dict]:
    """[{section, figures, tables}] in registry order. With compare, a figure is made from the
    runs that have its benchmark, and only when at least two do; tables only for one run."""
    out: list[dict] = []
    for spec in FIGURES:
        use = [r for r in runs if data.records(r, spec.benchmark)] if compare else runs
        fig = make_figure(spec, use) if len(use) > int(compare) else None
        if fig is not None:
            _group(out, spec.section)["figures"].append(
                _figure(f"{stem}-{spec.make.__name__}", fig, spec.title))
    if not compare and len(runs) == 1:
        for tspec in TABLES:
            table = tspec.make(runs[0])
            if table is not None and table.rows:
                _group(out, tspec.section)["tables"].append(
                    {"title": tspec.title, "columns": table.columns, "rows": table.rows,
                     "note": table.note})
    return out


def run_view(run: dict, index: int, stems: set) -> dict:
    stem = f"run{safe(run.get('id', index))}"
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
        "figure_sections": figure_sections([run], stem),
        "results": results,
        "launches": launches,
        "failed_launches": sum(not r["ok"] for r in launches),
        "unconverged": sum(t["unconverged"] for t in results),
    }


def normalised_figure(runs: list[dict], result: dict | None = None) -> dict | None:
    """The comparison's headline figures normalised by the best run, as a figure view."""
    fig = comparison_figure(result or compare(runs), [data.fig_label(r) for r in runs])
    return None if fig is None else _figure(
        "compare-normalised", fig, "Headline figures normalised by the best run")


def comparison_view(runs: list[dict], history: list[dict] | None = None) -> dict:
    result = compare(runs, history=history)
    return {
        "names": [data.run_label(r) for r in runs],
        "tags": [[str(t) for t in r.get("tags") or []] for r in runs],
        "lines": comparison_lines(result, runs),
        "headline": data.compare_rows(result["headline"]),
        "rows": data.compare_rows(result["rows"]),
        "summary": data.compare_summary(result["summary"]),
        "figure": normalised_figure(runs, result),
        "overlays": figure_sections(runs, "compare", compare=True),
    }


def history_view(runs: list[dict]) -> dict | None:
    series = history(runs)          # the latest run's machine, over the runs of this report
    if not series or max(len(x.points) for x in series) < 2:
        return None
    fig = history_figure(series, "Headline figures over time")
    machine = next((r for r in sorted(runs, key=lambda r: str(r.get("started") or ""))[::-1]), {})
    return {"machine": data.run_label(machine), "rows": data.history_rows(series),
            "figure": None if fig is None else _figure("history-headline", fig,
                                                       "Headline figures over time")}


def report_view(runs: list[dict], title: str | None, history: list[dict] | None = None) -> dict:
    """The whole report's view: the comparison and history sections (several runs), then a
    section per run."""
    stems: set = set()
    several = len(runs) > 1
    return {"title": title or "hpceval report",
            "comparison": comparison_view(runs, history) if several else None,
            "history": history_view(runs) if several else None,
            "runs": [run_view(run, i, stems) for i, run in enumerate(runs, 1)]}


def figures_of(view: dict) -> list[dict]:
    """Every figure view of a report view, in the order the page shows them being drawn:
    the comparison's (normalised, then overlays), the history's, then each run's."""
    out: list[dict] = []
    comparison, hist = view.get("comparison"), view.get("history")
    if comparison:
        out += [comparison["figure"]] if comparison["figure"] else []
        out += [f for sec in comparison["overlays"] for f in sec["figures"]]
    if hist and hist["figure"]:
        out.append(hist["figure"])
    for run in view["runs"]:
        out += [f for sec in run["figure_sections"] for f in sec["figures"]]
    return out
