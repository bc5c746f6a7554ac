"""A run's headline figures as named performance variables, one line each, for tools that key
figures by a name (ReFrame's perf_variables and perflogs: packaging/reframe)."""
from __future__ import annotations

import re
from typing import Any, Dict, List

from hpceval.analysis.headlines import headlines, value

# The line prefix that packaging/reframe/hpceval_checks.py reads (keep the two in step).
PREFIX = "hpceval-perf"


def perf_name(label: str) -> str:
    """A stable ASCII name for a headline label: 'Ping-pong latency, 8 B' -> 'ping_pong_latency_8_b'.
    A parenthesised part (which variant was fastest) is left out: a reference keeps its name
    when another variant wins."""
    return re.sub(r"[^0-9a-z]+", "_", re.sub(r"\([^)]*\)", "", label).lower()).strip("_")


def perf_variables(records: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """[{name, value, unit, better, label}] for every headline figure, names made unique."""
    out: List[Dict[str, Any]] = []
    seen: Dict[str, int] = {}
    for h in headlines(records):
        name = perf_name(h["label"])
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:                    # two figures with one label: name_2, name_3, ...
            name = f"{name}_{seen[name]}"
        rec = h["record"]
        out.append({"name": name, "value": value(rec), "unit": rec["unit"],
                    "better": rec.get("better") or "higher", "label": h["label"]})
    return out


def perf_lines(records: List[Dict[str, Any]]) -> List[str]:
    """'hpceval-perf NAME VALUE UNIT BETTER' per figure (the unit has no spaces: units are
    symbols such as us, MB/s, Mop/s)."""
    return [f"{PREFIX} {v['name']} {v['value']!r} {v['unit'].replace(' ', '_')} {v['better']}"
            for v in perf_variables(records)]
