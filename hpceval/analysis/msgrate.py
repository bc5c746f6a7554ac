"""msgrate's analysis (csrc/comm/msgrate.c): the message rate at a size with the most pairs
measured together, inside one node or across nodes."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from hpceval.analysis.headlines import select

Record = Dict[str, Any]


def spans_nodes(rec: Record) -> bool:
    """The record's ranks ran on more than one node (hpceval/runner/placement.py's tag)."""
    where = rec.get("where") or (rec.get("extra") or {}).get("where") or {}
    return len(where.get("nodes") or []) > 1


def most_pairs_at(records: List[Record], nbytes: int, across: bool,
                  metric: str = "message_rate") -> Optional[Record]:
    """The point of the most pairs measured in one node (across: on several nodes), at the size
    nearest `nbytes` (log distance) among that pair count's sizes; None if none was."""
    recs = [r for r in select(records, "msgrate", metric) if spans_nodes(r) == across]
    if not recs:
        return None
    top = max(r["params"]["pairs"] for r in recs)
    return min((r for r in recs if r["params"]["pairs"] == top),
               key=lambda r: abs(math.log2(r["params"]["bytes"] / nbytes)))
