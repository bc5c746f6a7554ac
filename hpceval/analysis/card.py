"""The machine card: a run's headline characteristics in one table, as Table 5.1 of the EV7
paper lays them out (system, memory hierarchy, MPI inside and across nodes, collectives,
kernels). Table-driven: CARD_ROWS holds one entry per row, each a function of the run that
returns a value or None ("not measured"); an area adds its rows with register_card_row.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, NamedTuple, Optional

from hpceval.analysis.hierarchy import hierarchy
from hpceval.analysis.oversubscription import oversubscribed
from hpceval.quality import clean
from hpceval.analysis.headlines import on_largest_grid, select, size_label, stream_points, value

NOT_MEASURED = "not measured"
NOT_RECORDED = "not recorded"

Run = Dict[str, Any]
Record = Dict[str, Any]


class Cell(NamedTuple):
    value: Any                       # number or text; None: not measured
    point: str = ""                  # where on the curve / which configuration
    record: Optional[Record] = None  # the record it comes from (statistic, n, CI)
    warning: str = ""                # why the value must be read with care (oversubscribed)


class CardRow(NamedTuple):
    section: str
    quantity: str
    unit: str
    get: Callable[[Run], Optional[Cell]]
    missing: str = NOT_MEASURED      # what an empty cell says


CARD_ROWS: List[CardRow] = []


def register_card_row(row: CardRow) -> CardRow:
    """Add a row; rows of one section are shown together, in registration order."""
    CARD_ROWS.append(row)
    return row


# ---------------------------------------------------------------- helpers

def _fp(run: Run) -> Dict[str, Any]:
    return run.get("fingerprint") or {}


def data_caches(fp: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Data and unified caches by level, one per level, smallest first."""
    out: Dict[int, Dict[str, Any]] = {}
    for c in fp.get("caches") or []:
        if str(c.get("type") or "").lower().startswith("instr") or not c.get("size_bytes"):
            continue
        out.setdefault(int(c.get("level") or 0), c)
    return [out[k] for k in sorted(out)]


def _clock(run: Run) -> Optional[Cell]:
    fp = _fp(run)
    for key in ("clock_mhz", "max_mhz", "cpu_mhz"):
        if isinstance(fp.get(key), (int, float)) and fp[key] > 0:
            return Cell(float(fp[key]), key)
    m = re.search(r"@\s*([\d.]+)\s*GHz", str(fp.get("cpu_model") or ""))
    return Cell(float(m.group(1)) * 1000, "from the CPU model name") if m else None


def _fp_value(key: str) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        v = _fp(run).get(key)
        return None if v is None else Cell(v)
    return get


def _cache_size(level: int) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        for c in data_caches(_fp(run)):
            if c.get("level") == level:
                extra = f"shared by {c['shared_by_cpus']} CPUs" if (c.get("shared_by_cpus") or 0) > 1 else ""
                return Cell(size_label(c["size_bytes"]), extra)
        return None
    return get


def _cache_sizes(run: Run) -> Dict[int, int]:
    """{level: bytes} of the data caches the card's memory rows are placed by: the levels the
    run's own latency curve shows when they disagree with the reported ones (a VM that reports
    its host's 480 MiB L3 would put "L3" rows in DRAM), else the reported ones."""
    found = hierarchy(run)
    if found and not found["agrees"]:
        detected = [lv["size"] for lv in found["levels"] if lv["level"] != "memory" and lv["size"]]
        if detected:
            return {k + 1: int(size) for k, size in enumerate(detected)}
    return {c["level"]: c["size_bytes"] for c in data_caches(_fp(run))}


def _level_window(run: Run, level: Optional[int]) -> Optional[tuple]:
    """Working sets that sit in cache `level` (above the level below, at most half of it), or in
    main memory (level None: at least twice the last-level cache)."""
    sizes = _cache_sizes(run)
    if not sizes:
        return None
    if level is None:
        return (2 * sizes[max(sizes)], float("inf"))
    if level not in sizes:
        return None
    below = max((s for l, s in sizes.items() if l < level), default=0)
    return (below, sizes[level] / 2)


# The classic chase; records written before other orders existed have no "order" param.
RANDOM = {"order": "random"}


def curve_at_level(benchmark: str, metric: str, level: Optional[int], x: str = "bytes",
                   like: Optional[Dict[str, Any]] = None, **params: Any) -> Callable[[Run], Optional[Cell]]:
    """The point of a size sweep that sits in one cache level (the largest such working set) or
    in main memory (the largest one of all). `like`: params a record must have, or lack."""
    def get(run: Run) -> Optional[Cell]:
        win = _level_window(run, level)
        if win is None:
            return None
        lo, hi = win
        recs = [r for r in select(run.get("records") or [], benchmark, metric, **params)
                if isinstance((r.get("params") or {}).get(x), (int, float)) and lo < r["params"][x] <= hi
                and all(r["params"].get(k, v) == v for k, v in (like or {}).items())]
        if not recs:
            return None
        # Fewest threads first (a single core's view, as the EV7 table gives), then the largest set.
        rec = max(recs, key=lambda r: (-(r["params"].get("threads") or 1), r["params"][x]))
        nt = rec["params"].get("threads")
        extra = f", {nt} thread{'s' if nt != 1 else ''}" if nt is not None else ""
        return Cell(value(rec), f"{x} = {size_label(rec['params'][x])}{extra}", rec)
    return get


def _stream(threads: str) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        triad = {t: r for (k, t), r in stream_points(run.get("records") or []).items() if k == "triad"}
        ints = [t for t in triad if isinstance(t, int)]
        if not ints:
            return None
        t = 1 if threads == "one" else max(ints)
        if t not in triad or (threads == "all" and t == 1 and len(ints) == 1 and (_fp(run).get("cores") or 1) > 1):
            return None
        caches = data_caches(_fp(run))
        arrays = (triad[t].get("params") or {}).get("array_bytes")
        if caches and isinstance(arrays, (int, float)) and arrays < 2 * caches[-1]["size_bytes"]:
            return None                  # arrays that fit in the caches do not measure memory
        return Cell(value(triad[t]), f"triad, {t} thread{'s' if t != 1 else ''}", triad[t])
    return get


def pair_placement(run: Run, rec: Record) -> Optional[str]:
    """'intra' or 'inter' node for a two-rank record (params ranks 'a-b'), from the hosts its
    benchmark's launches ran on; None when it cannot be told."""
    m = re.fullmatch(r"(\d+)-(\d+)", str((rec.get("params") or {}).get("ranks", "0-1")))
    if not m:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    seen = set()
    for l in run.get("launches") or []:
        hosts = (l.get("meta") or {}).get("hosts") or []
        if l.get("benchmark") == rec.get("benchmark") and len(hosts) > max(a, b):
            seen.add("intra" if hosts[a] == hosts[b] else "inter")
    return seen.pop() if len(seen) == 1 else None


# The plateau of a bandwidth curve: the sizes within this factor of the largest measured.
PLATEAU_SPAN = 8


def plateau(recs: List[Record]) -> Optional[Cell]:
    """The median of the bandwidths over the plateau (the top three octaves of sizes), the
    undisturbed converged points when there are any: robust to one lucky or disturbed size,
    unlike the single highest point. The record shown is the point at that median."""
    top = max(r["params"]["bytes"] for r in recs)
    span = [r for r in recs if r["params"]["bytes"] * PLATEAU_SPAN >= top]
    good = [r for r in span if clean(r)] or span
    good.sort(key=value)
    rec = good[(len(good) - 1) // 2]
    lo = min(r["params"]["bytes"] for r in good)
    where = (f"median over the plateau, {size_label(lo)} – {size_label(top)} "
             f"({len(good)} size{'s' if len(good) != 1 else ''})")
    return Cell(value(rec), where, rec)


def _where(rec: Record) -> Dict[str, Any]:
    """Where a record's ranks ran, as the runner tagged it (hpceval/runner/placement.py)."""
    return rec.get("where") or (rec.get("extra") or {}).get("where") or {}


def placement_of(run: Run, rec: Record) -> Optional[str]:
    """'intra' or 'inter' node for a two-rank record: from the hosts of its pair when the record
    names them, else from the hosts of its benchmark's launches."""
    hosts = _where(rec).get("pair_hosts") or []
    if len(hosts) == 2:
        return "intra" if hosts[0] == hosts[1] else "inter"
    return pair_placement(run, rec) if rec.get("benchmark") == "pingpong" else None


# p2p modes that measure one direction and both directions at once (swap: both send at once).
_MODES = {("uni", "latency"): ("pingpong",), ("uni", "bandwidth"): ("pingpong", "stream"),
          ("bi", "latency"): ("swap",), ("bi", "bandwidth"): ("bistream", "swap")}


def _pair_records(run: Run, where: str, metric: str, direction: str) -> List[Record]:
    """Two-rank records at `where`: ping-pong's own first (one direction), else p2p's 0-1 / 0-k
    pairs in the direction's modes."""
    def fits(r: Record) -> bool:
        return (isinstance((r.get("params") or {}).get("bytes"), (int, float))
                and r["params"]["bytes"] > 0 and placement_of(run, r) == where)
    recs = run.get("records") or []
    own = [r for r in select(recs, "pingpong", metric) if fits(r)] if direction == "uni" else []
    return own or [r for r in select(recs, "p2p", metric) if fits(r)
                   and (r.get("params") or {}).get("mode") in _MODES[(direction, metric)]]


def mpi_point(where: str, metric: str, size: Optional[int],
              direction: str = "uni") -> Callable[[Run], Optional[Cell]]:
    """A two-rank exchange at `size` bytes (nearest size present, best protocol), or the median
    over the bandwidth plateau (size None); uni- or bi-directional."""
    def get(run: Run) -> Optional[Cell]:
        recs = _pair_records(run, where, metric, direction)
        if not recs:
            return None
        best = max if recs[0].get("better") == "higher" else min
        mode = lambda r: f", {r['params']['mode']}" if r.get("benchmark") == "p2p" else ""
        if size is None:
            return plateau(recs)
        near = min(abs(r["params"]["bytes"] - size) for r in recs)
        rec = best((r for r in recs if abs(r["params"]["bytes"] - size) == near), key=value)
        return Cell(value(rec), f"{size_label(rec['params']['bytes'])} messages{mode(rec)}", rec)
    return get


def _matching(pred: Callable[[Record], bool], better: str = "lower") -> Callable[[Run], Optional[Cell]]:
    """The best record that `pred` accepts (e.g. any barrier benchmark an area adds)."""
    def get(run: Run) -> Optional[Cell]:
        recs = [r for r in run.get("records") or [] if isinstance(r.get("stats"), dict)
                and value(r) is not None and pred(r)]
        if not recs:
            return None
        rec = (min if better == "lower" else max)(recs, key=value)
        pts = ", ".join(f"{k}={v}" for k, v in (rec.get("params") or {}).items())
        return Cell(value(rec), f"{rec['benchmark']}" + (f" ({pts})" if pts else ""), rec)
    return get


def _barrier(run: Run, across: bool = False) -> Optional[Cell]:
    """Barrier time (slowest rank) at the most ranks measured without oversubscription; an
    oversubscribed count only when nothing else was measured, and then it says so. `across`:
    only launches whose ranks ran on more than one node."""
    recs = [r for r in select(run.get("records") or [], "collectives", "latency", op="barrier")
            if not across or len(_where(r).get("nodes") or []) > 1]
    if not recs:
        return None
    fair = [r for r in recs if not oversubscribed(run, r)] or recs
    rec = max(fair, key=lambda r: ((r.get("params") or {}).get("nranks") or 0, -value(r)))
    n = (rec.get("params") or {}).get("nranks")
    over = oversubscribed(run, rec)
    point = f"{n} ranks, slowest rank" if n else "slowest rank"
    return Cell(value(rec), point, rec, f"oversubscribed: {over}" if over else "")


def kernel_rate(benchmark: str) -> Callable[[Run], Optional[Cell]]:
    """A kernel's best rate (any unit ending in flop/s) over the configurations measured."""
    return _matching(lambda r: r.get("benchmark") == benchmark and r.get("better") == "higher"
                     and bool(re.search(r"flop/s$", str(r.get("unit") or ""), re.I)), "higher")


def app_rate(benchmark: str) -> Callable[[Run], Optional[Cell]]:
    """An application proxy's simulated days per day: the best configuration on the largest
    global grid measured."""
    def get(run: Run) -> Optional[Cell]:
        recs = on_largest_grid(run.get("records") or [], benchmark, "sim_days_per_day")
        if not recs:
            return None
        rec = max(recs, key=value)
        p = rec["params"]
        point = (f"{p.get('nx')}x{p.get('ny')} grid, {p.get('P', 1) * p.get('Q', 1)} ranks "
                 f"({p.get('P')}x{p.get('Q')}), halo {p.get('halo')}, sum {p.get('sum')}")
        return Cell(value(rec), point, rec)
    return get


# ---------------------------------------------------------------- the rows (EV7 Table 5.1 order)

for _row in (
    CardRow("System", "CPU", "", _fp_value("cpu_model"), NOT_RECORDED),
    CardRow("System", "Clock", "MHz", _clock, NOT_RECORDED),
    CardRow("System", "Sockets", "", _fp_value("sockets"), NOT_RECORDED),
    CardRow("System", "Cores (node size)", "", _fp_value("cores"), NOT_RECORDED),
    CardRow("System", "Hardware threads", "", _fp_value("threads"), NOT_RECORDED),
    CardRow("System", "NUMA nodes", "", _fp_value("numa_nodes"), NOT_RECORDED),
    CardRow("System", "L1 data cache", "", _cache_size(1), NOT_RECORDED),
    CardRow("System", "L2 cache", "", _cache_size(2), NOT_RECORDED),
    CardRow("System", "L3 cache", "", _cache_size(3), NOT_RECORDED),
    CardRow("Memory latency", "L1", "ns", curve_at_level("mem-latency", "latency", 1, like=RANDOM)),
    CardRow("Memory latency", "L2", "ns", curve_at_level("mem-latency", "latency", 2, like=RANDOM)),
    CardRow("Memory latency", "L3", "ns", curve_at_level("mem-latency", "latency", 3, like=RANDOM)),
    CardRow("Memory latency", "Main memory, fully random (TLB misses included)", "ns",
            curve_at_level("mem-latency", "latency", None, like=RANDOM)),
    CardRow("Memory latency", "Main memory, TLB-friendly (random in 256 KiB windows)", "ns",
            curve_at_level("mem-latency", "latency", None, like={"order": "window"})),
    CardRow("Memory bandwidth", "L1", "GB/s", curve_at_level("mem-bandwidth", "bandwidth", 1, mode="read")),
    CardRow("Memory bandwidth", "L2", "GB/s", curve_at_level("mem-bandwidth", "bandwidth", 2, mode="read")),
    CardRow("Memory bandwidth", "L3", "GB/s", curve_at_level("mem-bandwidth", "bandwidth", 3, mode="read")),
    CardRow("Memory bandwidth", "Main memory, 1 core (STREAM)", "GB/s", _stream("one")),
    CardRow("Memory bandwidth", "Main memory, all cores (STREAM)", "GB/s", _stream("all")),
    CardRow("MPI intra-node", "Latency", "us", mpi_point("intra", "latency", 8)),
    CardRow("MPI intra-node", "Latency, bi-directional", "us",
            mpi_point("intra", "latency", 8, "bi")),
    CardRow("MPI intra-node", "Bandwidth", "MB/s", mpi_point("intra", "bandwidth", None)),
    CardRow("MPI intra-node", "Bandwidth, bi-directional", "MB/s",
            mpi_point("intra", "bandwidth", None, "bi")),
    CardRow("MPI inter-node", "Latency", "us", mpi_point("inter", "latency", 8)),
    CardRow("MPI inter-node", "Latency, bi-directional", "us",
            mpi_point("inter", "latency", 8, "bi")),
    CardRow("MPI inter-node", "Bandwidth", "MB/s", mpi_point("inter", "bandwidth", None)),
    CardRow("MPI inter-node", "Bandwidth, bi-directional", "MB/s",
            mpi_point("inter", "bandwidth", None, "bi")),
    CardRow("Collectives", "Barrier", "us", _barrier),
    CardRow("Collectives", "Barrier across nodes", "us", lambda run: _barrier(run, True)),
    CardRow("Kernels", "Column physics", "", kernel_rate("column")),
    CardRow("Kernels", "Shallow water model (serial)", "", kernel_rate("sst")),
    CardRow("Kernels", "Shallow water model (parallel)", "", kernel_rate("psst")),
    CardRow("Application rates", "Ocean barotropic solver (POP-like)", "days/day",
            app_rate("barotropic")),
):
    register_card_row(_row)


def machine_card(run: Run) -> List[Dict[str, Any]]:
    """[{section, quantity, value, unit, point, record, measured}] in CARD_ROWS order, sections
    kept together."""
    order: List[str] = list(dict.fromkeys(r.section for r in CARD_ROWS))
    rows = []
    for section in order:
        for spec in (r for r in CARD_ROWS if r.section == section):
            try:
                cell = spec.get(run)
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                cell = None                      # a malformed record must not sink the card
            rec = cell.record if cell else None
            unit = spec.unit or (rec.get("unit") if rec else "") or ""
            rows.append({"section": section, "quantity": spec.quantity,
                         "value": cell.value if cell else None, "unit": unit,
                         "point": cell.point if cell else "", "record": rec,
                         "missing": spec.missing, "measured": cell is not None,
                         "warning": cell.warning if cell else ""})
    return rows
