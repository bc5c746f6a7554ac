"""Every registered figure drawn from adversarial data: 90-character run labels, nine runs (9+
series in the overlays), one spike of 1000x, values over six decades. No text may fall off
the canvas (matplotlib's tight bounding box inside the figure) and no legend may cover data.

The base data is real: small runs of every benchmark on this machine, exported and trimmed
(data/figure_runs.json, made by `make_figure_runs` below), plus the hand-made proxy run."""
import copy
import json
from pathlib import Path

import pytest
from matplotlib.transforms import Bbox

import proxy_runs
from hpceval.report import FIGURES, make_figure

DATA = Path(__file__).parent / "data" / "figure_runs.json"
LONG = "compute-node-0001.a-rather-long-cluster-name.research-computing.example.org-rack-17-"


def base_run() -> dict:
    """One run holding every benchmark's records (the stored runs merged) and a trace."""
    runs = json.loads(DATA.read_text())
    run = copy.deepcopy(runs[0])
    for other in runs[1:]:
        run["records"] += other["records"]
        run["launches"] += other["launches"]
    proxies = proxy_runs.make_run()
    run["records"] += proxies["records"]
    run["traces"] = proxies["traces"]
    return run


def variant(run: dict, i: int, how: str) -> dict:
    r = copy.deepcopy(run)
    r["id"], r["uuid"] = i, f"adv-{i}"
    r["fingerprint"]["hostname"] = f"{LONG}{i}"
    by_bench: dict = {}
    for rec in r["records"]:
        by_bench.setdefault((rec["benchmark"], rec["metric"]), []).append(rec)
    for recs in by_bench.values():
        for k, rec in enumerate(recs):
            if how == "spike" and k == len(recs) // 2:
                factor = 1000.0
            elif how == "decades" and len(recs) > 1:
                factor = 10.0 ** (6 * k / (len(recs) - 1))
            else:
                factor = 1.0 + 0.01 * i
            rec["stats"] = {key: (v * factor if key != "n" and isinstance(v, float) else v)
                            for key, v in rec["stats"].items()}
    return r


@pytest.fixture(scope="module")
def runs():
    if not DATA.exists():
        pytest.skip("no figure data")
    run = base_run()
    return [variant(run, i, how) for i, how in
            enumerate(["spike", "decades"] + ["plain"] * 7, 1)]


def _overlaps(a: Bbox, b: Bbox) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def problems(fig) -> list:
    """Text outside the canvas; legends over data points or bars."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    tight = fig.get_tightbbox(renderer)           # inches
    w, h = fig.get_size_inches()
    if tight.x0 < -0.02 or tight.y0 < -0.02 or tight.x1 > w + 0.02 or tight.y1 > h + 0.02:
        out.append(f"text outside the canvas: tight bbox {tight.bounds} vs {w:.2f}x{h:.2f} in")
    # each panel's tight box once: computed per label and panel, 18 panels took 30 s
    boxes = [(o.bbox.bounds, o.get_tightbbox(renderer)) for o in fig.axes if o.get_visible()]
    for ax in fig.axes:                      # an axis label inside a neighbouring panel
        for label in (ax.yaxis.label, ax.xaxis.label):
            if not label.get_text() or not ax.get_visible():
                continue
            lb = label.get_window_extent(renderer)
            for bounds, tight_box in boxes:
                if bounds != ax.bbox.bounds and _overlaps(lb, tight_box):
                    out.append(f"label '{label.get_text()}' runs into another panel")
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or not ax.get_visible():
            continue
        box = leg.get_window_extent(renderer)
        for line in ax.get_lines():
            if line.get_marker() in (None, "None", "", " ") or line.get_transform() != ax.transData:
                continue
            pts = line.get_transform().transform(line.get_xydata())
            inside = [(x, y) for x, y in pts if box.contains(x, y) and ax.bbox.contains(x, y)]
            if inside:
                out.append(f"legend covers {len(inside)} points of '{line.get_label()}'")
        for patch in ax.patches:
            pb = patch.get_window_extent(renderer)
            if pb.width > 0 and pb.height > 1 and _overlaps(pb, box):
                out.append("legend covers a bar")
                break
    return out


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.make.__name__)
def test_single_run_figures_keep_their_text_and_data_visible(spec, runs):
    for run in runs[:3]:                               # spike, six decades, plain
        fig = make_figure(spec, [run])
        if fig is not None:
            assert problems(fig) == [], (spec.make.__name__, run["uuid"])


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.make.__name__)
def test_nine_run_overlays_keep_their_text_and_data_visible(spec, runs):
    use = [r for r in runs]
    fig = make_figure(spec, use)
    if fig is not None:
        assert problems(fig) == [], spec.make.__name__


def test_comparison_and_history_figures_of_nine_runs(runs):
    from hpceval.analysis.compare import compare
    from hpceval.analysis.history import history
    from hpceval.views.data import fig_label
    from hpceval.views.plot import style
    from hpceval.report.trends import comparison_figure, history_figure
    for i, r in enumerate(runs):                     # one machine, in time order
        r["started"] = f"2026-11-{10 + i:02d}T00:00:00+00:00"
    figs = [comparison_figure(compare(runs), [fig_label(r) for r in runs]),
            history_figure(history(runs), "Headline figures over time")]
    for fig in figs:
        assert fig is not None
        with style():
            assert problems(fig) == []
