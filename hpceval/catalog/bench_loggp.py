"""loggp: the LogGP parameters (L, o_s, o_r, g, G) of ranks 0 and 1 by netgauge's method
(message trains with and without computation between the messages; docs/loggp.md). Placed as
pingpong is: two ranks on one node by default, on two nodes with --hosts A,B --ppn 1."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (REPETITION, check_memory, harness_bytes, launch_timeout,
                                    narrow_whole, pair_ranks, repetition_args)
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

LOGGP_SIZES = [0, 8, 64, 512, 4096, 16384, 65536, 262144, 1 << 20]
POINTS_PER_SIZE = 5          # round trip, the computation alone, gap, o_s, o_r
RESULTS_PER_SIZE = 4         # round_trip, gap, o_s, o_r (+ one summary record, L)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nranks = pair_ranks(ctx)
    if nranks < 2:
        raise UsageError(f"loggp needs at least 2 ranks, --np {nranks} given")
    sizes = v["sizes"]
    if len(set(sizes)) < 2:
        raise UsageError("loggp: --set sizes needs at least two different sizes (G is a slope "
                         "over sizes)")
    check_memory(2 * max(sizes) * ctx.ranks_per_node(nranks), ctx, "loggp message buffers")
    args = [a for n in ("sizes", "train", "delay") for a in b.param(n).to_arg(v[n])]
    return [LaunchSpec(b.name, f"loggp np={nranks}", "loggp", args + repetition_args(b, v),
                       nranks, "core", expected_results=RESULTS_PER_SIZE * len(sizes) + 1,
                       timeout_s=launch_timeout(v, POINTS_PER_SIZE * len(sizes)))]


register_benchmark(Benchmark(
    "loggp", "communication",
    "LogGP parameters L, o_s, o_r, g, G between ranks 0 and 1 (netgauge: message trains with "
    "and without computation between messages); o_s, o_r, g and the round trip per size",
    (Param("sizes", "sizes", LOGGP_SIZES, "message sizes in bytes (the smallest gives L, o_s, "
           "o_r, g; G is the gap's slope over the sizes >= the largest / 16)", 0, (1 << 31) - 1),
     Param("train", "int", 32, "messages per train (n of PRTT(n, d, s))", 2, 100000),
     Param("delay", "float", 0.0, "computation between messages in us (0: twice the size's "
           "round trip)", 0.0, 1e7),
     ) + REPETITION,
    # every size feeds the summary (L, G): a point is re-measured with its whole launch
    _plan, ranks=">=2 (--np, default 2; ranks 0 and 1 measure)", narrow=narrow_whole,
    memory=lambda spec, v: 2 * max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=0,64K", "train=8")))


# ---------------------------------------------------------------- card, headline rows, figures

def _text(p: Dict[str, Any]) -> str:
    from hpceval.analysis.headlines import size_label
    g = p["G_us_per_byte"]
    bw = f" ({p['bandwidth_MBps']:,.0f} MB/s)" if p["bandwidth_MBps"] else ""
    fit = p.get("G_fit_bytes") or [None, None]
    span = f" over {size_label(fit[0])} – {size_label(fit[1])}" if fit[0] is not None else ""
    clipped = " (RTT/2 - o_s - o_r < 0: clipped)" if p["L_clipped"] else ""
    return (f"L{clipped}; o_s {p['o_s_us']:.3g} us, o_r {p['o_r_us']:.3g} us, g {p['g_us']:.3g} "
            f"us at {size_label(p['at_bytes'])}; G {g:.3g} us/B{bw}{span}; {p['where']}")


def _cell(where: str):
    def get(run: dict):
        from hpceval.analysis.card import Cell
        from hpceval.analysis.loggp import loggp_params, summary_record
        p = loggp_params(run, where)
        if p is None:
            return None
        return Cell(p["L_us"], _text(p), summary_record(run, where))
    return get


def card_rows():
    """One row per placement, in sections of their own after the MPI rows (a model's
    parameters, not a measured point of a curve): L as the value (its CI is the summary
    record's), the other parameters beside it."""
    from hpceval.analysis.card import CardRow
    return [CardRow(f"LogGP {where}", "LogGP parameters (L, o_s, o_r, g, G)", "us", _cell(where),
                    order=20)
            for where in ("intra-node", "inter-node")]


def headline_rows():
    """L of the summary record, the other parameters named in the label."""
    from hpceval.analysis.headlines import Headline, select, size_label

    def rows(records: list):
        for rec in select(records, "loggp", "L")[-1:]:
            yield f"LogGP latency L, {size_label(rec['params']['bytes'])} messages", rec
    return [Headline(rows, order=10)]


def _overheads_figure(runs: List[dict]):
    """o_s, o_r and g vs message size, median with its 95% CI, one panel each."""
    from hpceval.report.data import fig_label, records, value
    from hpceval.report.figures import ZERO_X, _bytes_axis, _figure, _text
    panels = (("o_s", "send overhead o_s"), ("o_r", "receive overhead o_r"), ("gap", "gap g"))
    if not any(records(run, "loggp", m) for run in runs for m, _ in panels):
        return None
    fig = _figure((13.5, 4.0))
    for ax, (metric, title) in zip(fig.subplots(1, 3), panels):
        xs_all = []
        for run in runs:
            pts = sorted(records(run, "loggp", metric), key=lambda r: r["params"]["bytes"])
            xs = [r["params"]["bytes"] or ZERO_X for r in pts]
            ys = [value(r) for r in pts]
            lo = [max(y - r["stats"]["ci_low"], 0) for r, y in zip(pts, ys)]
            hi = [max(r["stats"]["ci_high"] - y, 0) for r, y in zip(pts, ys)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=2,
                        label=_text(fig_label(run)))
            xs_all += xs
        _bytes_axis(ax, xs_all, "message size [bytes]")
        ax.set_yscale("log")
        ax.set_ylabel(f"{title} [us]")
        ax.legend(fontsize=7)
    return fig


def figures():
    from hpceval.report.figures import FigureSpec
    return [FigureSpec("Interconnect", "LogGP (netgauge's method): send and receive overheads "
                       "o_s, o_r and the gap g vs message size", _overheads_figure, "loggp",
                       order=10)]


# The study: LogGP's parameters, which `hpceval predict` uses.
register_study("loggp", budget=0.1)
