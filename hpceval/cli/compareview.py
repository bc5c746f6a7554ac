"""Terminal tables of `compare`'s machine-by-machine views: the cards side by side with ratios to
the reference (hpceval/analysis/sidebyside.py), tuned best against tuned best and each variant's
cost over a machine's best (tunedbest.py), and the message-time models across machines
(modelsacross.py)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from rich.console import Console

from hpceval.cli.cardview import cell_text, pct
from hpceval.cli.common import fmt_value, print_rows
from hpceval.simulate import mark


def _names(runs: List[Dict[str, Any]], reference: int) -> List[str]:
    return [f"#{r.get('id')}{mark.run_tag(r)}" + (" (reference)" if i == reference else "")
            for i, r in enumerate(runs)]


def _judged(ratio: Optional[float], verdict: Optional[str]) -> str:
    parts = [] if ratio is None else [f"x{ratio:.3g}"]
    if verdict and verdict != "reference":
        parts.append(verdict)        # a word already: analysis/decide.py, or same/differs
    return " ".join(parts)


def _card_cell(c: Dict[str, Any]) -> str:
    if c["value"] is None:
        return c["missing"] or "-"
    text = cell_text(c["value"])
    judged = _judged(c["ratio"], c["verdict"])
    notes = "; ".join(c["differs"] + ([c["warning"]] if c["warning"] else []))
    return text + (f" {judged}" if judged else "") + (f" [{notes}]" if notes else "")


def print_side_by_side(con: Console, card: Dict[str, Any], runs: List[Dict[str, Any]]) -> None:
    names = _names(runs, card["reference"])
    rows = [[f"{r['section']}: {r['quantity']}", r["unit"], *(_card_cell(c) for c in r["cells"])]
            for r in card["rows"]]
    print_rows(con, "machine cards side by side (xR: value / reference; faster/slower/same/"
               "undecided as every shared point; [..]: measured differently from the reference)",
               ["quantity", "unit", *names], rows, right=names)


def _tuned_cell(c: Optional[Dict[str, Any]]) -> str:
    if c is None:
        return "-"
    judged = _judged(c["ratio"], c["verdict"])
    return (f"{fmt_value(c['value'])} {c['variant']} (best of {c['candidates']})"
            + (f" {judged}" if judged else ""))


def print_tuned(con: Console, rows: List[Dict[str, Any]], over: List[Dict[str, Any]],
                speedup: List[Dict[str, Any]], runs: List[Dict[str, Any]], reference: int) -> None:
    names = _names(runs, reference)
    if not rows:
        con.print("[dim]tuned best: no tunable proxy measured on two of the runs[/dim]")
        return
    print_rows(con, "tuned best against tuned best: each machine's own fastest variant "
               "(xR: its time / the reference's best)",
               ["proxy", "problem", "ranks", "unit", *names],
               [[r["benchmark"], r["problem"], str(r["ranks"]), r["unit"],
                 *(_tuned_cell(c) for c in r["cells"])] for r in rows], right=names)
    if speedup:
        print_rows(con, "speed-up over the reference against problem size, best against best "
                   "(EV7 Fig. 4.2; above 1: faster)", ["proxy", "ranks", "problem", *names],
                   [[r["benchmark"], str(r["ranks"]), r["problem"],
                     *(_num(v) for v in r["speedup"])] for r in speedup], right=names)
    if over:
        print_rows(con, "every variant's (time - min) / min on each machine (ORNL Fig. 4)",
                   ["proxy", "problem", "ranks", "variant", *names],
                   [[r["benchmark"], r["problem"], str(r["ranks"]), r["variant"],
                     *(pct(d) for d in r["over_best"])] for r in over], right=names)


def _num(v: Optional[float]) -> str:
    return "-" if v is None else fmt_value(v)


def _region(c: Optional[Dict[str, Any]]) -> str:
    if c is None:
        return "-"
    return (f"h {_num(c['h_us'])} us, r_inf {_num(c['r_inf_MBps'])} MB/s, n_1/2 "
            f"{_num(c['n_half_bytes'])} B ({c['n_lo']:,}-{c['n_hi']:,} B, rms "
            f"{100 * c['rms_rel']:.0f}%)")


def print_models(con: Console, models: Dict[str, Any], runs: List[Dict[str, Any]],
                 reference: int) -> None:
    names = _names(runs, reference)
    if models["hockney"]:
        print_rows(con, "piecewise Hockney models across machines (SP2 Table 3): "
                   "t(n) = h + n / r_inf per region, n_1/2 = h r_inf",
                   ["series", "region", *names],
                   [[r["series"], str(r["region"]), *(_region(c) for c in r["cells"])]
                    for r in models["hockney"]])
    if models["loggp"]:
        print_rows(con, "LogGP parameters across machines", ["where", "parameter", "unit", *names],
                   [[r["where"], r["parameter"], r["unit"], *(_num(v) for v in r["values"])]
                    for r in models["loggp"]], right=names)
    if not (models["hockney"] or models["loggp"]):
        con.print("[dim]models: no run has a ping-pong curve of 6 sizes or more, nor LogGP[/dim]")


def print_machines(con: Console, found: Dict[str, Any], runs: List[Dict[str, Any]]) -> None:
    """Everything hpceval.analysis.sidebyside.machines found, in the order a team reads it."""
    print_side_by_side(con, found["card"], runs)
    print_tuned(con, found["tuned_best"], found["over_best"], found["speedup_by_size"], runs,
                found["reference"])
    print_models(con, found["models"], runs, found["reference"])
