"""Machine cards side by side, as EV7 Table 5.1 lays several machines out: every card row of
every run, each figure also as a ratio to a reference run's, judged faster, slower, same or
undecided as `compare` judges every shared point (the ratio's 95% interval against the
tolerance: hpceval.analysis.decide), and where a machine measured the row differently from the
reference (pages, binding, MPI library, simulated: hpceval.analysis.howmeasured) the cell says so.

The ratio is value / reference value as the card shows the figure; the verdict comes from the
records' samples and direction, never from the ratio alone (a 3% ratio whose interval spans the
tolerance is "undecided")."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis import decide as dec
from hpceval.analysis.card import machine_card
from hpceval.analysis.howmeasured import differences, method
from hpceval.analysis.modelsacross import models_across
from hpceval.analysis.tunedbest import over_best, speedup_by_size, tuned_best

Run = Dict[str, Any]


def ratio(v: Any, ref: Any) -> Optional[float]:
    """v / ref for two numbers, ref above 0 and v not below, else None (a text row, one side
    unmeasured, or a difference that may change sign: a ratio of those says nothing)."""
    num = (int, float)
    if isinstance(v, num) and isinstance(ref, num) and not isinstance(v, bool) and ref > 0 <= v:
        return float(v) / float(ref)
    return None


def _verdict(ref_row: Dict[str, Any], row: Dict[str, Any], tolerance: float) -> Optional[str]:
    """faster/slower/same/undecided from the records (decide.py); for a text row without a
    record (the System rows) 'same' or 'differs'; None where either is unmeasured or a derived
    figure has no CI to test (a model's n_1/2: its ratio is shown, untested)."""
    if not (ref_row["measured"] and row["measured"]):
        return None
    if ref_row["record"] is not None and row["record"] is not None:
        return dec.decide(ref_row["record"], row["record"], tolerance)["verdict"]
    if ratio(row["value"], ref_row["value"]) is not None:
        return None
    return "same" if ref_row["value"] == row["value"] else "differs"


def _cell(run: Run, row: Dict[str, Any], ref_run: Run, ref_row: Dict[str, Any],
          is_ref: bool, tolerance: float) -> Dict[str, Any]:
    rec = row["record"]
    notes = [] if is_ref or rec is None or ref_row["record"] is None else differences(
        method(ref_run, ref_row["record"]), method(run, rec))
    return {"value": row["value"] if row["measured"] else None, "point": row["point"],
            "missing": None if row["measured"] else row["missing"],
            "ratio": None if is_ref else ratio(row["value"], ref_row["value"]),
            "verdict": "reference" if is_ref else _verdict(ref_row, row, tolerance),
            "better": (rec or {}).get("better"), "method": method(run, rec),
            "differs": notes, "warning": row.get("warning") or ""}


def side_by_side(runs: List[Run], reference: int = 0,
                 tolerance: float = dec.TOLERANCE) -> Dict[str, Any]:
    """{"reference": index, "runs": ids, "rows": [{section, quantity, unit, cells: [one per run]}]}:
    every card row any run measured, in the card's order; each cell value, point, ratio to the
    reference, verdict, how it was measured and how that differs from the reference's."""
    if not 0 <= reference < len(runs):
        raise ValueError(f"reference {reference} is not one of the {len(runs)} runs")
    cards = [machine_card(r) for r in runs]
    ref_run, ref_card = runs[reference], cards[reference]
    rows = []
    for i, ref_row in enumerate(ref_card):
        line = [card[i] for card in cards]          # every card has every row, in one order
        if not any(r["measured"] for r in line):
            continue
        unit = next((r["unit"] for r in line if r["measured"] and r["unit"]), ref_row["unit"])
        rows.append({"section": ref_row["section"], "quantity": ref_row["quantity"], "unit": unit,
                     "cells": [_cell(run, r, ref_run, ref_row, j == reference, tolerance)
                               for j, (run, r) in enumerate(zip(runs, line))]})
    return {"reference": reference, "runs": [r.get("id") for r in runs], "rows": rows}


def machines(runs: List[Run], reference: int = 0,
             tolerance: float = dec.TOLERANCE) -> Dict[str, Any]:
    """Every machine-by-machine view of `compare`: the cards side by side, tuned best against
    tuned best, each variant's cost over each machine's best, the speed-up over the reference
    against problem size, the models across machines."""
    tuned = tuned_best(runs, reference, tolerance)
    return {"reference": reference, "card": side_by_side(runs, reference, tolerance),
            "tuned_best": tuned, "over_best": over_best(runs),
            "speedup_by_size": speedup_by_size(tuned), "models": models_across(runs)}
