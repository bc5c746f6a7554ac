"""Self-contained HTML report of runs in the export format (docs/export.md).

    render_report(runs, title=None) -> str        the complete HTML document
    write_report(runs, path, figure_dir=None)     writes it; optionally each figure as SVG + PNG

The HTML has inline CSS and inline SVG figures only: no scripts and nothing fetched from
anywhere, so it can be mailed or opened on an air-gapped login node.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from . import data
from .tables import TABLES, Table, TableSpec, register_table
from .figures import FIGURES, SVG_CSS, FigureSpec, make_figure, register_figure, save, to_svg

# Each area adds its figures in a module named figures_<area>.py (calling register_figure);
# importing them here keeps this file free of per-area edits.
for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("figures_")):
    importlib.import_module(f"{__name__}.{_mod}")

__all__ = ["render_report", "write_report", "FIGURES", "FigureSpec", "register_figure", "TABLES",
           "Table", "TableSpec", "register_table"]

STATUS_CLASS = {"ok": "ok", "failed": "bad", "interrupted": "warn", "running": "info"}


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
        "machine": data.fingerprint_rows(run),
        "headline": data.headline_rows(run),
        "figure_sections": figs.sections([run], stem),
        "results": results,
        "launches": launches,
        "failed_launches": sum(not r["ok"] for r in launches),
        "unconverged": sum(t["unconverged"] for t in results),
    }


def _build(runs: list[dict], title: str | None) -> tuple[str, list]:
    figs = _Figures()
    comparison = figs.sections(runs, "compare", compare=True) if len(runs) > 1 else []
    stems: set = set()
    views = [_run_view(run, i, figs, stems) for i, run in enumerate(runs, 1)]
    html = _template().render(
        title=title or "hpceval report",
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        runs=views, comparison=comparison, svg_css=SVG_CSS,
    ).lstrip()  # the template's leading macro definitions leave blank lines
    return html, figs.made


def render_report(runs: list[dict], *, title: str | None = None) -> str:
    """The complete, self-contained HTML report of `runs` (export-format dicts, in this order)."""
    return _build(list(runs), title)[0]


def write_report(runs: list[dict], path, *, figure_dir=None, title: str | None = None) -> list[Path]:
    """Write the report to `path`; with `figure_dir`, also every figure as <stem>.svg and
    <stem>.png (stems like run3-pingpong_latency, compare-memory_latency).
    Returns the paths written, the HTML first."""
    html, made = _build(list(runs), title)
    path = Path(path)
    path.write_text(html, encoding="utf-8")
    written = [path]
    if figure_dir is not None:
        figure_dir = Path(figure_dir)
        figure_dir.mkdir(parents=True, exist_ok=True)
        for stem, fig in made:
            written += save(fig, figure_dir / stem)
    return written
