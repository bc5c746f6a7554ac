"""The nodes of a run that spans nodes (hpceval/runner/nodeprint.py gathers their fingerprints
into the run's settings): one line each, and nodes that differ flagged as a finding."""
from __future__ import annotations

import json
from typing import Any, Dict, List

FINDING = "FINDING: the nodes differ in"


def _short(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def node_lines(run: Dict[str, Any]) -> List[str]:
    """Lines for `show` and the report; [] for a run on one machine."""
    info = (run.get("settings") or {}).get("nodes")
    if not info:
        return []
    nodes: Dict[str, Dict[str, Any]] = info.get("nodes") or {}
    differ: List[str] = info.get("differ") or []
    lines = []
    if differ:
        lines.append(f"{FINDING} {', '.join(differ)}")
        lines += [f"{host}: " + "; ".join(f"{k}={_short(fp.get(k))}" for k in differ)
                  for host, fp in nodes.items()]
    elif nodes:
        first = next(iter(nodes.values()))
        lines.append(f"{len(nodes)} nodes ({', '.join(nodes)}), identical fingerprints: "
                     f"{first.get('cpu_model')}, {first.get('cores')} cores, "
                     f"{(first.get('memory_bytes') or 0) / 2**30:.1f} GiB, kernel "
                     f"{first.get('kernel')}, MPI {first.get('mpi')}")
    if info.get("warning"):
        lines.append(f"warning: {info['warning']}")
    return lines
