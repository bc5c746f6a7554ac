"""How a point was measured, as far as comparing two machines cares: the message buffers' pages,
the ranks' binding, the MPI library and whether it was simulated. Two cells of a side-by-side
comparison measured differently say so: an Open MPI and an MPICH figure, or a figure with
transparent huge pages beside one with base pages, are not the same experiment.

Read from the export format only: the record's own `buffer_pages` (every communication record)
or `pages` parameter (the memory benchmarks), and the meta record of the run's launches of the
record's benchmark (the MPI library it reported, each rank's CPU set)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.quality import field
from hpceval.simulate import mark

Run = Dict[str, Any]
Record = Dict[str, Any]

ASPECTS = ("pages", "binding", "MPI", "simulated")


def _mpi_name(library: str) -> str:
    """'Open MPI v4.1.4, package: ...' -> 'Open MPI v4.1.4'; 'MPICH Version: 4.0.2 ...' ->
    'MPICH 4.0.2': the library and its version, not its build details."""
    text = " ".join(library.split())
    if text.startswith("MPICH"):
        words = text.replace("Version:", "").split()
        return " ".join(words[:2])
    return text.split(",")[0]


def _binding(affinity: List[Any]) -> Optional[str]:
    """'one CPU per rank', 'unbound' (every rank may run on the same several CPUs) or 'CPU sets'."""
    sets = [str(a) for a in affinity]
    if not sets:
        return None
    if all(s.isdigit() for s in sets):
        return "one CPU per rank"
    return "unbound" if len(set(sets)) == 1 else "CPU sets"


def _launch_meta(run: Run, bench: str) -> Dict[str, Any]:
    for launch in run.get("launches") or []:
        meta = launch.get("meta") or {}
        if launch.get("benchmark") == bench and meta:
            return meta
    return {}


def method(run: Run, rec: Optional[Record]) -> Dict[str, Optional[str]]:
    """{pages, binding, MPI, simulated}: each a short text, None where not recorded."""
    if rec is None:
        return {a: None for a in ASPECTS}
    meta = _launch_meta(run, str(rec.get("benchmark")))
    pages = field(rec, "buffer_pages") or (rec.get("params") or {}).get("pages") or field(rec, "pages")
    lib = meta.get("mpi_library") or ((run.get("fingerprint") or {}).get("mpi") or {}).get("version")
    return {"pages": str(pages) if pages else None,
            "binding": _binding(meta.get("affinity") or []),
            "MPI": _mpi_name(str(lib)) if lib else None,
            "simulated": "simulated" if mark.record_simulated(rec) else "real"}


def differences(ref: Dict[str, Optional[str]], other: Dict[str, Optional[str]]) -> List[str]:
    """'MPI: MPICH 4.0.2 (reference Open MPI v4.1.4)' per aspect both record and differ in."""
    return [f"{a}: {other[a]} (reference {ref[a]})" for a in ASPECTS
            if ref.get(a) and other.get(a) and ref[a] != other[a]]
