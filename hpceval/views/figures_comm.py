"""Communication figures: ping-pong latency and bandwidth vs size, p2p latency (log-log) and
bandwidth (log-linear) vs size with the fitted piecewise models drawn over the data, placement
patterns side by side, the distance heat map, the hot-spot curve, collectives vs size and vs
ranks, halo methods. The fitted models as tables: tables_comm.py."""
from __future__ import annotations

import math
from typing import Dict, List, Optional

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from hpceval.analysis.oversubscription import oversubscribed
from hpceval.analysis.commmodel import fit_piecewise, message_times

from .data import human_bytes, records, fig_label, value
from hpceval.quality import at_floor, clean

from .plot import (ZERO_X, bytes_axis, new_figure, line_plot, plain_log_y, series_of, safe_text,
                   draw_records, legend)
from .registry import FigureSpec, register_figure

SECTION = "Interconnect"
ORDER = 10
PINGPONG_FOCUS = ("send", "isend", "ssend", "persistent", "put-fence", "get-lock")


def _panel_runs(runs: list[dict], benchmark: str) -> list[dict]:
    return [r for r in runs if records(r, benchmark)]


def _all_handles(axes) -> tuple:
    """Legend entries of several panels, each label once (for one legend beside them)."""
    seen: Dict[str, object] = {}
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(l, h)
    return list(seen.values()), list(seen)


def _over(run: dict, recs: list, nranks: int) -> str:
    """' (oversubscribed: 4 ranks on 2 cores)' for a panel of that rank count, else ''."""
    rec = next((r for r in recs if r["params"].get("nranks") == nranks), None)
    why = oversubscribed(run, rec) if rec else None
    return f" (oversubscribed: {why})" if why else ""


def _title(fig: Figure, text: str) -> None:
    fig.suptitle(text, x=0.01, ha="left", fontsize=10)


def _p2p(run: dict, metric: str, mode: str, pattern: str = "0-1") -> Dict[str, list]:
    """protocol -> records by size of the p2p records of one mode and pattern."""
    out: Dict[str, list] = {}
    for rec in records(run, "p2p", metric):
        p = rec.get("params") or {}
        if p.get("mode") == mode and p.get("pattern") == pattern and value(rec) is not None:
            out.setdefault(p.get("protocol"), []).append(rec)
    return {k: sorted(v, key=lambda r: r["params"]["bytes"]) for k, v in out.items()}


def _sizes(recs: list) -> list:
    return [r["params"]["bytes"] for r in recs]


# ---------------------------------------------------------------- point to point

def p2p_latency(runs: list[dict]) -> Optional[Figure]:
    """Ping-pong latency per protocol, log-log, the fitted model dashed over each series."""
    use = [r for r in _panel_runs(runs, "p2p") if _p2p(r, "latency", "pingpong")]
    if not use:
        return None
    fig = new_figure((7.5, 3.6 * len(use)))
    for ax, run in zip(fig.subplots(len(use), 1, squeeze=False)[:, 0], use):
        series = _p2p(run, "latency", "pingpong")
        xs_all, marked = [], set()
        for proto in sorted(series, key=lambda p: (p not in PINGPONG_FOCUS, p)):
            recs = series[proto]
            xs = [b if b > 0 else ZERO_X for b in _sizes(recs)]
            line = draw_records(ax, recs, xs, proto, marked, markersize=2.5, linewidth=1.2)
            pos = [(r["params"]["bytes"], value(r)) for r in recs
                   if r["params"]["bytes"] > 0 and not at_floor(r)]
            if line is not None and len(pos) >= 6:
                m = fit_piecewise([b for b, _ in pos], [v for _, v in pos])
                grid = np.geomspace(pos[0][0], pos[-1][0], 200)
                ax.plot(grid, m.predict(grid), linestyle="--", linewidth=0.8,
                        color=line.get_color())
            xs_all += xs
        bytes_axis(ax, xs_all, "message size [bytes]")
        plain_log_y(ax)
        ax.set_ylabel("one-way latency [µs]")
        legend(ax, ncol=2)
        ax.set_title(safe_text(fig_label(run)), fontsize=9, loc="left")
    _title(fig, "p2p ping-pong latency per protocol (median; dashed: fitted t0 + n/r_inf)")
    return fig


def p2p_bandwidth(runs: list[dict]) -> Optional[Figure]:
    """Bandwidth vs size, log-linear: the modes side by side (left) and the protocols of the
    streaming mode (right)."""
    use = [r for r in _panel_runs(runs, "p2p") if _p2p(r, "bandwidth", "pingpong")
           or _p2p(r, "bandwidth", "stream")]
    if not use:
        return None
    fig = new_figure((9.0, 3.6 * len(use)))
    axes = fig.subplots(len(use), 2, squeeze=False)
    for row, run in zip(axes, use):
        left, right = row
        xs_all, marks_left, marks_right = [], set(), set()
        for mode in ("pingpong", "swap", "stream", "bistream"):
            series = _p2p(run, "bandwidth", mode)
            proto = next((p for p in ("isend", "send", "sendrecv") if p in series), None)
            if proto:
                recs = series[proto]
                draw_records(left, recs, _sizes(recs), f"{mode} ({proto})", marks_left,
                             markersize=2.5, linewidth=1.2)
                xs_all += _sizes(recs)
        if xs_all:
            bytes_axis(left, xs_all, "message size [bytes]")
        left.set_ylim(bottom=0)
        left.set_ylabel("bandwidth [MB/s]")
        legend(left)
        left.set_title("modes", fontsize=9, loc="left")
        stream = _p2p(run, "bandwidth", "stream")
        xs_all = []
        for proto, recs in sorted(stream.items()):
            draw_records(right, recs, _sizes(recs), proto, marks_right, markersize=2,
                         linewidth=1.0)
            xs_all += _sizes(recs)
        if xs_all:
            bytes_axis(right, xs_all, "message size [bytes]")
            legend(right, ncol=2)
        right.set_ylim(bottom=0)
        right.set_title(safe_text(f"stream protocols — {fig_label(run)}"), fontsize=9, loc="left")
    _title(fig, "p2p bandwidth vs size (median; pingpong n/latency, swap 2n/t, stream W n/t)")
    return fig


def p2p_patterns(runs: list[dict]) -> Optional[Figure]:
    """COMMTEST placement patterns (and random2): slowest-pair latency at the smallest size and
    bandwidth at the largest, bars per pattern and mode."""
    run = next((r for r in runs if records(r, "p2p") or records(r, "random2")), None)
    if run is None:
        return None
    bars: Dict[str, Dict[str, tuple]] = {}  # pattern -> label -> (lat rec value, bw value)
    for metric in ("latency", "bandwidth"):
        groups: Dict[tuple, list] = {}
        for rec in records(run, "p2p", metric):
            p = rec["params"]
            if p.get("mode") in ("pingpong", "swap") and p.get("protocol") in ("send", "sendrecv",
                                                                                 "isend"):
                groups.setdefault((f"{p['pattern']} ({p['ranks']})", p["mode"], p["protocol"]),
                                  []).append(rec)
        for rec in records(run, "random2", metric):
            groups.setdefault((f"random2 ({rec['params'].get('nranks')})", "pingpong", "send"),
                              []).append(rec)
        for key, recs in groups.items():
            recs = [r for r in recs if r["params"]["bytes"] > 0]
            if not recs:
                continue
            # The headline sizes: 8 B latency, 1 MiB bandwidth (or the nearest measured).
            target = 8 if metric == "latency" else 1 << 20
            pick = min(recs, key=lambda r: (abs(math.log2(r["params"]["bytes"] / target)),
                                            r["params"]["bytes"]))
            bars.setdefault(key[0], {})[f"{key[1]} {key[2]} [{metric}]"] = pick
    if len(bars) < 2:
        return None
    fig = new_figure((9.0, 4.0))
    axes = fig.subplots(1, 2)
    for ax, metric, unit in ((axes[0], "latency", "µs"), (axes[1], "bandwidth", "MB/s")):
        labels = sorted({lab for b in bars.values() for lab in b if lab.endswith(f"[{metric}]")})
        pats = list(bars)
        width = 0.8 / max(len(labels), 1)
        for j, lab in enumerate(labels):
            xs = [i + (j - (len(labels) - 1) / 2) * width for i in range(len(pats))]
            _pattern_bars(ax, xs, [bars[p].get(lab) for p in pats], width * 0.9,
                          lab.replace(f" [{metric}]", ""))
        ax.set_xticks(range(len(pats)))
        ax.set_xticklabels([safe_text(p) for p in pats], rotation=30, ha="right", fontsize=7)
        sizes = sorted({r["params"]["bytes"] for b in bars.values() for lab, r in b.items()
                        if lab.endswith(f"[{metric}]")})
        ax.set_ylabel(f"{metric} [{unit}]")
        ax.set_title(f"{metric} at {', '.join(human_bytes(s) for s in sizes)} (slowest pair)",
                     fontsize=9, loc="left")
        ax.set_ylim(bottom=0)
        ax.grid(axis="x", visible=False)
    # Plain swatches: a series' first bar may be hatched, and must not stand for the series.
    handles = [Patch(facecolor=h.patches[0].get_facecolor(), label=l)
               for h, l in zip(*_all_handles(axes))]
    handles.append(Patch(facecolor="white", edgecolor="#c0392b", hatch="///",
                         label="unconverged or disturbed"))
    axes[1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    _title(fig, safe_text(f"Placement patterns (median, 95% CI; hatched: unconverged or disturbed; "
                      f"n/m: not measured) — {fig_label(run)}"))
    return fig


def _pattern_bars(ax, xs: list, recs: list, width: float, label: str) -> None:
    """Bars with the median's CI; hatched when not a clean measurement; a pattern that was not
    measured in this mode gets an 'n/m' mark instead of a bar of height 0."""
    have = [(x, r) for x, r in zip(xs, recs) if r is not None]
    if have:
        bars = ax.bar([x for x, _ in have], [value(r) for _, r in have], width, label=label)
        for b, (_, r) in zip(bars, have):
            if not clean(r):
                b.set_hatch("///")
                b.set_edgecolor("#c0392b")
        lo = [value(r) - r["stats"].get("ci_low", value(r)) for _, r in have]
        hi = [r["stats"].get("ci_high", value(r)) - value(r) for _, r in have]
        ax.errorbar([x for x, _ in have], [value(r) for _, r in have],
                    yerr=[np.maximum(lo, 0), np.maximum(hi, 0)], fmt="none", ecolor="black",
                    elinewidth=0.8)
    for x, r in zip(xs, recs):
        if r is None:
            ax.text(x, 0, "n/m", rotation=90, ha="center", va="bottom", fontsize=6,
                    color="#7f8c8d", transform=ax.get_xaxis_transform())


def within_noise(recs: list) -> bool:
    """Every point's 95% CI overlaps every other's (one value could explain them all)."""
    cis = [(r["stats"].get("ci_low"), r["stats"].get("ci_high")) for r in recs]
    cis = [c for c in cis if None not in c]
    return len(cis) > 1 and max(lo for lo, _ in cis) <= min(hi for _, hi in cis)


def node_boundaries(node: Dict[int, tuple], n: int) -> List[float]:
    """Where consecutive ranks sit on different nodes: the lines between node blocks (a rank
    whose node is unknown draws none)."""
    return [i - 0.5 for i in range(1, n)
            if node.get(i - 1, (None,))[0] is not None and node.get(i, (None,))[0] is not None
            and node[i - 1][0] != node[i][0]]


def distance_map(runs: list[dict]) -> Optional[Figure]:
    """Heat maps: latency at the smallest size, bandwidth at the largest, src x dst."""
    run = next((r for r in runs if records(r, "distance")), None)
    if run is None:
        return None
    recs = records(run, "distance")
    # The ranks measured (at scale the plan samples rank 0's destinations), in order.
    ranks = sorted({r["params"][end] for r in recs for end in ("src", "dst")})
    at = {rank: i for i, rank in enumerate(ranks)}
    n = len(ranks)
    fig = new_figure((9.0, 4.0))
    axes = fig.subplots(1, 2)
    for ax, metric, unit, pick in ((axes[0], "latency", "µs", min), (axes[1], "bandwidth", "MB/s", max)):
        sel = [r for r in recs if r["metric"] == metric]
        if not sel:
            ax.set_visible(False)
            continue
        size = pick(r["params"]["bytes"] for r in sel)
        mat = np.full((n, n), np.nan)
        node = {}
        for r in sel:
            p = r["params"]
            node[at[p["src"]]] = (p.get("src_node"), p.get("src_socket"))
            node[at[p["dst"]]] = (p.get("dst_node"), p.get("dst_socket"))
            if p["bytes"] == size:
                mat[at[p["src"]], at[p["dst"]]] = mat[at[p["dst"]], at[p["src"]]] = value(r)
        quiet = within_noise([r for r in sel if r["params"]["bytes"] == size])
        # Differences inside the CIs are noise: one neutral colour (the scale from 0), so that
        # they do not look like structure.
        im = ax.imshow(np.ma.masked_invalid(mat), origin="upper", aspect="auto",
                       **({"cmap": "Greys", "vmin": 0, "vmax": 2 * np.nanmax(mat)} if quiet else
                          {"cmap": "viridis" if metric == "bandwidth" else "viridis_r"}))
        fig.colorbar(im, ax=ax, label=f"{metric} [{unit}]"
                     + ("\nall within noise (95% CIs overlap)" if quiet else ""))
        ticks = list(range(n))
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
        lab = [f"{ranks[i]}/n{node.get(i, ('?', None))[0]}"
               + (f"s{node[i][1]}" if i in node and node[i][1] is not None and node[i][1] >= 0
                  else "") for i in ticks]
        ax.set_xticklabels(lab, rotation=90, fontsize=7)
        ax.set_yticklabels(lab, fontsize=7)
        ax.grid(False)
        for edge in node_boundaries(node, n):
            ax.axhline(edge, color="crimson", lw=1.2, gid="node-boundary")
            ax.axvline(edge, color="crimson", lw=1.2, gid="node-boundary")
        ax.set_title(f"{metric}, {human_bytes(size)} (rank/node, socket)", fontsize=9, loc="left")
    split = any(line.get_gid() == "node-boundary" for ax in axes for line in ax.lines)
    _title(fig, safe_text(f"Distance map — {fig_label(run)}"
                      + (" (red lines: node boundaries)" if split else "")))
    return fig


def hotspot_curve(runs: list[dict]) -> Optional[Figure]:
    use = _panel_runs(runs, "hotspot")
    if not use:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    marked: set = set()
    for run in use:
        by: Dict[int, list] = {}
        for r in records(run, "hotspot", "bandwidth"):
            by.setdefault(r["params"]["bytes"], []).append(r)
        for b, recs in sorted(by.items()):
            recs.sort(key=lambda r: r["params"]["senders"])
            label = human_bytes(b) + (f" — {fig_label(run)}" if len(use) > 1 else "")
            draw_records(ax, recs, [r["params"]["senders"] for r in recs], safe_text(label), marked)
    ax.set_xlabel("senders k (to rank 0)")
    ax.set_ylabel("aggregate bandwidth [MB/s]")
    ax.set_ylim(bottom=0)
    ax.xaxis.get_major_locator().set_params(integer=True)
    legend(ax)
    ax.set_title("Hot spot: k senders to one receiver (median)", loc="left")
    return fig


def collectives_size(runs: list[dict]) -> Optional[Figure]:
    run = next((r for r in runs if records(r, "collectives")), None)
    if run is None:
        return None
    recs = records(run, "collectives", "latency")
    counts = sorted({r["params"]["nranks"] for r in recs})
    fig = new_figure((4.0 * len(counts) + 1.5, 4.0))
    axes = fig.subplots(1, len(counts), squeeze=False, sharey=True)[0]
    for ax, np_ in zip(axes, counts):
        by: Dict[str, list] = {}
        for r in recs:
            p = r["params"]
            if p["nranks"] == np_ and p["op"] != "barrier":
                by.setdefault(p["op"], []).append(r)
        raw: Dict[str, list] = {}
        for r in records(run, "collectives", "latency_raw"):
            p = r["params"]
            if p["nranks"] == np_:
                raw.setdefault(p["op"], []).append((p["bytes"], value(r)))
        xs, marked = [], set()
        for op, ops in by.items():
            ops.sort(key=lambda r: r["params"]["bytes"])
            line = draw_records(ax, ops, _sizes(ops), op, marked, markersize=3)
            colour = line.get_color() if line is not None else "#7f8c8d"
            if op in raw:   # dashed: barrier included, for when the subtraction is not resolved
                rp = sorted(raw[op])
                ax.plot([b for b, _ in rp], [v for _, v in rp], linestyle="--", linewidth=0.8,
                        color=colour)
            xs += _sizes(ops)
        bar = [value(r) for r in recs if r["params"]["op"] == "barrier"
               and r["params"]["nranks"] == np_]
        if bar:
            ax.axhline(bar[0], linestyle=":", color="#555555", linewidth=1)
            ax.text(0.01, bar[0], " barrier", transform=ax.get_yaxis_transform(), va="bottom",
                    fontsize=7)
        if xs:
            bytes_axis(ax, xs, "bytes per rank")
        plain_log_y(ax)
        ax.set_title(f"{np_} ranks" + _over(run, recs, np_), fontsize=9, loc="left")
    axes[0].set_ylabel("latency, slowest rank [µs]")
    axes[-1].legend(*_all_handles(axes), loc="upper left", bbox_to_anchor=(1.0, 1.0))
    _title(fig, safe_text(f"Collectives vs size (slowest rank, barrier subtracted; dashed: with the "
                      f"barrier) — {fig_label(run)}"))
    return fig


def collectives_ranks(runs: list[dict]) -> Optional[Figure]:
    run = next((r for r in runs if records(r, "collectives")), None)
    if run is None:
        return None
    recs = records(run, "collectives", "latency")
    if len({r["params"]["nranks"] for r in recs}) < 2:
        return None
    sizes = sorted({r["params"]["bytes"] for r in recs if r["params"]["op"] != "barrier"})
    pick = [s for s in (sizes[:1] + sizes[-1:]) if s is not None]
    fig = new_figure((9.0, 4.0))
    axes = fig.subplots(1, len(set(pick)) or 1, squeeze=False)[0]
    for ax, size in zip(axes, sorted(set(pick))):
        by: Dict[str, list] = {}
        for r in recs:
            p = r["params"]
            if p["bytes"] == size or p["op"] == "barrier":
                by.setdefault(p["op"], []).append(r)
        marked: set = set()
        for op, ops in sorted(by.items()):
            ops.sort(key=lambda r: r["params"]["nranks"])
            draw_records(ax, ops, [r["params"]["nranks"] for r in ops], op, marked, markersize=3)
        ax.set_xlabel("ranks")
        counts = sorted({r["params"]["nranks"] for r in recs})
        if counts[-1] >= 8 * counts[0]:       # a study's ladder: 1 .. N x K ranks
            ax.set_xscale("log", base=2)
        else:
            ax.xaxis.get_major_locator().set_params(integer=True)
        plain_log_y(ax)
        ax.set_title(f"{human_bytes(size)} per rank", fontsize=9, loc="left")
        legend(ax, fontsize=7)
    axes[0].set_ylabel("latency, slowest rank [µs]")
    _title(fig, safe_text(f"Collectives vs rank count — {fig_label(run)}"))
    return fig


def halo_methods(runs: list[dict]) -> Optional[Figure]:
    run = next((r for r in runs if records(r, "halo")), None)
    if run is None:
        return None
    recs = records(run, "halo", "latency")
    keys = sorted({(r["params"]["nranks"], r["params"]["neighbours"]) for r in recs})
    fig = new_figure((max(7.5, 3.0 * len(keys)), 3.8))
    axes = fig.subplots(1, len(keys), squeeze=False, sharey=True)[0]
    for ax, (np_, nb) in zip(axes, keys):
        by: Dict[str, list] = {}
        for r in recs:
            p = r["params"]
            if (p["nranks"], p["neighbours"]) == (np_, nb):
                by.setdefault(p["method"], []).append(r)
        marked: set = set()
        for m, ms in sorted(by.items()):
            ms.sort(key=lambda r: r["params"]["width"])
            draw_records(ax, ms, [r["params"]["width"] for r in ms], m, marked, markersize=3)
        ax.set_xscale("log", base=2)
        plain_log_y(ax)
        ax.set_xlabel("ghost width [cells]")
        ax.set_title(f"{np_} ranks, {nb} neighbours" + _over(run, recs, np_), fontsize=9,
                     loc="left")
        legend(ax, fontsize=7)
    axes[0].set_ylabel("time per exchange, slowest rank [µs]")
    _title(fig, safe_text(f"Halo exchange: packed vs datatypes vs puts — {fig_label(run)}"))
    return fig


def pingpong_latency(runs: list[dict]) -> Figure | None:
    series = series_of(runs, "pingpong", "latency", "bytes")
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    xs = line_plot(ax, series, "bytes", xmap=lambda b: b if b > 0 else ZERO_X)
    bytes_axis(ax, xs, "message size [bytes]")
    plain_log_y(ax)
    ax.set_ylabel("one-way latency [µs]")
    ax.set_title("Ping-pong latency (median, band: 95% CI)", loc="left")
    return fig


def pingpong_bandwidth(runs: list[dict]) -> Figure | None:
    series = [(label, [r for r in recs if r["params"]["bytes"] > 0])  # 0 B carries no bandwidth
              for label, recs in series_of(runs, "pingpong", "bandwidth", "bytes")]
    series = [s for s in series if s[1]]
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    bytes_axis(ax, line_plot(ax, series, "bytes"), "message size [bytes]")
    ax.set_ylim(bottom=0)
    ax.set_ylabel("bandwidth [MB/s]")
    ax.set_title("Ping-pong bandwidth (median, band: 95% CI)", loc="left")
    return fig


for _title_text, _fn, _bench in (
        ("Ping-pong latency vs message size", pingpong_latency, "pingpong"),
        ("Ping-pong bandwidth vs message size", pingpong_bandwidth, "pingpong"),
        ("p2p ping-pong latency per protocol with fitted models", p2p_latency, "p2p"),
        ("p2p bandwidth vs size: modes and streaming protocols", p2p_bandwidth, "p2p"),
        ("Placement patterns: slowest pair", p2p_patterns, "p2p"),
        ("Distance map", distance_map, "distance"),
        ("Hot spot: aggregate bandwidth vs senders", hotspot_curve, "hotspot"),
        ("Collectives vs message size", collectives_size, "collectives"),
        ("Collectives vs rank count", collectives_ranks, "collectives"),
        ("Halo exchange methods vs ghost width", halo_methods, "halo")):
    register_figure(FigureSpec(SECTION, _title_text, _fn, _bench, ORDER))
