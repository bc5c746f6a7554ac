"""Figures of comparisons and histories (not per-run figures, so not in the FIGURES registry)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from matplotlib.figure import Figure

from .figures import _figure, _text, save, style


def comparison_figure(result: Dict[str, Any], names: Sequence[str]) -> Optional[Figure]:
    """Grouped horizontal bars: each headline figure's deficit to the best run, per run."""
    rows = result["headline"] or result["rows"][:12]
    if not rows:
        return None
    with style():
        fig = _figure((7.5, 0.9 + 0.32 * len(rows) * max(1, len(names)) ** 0.5))
        ax = fig.add_subplot()
        h = 0.8 / len(names)
        for j, name in enumerate(names):
            ys = [i + (j - (len(names) - 1) / 2) * h for i in range(len(rows))]
            ax.barh(ys, [100 * (r["deficits"][j] or 0.0) for r in rows], h * 0.9, label=_text(name))
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([_text(r["label"]) for r in rows])
        ax.invert_yaxis()
        ax.set_xlabel("worse than the best run [%]  ((value - best) / best, by each metric's better direction)")
        ax.legend(loc="lower right")
        ax.set_title("Comparison of headline figures (0 = best run)", loc="left")
    return fig


def history_figure(series: Sequence[Any], title: str = "History") -> Optional[Figure]:
    """Each series relative to its own median over time (1 = typical), with its per-run spread
    (min..max of the run's samples) as error bars; detected changes drawn as vertical lines."""
    series = [x for x in series if x.points]
    if not series:
        return None
    runs: List[Any] = []
    for x in series:
        for p in x.points:
            if (p["started"], p["run"]) not in runs:
                runs.append((p["started"], p["run"]))
    runs.sort(key=lambda r: (str(r[0]), r[1] or 0))
    pos = {r: i for i, r in enumerate(runs)}
    with style():
        fig = _figure()
        ax = fig.add_subplot()
        for x in series:
            vals = sorted(p["value"] for p in x.points)
            mid = vals[len(vals) // 2] or 1.0
            xs = [pos[(p["started"], p["run"])] for p in x.points]
            ys = [p["value"] / mid for p in x.points]
            lo = [max(0.0, (p["value"] - (p["min"] if p["min"] is not None else p["value"])) / mid) for p in x.points]
            hi = [max(0.0, ((p["max"] if p["max"] is not None else p["value"]) - p["value"]) / mid) for p in x.points]
            bars = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=3, linewidth=1.2,
                               capsize=2, label=_text(f"{x.key} [{x.unit}]"))
            for c in x.changes:
                ax.axvline(xs[c.index] - 0.5, color=bars[0].get_color(),
                           linestyle="--" if c.kind == "step" else ":", linewidth=1)
        ax.set_xticks(range(len(runs)))
        ax.set_xticklabels([f"#{r[1]}" for r in runs], rotation=90 if len(runs) > 20 else 0)
        ax.set_xlabel("run (time order)")
        ax.set_ylabel("value / median of its runs")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
        ax.set_title(_text(title + " (bars: min..max of each run; dashed: step, dotted: variability change)"),
                     loc="left", fontsize=9)
    return fig


def save_all(figs: List[tuple], directory: Path, pdf: bool = False) -> List[Path]:
    """(stem, Figure) pairs as SVG and PNG, and PDF on request."""
    directory.mkdir(parents=True, exist_ok=True)
    out: List[Path] = []
    for stem, fig in figs:
        out += save(fig, directory / stem)
        if pdf:
            path = (directory / stem).with_suffix(".pdf")
            with style():
                fig.savefig(path, format="pdf", metadata={"CreationDate": None})
            out.append(path)
    return out
