"""Figures of comparisons and histories (not per-run figures, so not in the FIGURES registry)."""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from matplotlib.figure import Figure

from hpceval.outfiles import Outputs, outputs
from hpceval.analysis.decide import FASTER, SLOWER

from hpceval.views.plot import SIZE, new_figure, plain_log_y, safe_text, legend, save, style

LABEL_WIDTH = 48      # characters of a metric's name in a legend or on an axis


def _significant(row: Dict[str, Any], j: int) -> bool:
    """Run j was decided faster or slower than the baseline (the baseline: some other run
    than it was)."""
    v = row.get("verdicts") or []
    pairs = v[1:] if j == 0 else v[j:j + 1]
    return any(x in (FASTER, SLOWER) for x in pairs)


def comparison_figure(result: Dict[str, Any], names: Sequence[str]) -> Optional[Figure]:
    """Grouped horizontal bars: each headline figure's deficit to the best run, per run."""
    rows = result["headline"] or result["rows"][:12]
    if not rows:
        return None
    with style():
        fig = new_figure((7.5, 0.9 + 0.32 * len(rows) * max(1, len(names)) ** 0.5))
        ax = fig.add_subplot()
        h = 0.8 / len(names)
        for j, name in enumerate(names):
            ys = [i + (j - (len(names) - 1) / 2) * h for i in range(len(rows))]
            bars = ax.barh(ys, [100 * (r["deficits"][j] or 0.0) for r in rows], h * 0.9,
                           label=safe_text(name))
            for bar, r in zip(bars, rows):   # a difference within noise is not a difference
                if not _significant(r, j):
                    bar.set_alpha(0.35)
                    bar.set_hatch("///")
        ax.barh([0], [0], 0, color="#bbbbbb", hatch="///", alpha=0.35,
                label="same or undecided")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([safe_text(textwrap.shorten(r["label"], LABEL_WIDTH, placeholder="…"))
                            for r in rows])
        ax.invert_yaxis()
        ax.set_xlabel("worse than the best run [%]: (value − best) / best")
        legend(ax)
        ax.set_title("Headline figures against the best run (0 = best)", loc="left")
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
        fig = new_figure((SIZE[0], SIZE[1] + 0.2 * ((len(series) + 1) // 2)))
        ax = fig.add_subplot()
        for x in series:
            vals = sorted(p["value"] for p in x.points)
            mid = vals[len(vals) // 2] or 1.0
            xs = [pos[(p["started"], p["run"])] for p in x.points]
            # Up is better for every series: a lower-is-better value is drawn as median / value.
            up = (lambda v: v / mid) if x.better == "higher" else (lambda v: mid / v if v else 0.0)
            ys = [up(p["value"]) for p in x.points]
            ends = [sorted((up(p["min"] if p["min"] is not None else p["value"]),
                            up(p["max"] if p["max"] is not None else p["value"]))) for p in x.points]
            lo = [max(0.0, y - e[0]) for y, e in zip(ys, ends)]
            hi = [max(0.0, e[1] - y) for y, e in zip(ys, ends)]
            bars = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=3, linewidth=1.2,
                               capsize=2, label=safe_text(textwrap.shorten(f"{x.key} [{x.unit}]",
                                                                       LABEL_WIDTH, placeholder="…")))
            for c in x.changes:
                ax.axvline(xs[c.index] - 0.5, color=bars[0].get_color(),
                           linestyle="--" if c.kind == "step" else ":", linewidth=1)
        ax.set_xticks(range(len(runs)))
        ax.set_xticklabels([f"#{r[1]}" for r in runs], rotation=90 if len(runs) > 20 else 0)
        ax.set_xlabel("run (time order)")
        ys_all = [y for line in ax.get_lines() for y in line.get_ydata() if y > 0]
        if ys_all and max(ys_all) / min(ys_all) > 100:     # one spike must not flatten the rest
            plain_log_y(ax)
        ax.set_ylabel("relative to its median (up = better)")
        # Below the axes, two columns: beside it, long metric names took most of the width.
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), ncol=2, fontsize=7)
        ax.set_title(safe_text(title + " (bars: min..max of each run; dashed: step, dotted: "
                                   "variability change)"), loc="left", fontsize=9, wrap=True)
    return fig


def save_all(figs: List[tuple], directory: Path, pdf: bool = False,
             batch: Optional[Outputs] = None) -> List[Path]:
    """(stem, Figure) pairs as SVG and PNG, and PDF on request, into the --figures directory:
    all renamed into place together (outfiles.Outputs), or none."""
    out: List[Path] = []
    with outputs("--figures", into=batch) as b:
        for stem, fig in figs:
            out += save(fig, directory / stem, b)
            if pdf:
                path = (directory / stem).with_suffix(".pdf")
                with style(), b.open(path, "wb", "pdf", "--figures", named_dir=True) as f:
                    fig.savefig(f, format="pdf", metadata={"CreationDate": None})
                out.append(path)
    return out
