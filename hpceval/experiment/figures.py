"""The experiment's comparison figure and its significance table (registered in the report by
hpceval/views/figures_experiments.py). Variants that are names (binding, pages): each point's
variants relative to the baseline, filled where the difference is significant. Variants that
are counts (copies): the per-copy value against the count, one line per point. Points measured
at several processor counts: each variant over the baseline against the count."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis.scaling import nranks
from hpceval.experiment import EXPERIMENTS
from hpceval.experiment.analysis import (ALPHA, Row, compare, main_metric, overlap_note, settings,
                                        significant)

SECTION = "Experiments"
MAX_POINTS = 8              # points shown in a figure (the table has them all)
MAX_TABLE_ROWS = 120


def _experiment_run(runs: list) -> Optional[dict]:
    """A figure shows one experiment: the last run given that is one."""
    found = [r for r in runs if settings(r)]
    return found[-1] if found else None


def _rows_by_point(rows: List[Row], metric: str) -> Dict[str, List[Row]]:
    out: Dict[str, List[Row]] = {}
    for row in rows:
        if row.metric == metric:
            out.setdefault(row.label, []).append(row)
    return dict(list(out.items())[:MAX_POINTS])


def _relative(ax, by_point: Dict[str, List[Row]], baseline: str) -> None:
    from matplotlib.patches import Patch
    names = list(dict.fromkeys(r.variant for rows in by_point.values() for r in rows))
    width = 0.8 / max(len(names), 1)
    legend = []
    for i, name in enumerate(names):
        mine = [(j + (i - (len(names) - 1) / 2) * width, r, rows[0].median)
                for j, rows in enumerate(by_point.values()) for r in rows if r.variant == name]
        bars = ax.bar([x for x, _, _ in mine], [r.ratio - 1 for _, r, _ in mine], width,
                      bottom=1, label=name)
        legend.append(bars)
        for bar, (x, r, base) in zip(bars, mine):
            bar.set_hatch("" if significant(r) else "//")
            bar.set_alpha(1.0 if significant(r) else 0.45)
            # every round's sample, so the spread behind the verdict shows
            ax.plot([x] * len(r.samples), [s / base for s in r.samples], ".", color="black",
                    markersize=3)
    # the legend names the variants by colour alone (hatching marks significance)
    ax.legend([Patch(color=b.patches[0].get_facecolor() if b.patches else None) for b in legend],
              names, loc="best")
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks(range(len(by_point)), list(by_point), rotation=20, ha="right", fontsize=7)
    ax.set_ylabel(f"relative to {baseline} (median)")


def _counts(ax, by_point: Dict[str, List[Row]], unit: str) -> None:
    for label, rows in by_point.items():
        ks = [int(r.variant) for r in rows]
        meds = [r.median for r in rows]
        # bars: the slowest and fastest copy over all rounds
        spread = [[m - min(r.samples) for m, r in zip(meds, rows)],
                  [max(r.samples) - m for m, r in zip(meds, rows)]]
        line = ax.errorbar(ks, meds, yerr=spread, marker="o", capsize=3, label=label).lines[0]
        for r in rows:
            if significant(r):
                ax.plot([int(r.variant)], [r.median], marker="o", markersize=10,
                        fillstyle="none", color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted({int(r.variant) for rows in by_point.values() for r in rows}))
    ax.get_xaxis().set_major_formatter("{x:g}")
    ax.set_xlabel("simultaneous copies")
    ax.legend(loc="best")
    ax.set_ylabel(f"per copy [{unit}]")


def experiment_figure(runs: list):
    from hpceval.views.plot import new_figure   # matplotlib: only when drawn
    run = _experiment_run(runs)
    metric = main_metric(run) if run else None
    if metric is None:
        return None
    exp = settings(run)
    by_point = _rows_by_point(compare(run), metric)
    if not by_point:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    ordered = EXPERIMENTS.get(exp["kind"]) and EXPERIMENTS[exp["kind"]].ordered
    if ordered:
        _counts(ax, by_point, next(iter(by_point.values()))[0].unit)
        mark = "circled"
    else:
        _relative(ax, by_point, exp["variants"][0])
        mark = "solid"
    ax.set_title(f"{exp['kind']}: {exp['benchmark']} {metric}, {exp['rounds']} interleaved "
                 f"rounds ({mark}: significant, Mann-Whitney U p < {ALPHA})")
    return fig


# ---------------------------------------------------------------- against processor count

RANK_KEYS = ("nranks", "P", "Q", "R", "workers")


def _ranks_of(point: Dict[str, Any]) -> Optional[int]:
    """The point's processor count (its nranks, or process grid), None where it has none."""
    if not any(k in point for k in RANK_KEYS):
        return None
    return int(point["nranks"]) if "nranks" in point else nranks(point)


def _ratio_lines(rows: List[Row]) -> Dict[tuple, List[Row]]:
    """(variant, the point but its processor count) -> rows by processor count; the baseline
    (ratio 1 by definition) left out, MAX_POINTS groups of a variant at most."""
    out: Dict[tuple, List[Row]] = {}
    for r in rows:
        if r.p is None or _ranks_of(r.point) is None:
            continue
        rest = ", ".join(f"{k}={v}" for k, v in sorted(r.point.items()) if k not in RANK_KEYS)
        if (r.variant, rest) in out or sum(k[0] == r.variant for k in out) < MAX_POINTS:
            out.setdefault((r.variant, rest), []).append(r)
    return {k: sorted(v, key=lambda r: _ranks_of(r.point)) for k, v in out.items()}


def experiment_ranks_figure(runs: list):
    """Each variant's median over the baseline's against the points' processor count (an
    experiment over a benchmark measured at several rank counts: collectives' nranks, a
    proxy's process grids); filled where the difference is significant."""
    from hpceval.views.plot import legend, new_figure   # matplotlib: only when drawn
    run = _experiment_run(runs)
    metric = main_metric(run) if run else None
    if metric is None:
        return None
    lines = _ratio_lines([r for r in compare(run) if r.metric == metric])
    if len({_ranks_of(r.point) for rows in lines.values() for r in rows}) < 2:
        return None
    exp = settings(run)
    fig = new_figure()
    ax = fig.add_subplot()
    for (variant, rest), rows in lines.items():
        xs, ys = [_ranks_of(r.point) for r in rows], [r.ratio for r in rows]
        (line,) = ax.plot(xs, ys, marker="o", markerfacecolor="none",
                          label=f"{variant}" + (f" ({rest})" if rest else ""))
        sig = [(x, y) for x, y, r in zip(xs, ys, rows) if significant(r)]
        if sig:
            ax.plot(*zip(*sig), linestyle="none", marker="o", color=line.get_color())
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xlabel("processors (ranks)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(f"{metric}: median / {exp['variants'][0]}'s")
    legend(ax, fontsize=7)
    ax.set_title(f"{exp['kind']}: {exp['benchmark']} against processor count (filled: "
                 f"significant, Mann-Whitney U p < {ALPHA})", loc="left")
    return fig


def _fmt(v: Optional[float]) -> str:
    return "—" if v is None else f"{v:.3g}"


def experiment_table(run: dict):
    from hpceval.views.registry import Table
    if not settings(run):
        return None
    rows = compare(run)
    cells = [[r.metric, r.label, r.variant, r.n, f"{r.median:.4g} {r.unit}",
              f"{r.ratio:.3f}", _fmt(r.p), r.verdict] for r in rows[:MAX_TABLE_ROWS]]
    notes = list(settings(run).get("notes") or []) + [n for n in [overlap_note(run)] if n]
    cut = f" (first {MAX_TABLE_ROWS} of {len(rows)} rows)" if len(rows) > MAX_TABLE_ROWS else ""
    return Table(["metric", "point", "variant", "samples", "median", "ratio to baseline", "p",
                  "verdict"], cells,
                 f"Each variant against the first (baseline): two-sided Mann-Whitney U test on "
                 f"its samples (each round's median; copies: every copy's; sharing: the jobs' "
                 f"rates summed per round), significant at p < {ALPHA}{cut}."
                 + "".join(f" Note: {n}." for n in notes))


def specs() -> list:
    from hpceval.views.registry import FigureSpec, TableSpec
    return [FigureSpec(SECTION, "Experiment: variants compared", experiment_figure, "experiment",
                       order=80),
            FigureSpec(SECTION, "Experiment: variants against processor count",
                       experiment_ranks_figure, "experiment", order=80),
            TableSpec(SECTION, "Experiment: significance of each variant", experiment_table,
                      order=80)]
