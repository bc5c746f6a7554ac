"""netmap: the network map as heat maps, node x node, latency and bandwidth (issue #51 item 2);
the nodes the outlier rule names (hpceval/analysis/outliers.py) in red on both axes, pairs the
sampled rounds left out blank."""
from __future__ import annotations

from typing import Optional

import numpy as np
from matplotlib.figure import Figure

from hpceval.analysis.outliers import REL_FLOOR, outliers

from .data import fig_label, records, value
from .plot import new_figure, safe_text
from .registry import FigureSpec, register_figure

MAX_LABELS = 64   # node names on the axes up to this many nodes


def netmap_heat(runs: list[dict]) -> Optional[Figure]:
    run = next((r for r in runs if records(r, "netmap")), None)
    if run is None:
        return None
    recs = records(run, "netmap")
    names = {}
    for r in recs:
        names[r["params"]["src"]] = r["params"]["src_node"]
        names[r["params"]["dst"]] = r["params"]["dst_node"]
    ranks = sorted(names)
    at = {rank: i for i, rank in enumerate(ranks)}
    flagged = {o["node"] for o in outliers(run) if o["benchmark"] == "netmap"}
    fig = new_figure((9.0, 4.2))
    for ax, metric, unit, cmap in zip(fig.subplots(1, 2), ("latency", "bandwidth"),
                                      ("µs", "MB/s"), ("viridis_r", "viridis")):
        mat = np.full((len(ranks), len(ranks)), np.nan)
        for r in (r for r in recs if r["metric"] == metric):
            a, b = at[r["params"]["src"]], at[r["params"]["dst"]]
            mat[a, b] = mat[b, a] = value(r)
        # Differences under the outlier rule's floor: one neutral scale from 0, so that they do
        # not look like structure.
        flat = np.nanmax(mat) <= (1 + REL_FLOOR) * np.nanmin(mat)
        im = ax.imshow(np.ma.masked_invalid(mat), origin="upper", aspect="auto",
                       **({"cmap": "Greys", "vmin": 0, "vmax": 2 * np.nanmax(mat)} if flat
                          else {"cmap": cmap}))
        fig.colorbar(im, ax=ax, label=f"{metric} [{unit}]"
                     + (f"\nall within {REL_FLOOR:.0%} of each other" if flat else ""))
        ax.grid(False)
        ax.set_title(f"{metric} (median), node x node", fontsize=9, loc="left")
        if len(ranks) > MAX_LABELS:
            continue
        ticks = list(range(len(ranks)))
        for set_ticks, set_labels, rot in ((ax.set_xticks, ax.set_xticklabels, 90),
                                           (ax.set_yticks, ax.set_yticklabels, 0)):
            set_ticks(ticks)
            for lab in set_labels([safe_text(names[r]) for r in ranks], rotation=rot, fontsize=7):
                lab.set_color("crimson" if lab.get_text() in flagged else "black")
    sampled = any(r["params"]["rounds"] < r["params"]["rounds_total"] for r in recs)
    fig.suptitle(safe_text(f"Network map — {fig_label(run)}"
                           + (" (sampled rounds: blank pairs not measured)" if sampled else "")
                           + (" (red: outlier nodes)" if flagged else "")),
                 x=0.01, ha="left", fontsize=10)
    return fig


register_figure(FigureSpec("Interconnect", "Network map: 8 B latency and bandwidth of every "
                           "pair of nodes, one rank a node (netmap), outlier nodes in red",
                           netmap_heat, "netmap", order=10))
