"""Communication tables: the fitted message-time models and the protocol switches the
refinement bracketed (hpceval/analysis/commmodel.py)."""
from __future__ import annotations

from typing import List, Optional

from hpceval.analysis.commmodel import run_models, switches
from hpceval.analysis.eager import eager_switches

from .data import fmt_num, human_bytes
from .registry import Table, TableSpec, register_table

SECTION = "Interconnect"


# ---------------------------------------------------------------- the models table

# A region whose fit leaves more than this rms relative residual does not explain its points:
# its parameters are not quoted as the series' figures.
POOR_FIT = 0.15


def _rate(mb_s: float) -> str:
    return f"about {mb_s / 1000:.3g} GB/s" if mb_s >= 1000 else f"about {mb_s:.3g} MB/s"


def model_summary(m) -> tuple:
    """('0.27 µs latency, about 13 GB/s asymptotic, protocol switch at 8 KiB', fit verdict)."""
    first, last = m.regions[0], m.regions[-1]
    parts = []
    if first.rms_rel <= POOR_FIT:
        parts.append(f"{fmt_num(first.t0)} µs latency")
    if last.r_inf is not None and last.rms_rel <= POOR_FIT and len(m.regions) > 0:
        parts.append(f"{_rate(last.r_inf)} asymptotic")
    if m.breakpoints:
        at = ", ".join(human_bytes(hi) for _, hi in m.breakpoints)
        parts.append(f"protocol switch{'es' if len(m.breakpoints) > 1 else ''} at {at}")
    poor = [r for r in m.regions if r.rms_rel > POOR_FIT]
    fit = "good (rms {:.0f}%)".format(100 * m.rms_rel) if not poor else "; ".join(
        f"large residual {100 * r.rms_rel:.0f}% over {human_bytes(r.n_lo)} – {human_bytes(r.n_hi)}"
        for r in poor)
    return ", ".join(parts) or "no figure the fit explains", fit


def model_table(run: dict) -> Optional[Table]:
    """One line per series: what the fit says, in words, and whether it explains the data."""
    models = run_models(run)
    if not models:
        return None
    rows: List[List[object]] = [[key, *model_summary(m), str(len(m.regions))]
                                for key, m in sorted(models.items())]
    return Table(["series", "summary", "fit", "regions"], rows,
                 "t(n) = t0 + n / r_inf fitted per region of sizes on relative errors (regions: "
                 "protocol switches found from the data, their number chosen by BIC). Latency is "
                 "the first region's t0, the asymptotic rate the last region's r_inf; a region "
                 f"whose rms residual exceeds {100 * POOR_FIT:.0f}% is not quoted and is named in "
                 "the fit column. Stream series: time per message in a window.")


register_table(TableSpec(SECTION, "Fitted message-time models (Hockney, piecewise)", model_table, order=10))


def switch_table(run: dict) -> Optional[Table]:
    found = switches(run) + eager_switches(run)
    if not found:
        return None
    rows = [[s.series, f"{s.n_before:,} B – {s.n_after:,} B", fmt_num(s.t_before),
             fmt_num(s.t_after), f"{100 * (s.t_after - s.t_before) / s.t_before:+.0f}%"]
            for s in found]
    return Table(["series", "between", "time before [µs]", "time after [µs]", "step"], rows,
                 "Where a message-time curve jumps (an eager → rendezvous switch, a copy method "
                 "changing): the benchmark bisected each suspected interval of its sweep down to "
                 "16 bytes; listed where the two sizes' times differ by at least 2%. Eager "
                 "series: the time a late receive takes (the eager benchmark).")


register_table(TableSpec(SECTION, "Protocol switches bracketed by refinement", switch_table, order=10))
