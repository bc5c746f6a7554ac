"""Memory per home (NUMA), as the EV7 evaluation read it: a latency and a read-bandwidth curve
per memory home measured from one CPU (Fig. 2.1), the read of an array larger than the CPU's
home (Fig. 2.6), the summary per home (Table 2.1) and section 6's comparison of the MPI
latency with the memory latency of the nearest remote home: what the MPI software adds.

Records: mem-latency (random order, base pages) and mem-bandwidth (read, one thread) with
params.node >= 0 (hpceval/catalog/bench_memory.py, homes=each); each says where its pages were
(memory_node), the measuring CPU's home (cpu_node) and the firmware's distance (distance)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis.comm import mpi_point
from hpceval.analysis.headlines import select, size_label, value
from hpceval.quality import field

Run = Dict[str, Any]
Record = Dict[str, Any]

ONE_HOME = "one memory home on this machine"
KINDS = {"latency": ("mem-latency", "latency", {"order": "random", "pages": "base"}),
         "bandwidth": ("mem-bandwidth", "bandwidth", {"mode": "read", "threads": 1})}


def home_curves(run: Run, kind: str) -> Dict[int, List[Record]]:
    """{home: records sorted by size} measured from one CPU (the lowest that has a curve of two
    sizes or more: the homes=each sweep, not the matrix's single points)."""
    bench, metric, params = KINDS[kind]
    groups: Dict[tuple, Dict[int, Record]] = {}
    for r in select(run.get("records") or [], bench, metric, **params):
        p = r.get("params") or {}
        if isinstance(p.get("node"), int) and p["node"] >= 0 and value(r) is not None:
            groups.setdefault((p.get("cpu", -1), p["node"]), {})[p["bytes"]] = r
    cpus = sorted({c for (c, _), g in groups.items() if len(g) > 1})
    if not cpus:
        return {}
    return {n: [g[b] for b in sorted(g)] for (c, n), g in sorted(groups.items()) if c == cpus[0]}


def homes(run: Run) -> int:
    """Memory homes of the machine the run was on (its fingerprint; 1 when not recorded)."""
    return int((run.get("fingerprint") or {}).get("numa_nodes") or 1)


def _is_local(rec: Record) -> bool:
    return field(rec, "cpu_node") == rec["params"]["node"]


def home_summary(run: Run, kind: str) -> List[Dict[str, Any]]:
    """Per home, at its curve's largest size: {home, local, distance, value, bytes, record},
    local home first, then by distance."""
    out = []
    for node, recs in home_curves(run, kind).items():
        top = recs[-1]
        out.append({"home": node, "local": _is_local(top), "distance": field(top, "distance"),
                    "value": value(top), "bytes": top["params"]["bytes"], "record": top})
    return sorted(out, key=lambda h: (not h["local"], h["distance"] or 0, h["home"]))


def nearest_remote(run: Run, kind: str) -> Optional[Dict[str, Any]]:
    """The remote home at the smallest distance (its largest size), or None."""
    remote = [h for h in home_summary(run, kind) if not h["local"]]
    return remote[0] if remote else None


def local_home(run: Run, kind: str) -> Optional[Dict[str, Any]]:
    """The CPU's own home at its curve's largest size; without per-home curves, the latency
    sweep placed by first touch (its largest set: home -1, the CPU's own)."""
    local = [h for h in home_summary(run, kind) if h["local"]]
    if local or kind != "latency":
        return local[0] if local else None
    bench, metric, params = KINDS[kind]
    recs = [r for r in select(run.get("records") or [], bench, metric, **params)
            if r["params"].get("node", -1) == -1 and value(r) is not None]
    top = max(recs, key=lambda r: r["params"]["bytes"], default=None)
    return top and {"home": "first touch", "local": True, "distance": field(top, "distance"),
                    "value": value(top), "bytes": top["params"]["bytes"], "record": top}


def beyond_local(run: Run) -> List[Record]:
    """First-touch read points whose pages did not all fit on the CPU's home (local_share < 1):
    the array was larger than the local memory (beyond-local=yes)."""
    return sorted((r for r in select(run.get("records") or [], "mem-bandwidth", "bandwidth",
                                     mode="read", threads=1)
                   if r["params"].get("node", -1) == -1
                   and isinstance(field(r, "local_share"), (int, float))
                   and field(r, "local_share") < 1), key=lambda r: r["params"]["bytes"])


def nominal_mhz(run: Run) -> tuple:
    """(MHz, None) from the fingerprint's nominal clock, or (None, why there is none)."""
    fp = run.get("fingerprint") or {}
    mhz = fp.get("nominal_mhz")
    if isinstance(mhz, (int, float)) and mhz > 0:
        return float(mhz), None
    return None, str(fp.get("nominal_mhz_source") or "the fingerprint records no nominal clock")


def cycles(run: Run, ns: Optional[float]) -> Optional[float]:
    """ns at the nominal clock, in cycles (None without a clock)."""
    mhz, _ = nominal_mhz(run)
    return None if mhz is None or ns is None else ns * mhz / 1000.0


def where(h: Dict[str, Any]) -> str:
    """'home 1, distance 21, 64 MiB'."""
    dist = f", distance {h['distance']}" if h.get("distance") is not None else ""
    return f"home {h['home']}{dist}, {size_label(h['bytes'])}"


def memory_beside_mpi(run: Run) -> Optional[Dict[str, Any]]:
    """EV7 section 6: the 8 B intra-node ping-pong latency beside the load latency of the
    nearest remote home (one home: the local DRAM's, said so). {mpi_us, mem_ns, what, remote,
    difference_us, ratio}, or None when either is missing."""
    mpi = mpi_point("intra", "latency", 8)(run)
    mem = nearest_remote(run, "latency")
    what = f"nearest remote home ({where(mem)})" if mem else ""
    if mem is None:
        mem = local_home(run, "latency")
        what = mem and (f"local DRAM ({where(mem)}): " + (
            ONE_HOME if homes(run) == 1 else "no remote home measured"))
    if mpi is None or mem is None or not mem["value"]:
        return None
    mpi_us, mem_ns = float(mpi.value), float(mem["value"])
    return {"mpi_us": mpi_us, "mpi_point": mpi.point, "mpi_record": mpi.record,
            "mem_ns": mem_ns, "mem_record": mem["record"], "what": what,
            "remote": not mem["local"], "difference_us": mpi_us - mem_ns / 1000.0,
            "ratio": mpi_us * 1000.0 / mem_ns}
