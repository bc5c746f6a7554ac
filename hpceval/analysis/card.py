"""The machine card: a run's headline characteristics in one table, as Table 5.1 of the EV7
paper lays them out (system, memory hierarchy, MPI inside and across nodes, collectives,
kernels). Table-driven: CARD_ROWS holds one entry per row, each a function of the run that
returns a value or None ("not measured"). The System rows (from the fingerprint) are here; each
area or benchmark registers its own in its views (hpceval/views/rows_<name>.py, loaded by the
CLI and the report), with the helpers of its analysis module (hpceval/analysis/memory.py,
comm.py, kernels.py, proxies.py). Rows are kept in `order`: System 0, memory 10, communication 20, kernels 30,
application proxies 40, new areas 50 by default (EV7 Table 5.1's order).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, NamedTuple, Optional

from hpceval.analysis.headlines import size_label, value
from hpceval.discover import DEFAULT_ORDER, place

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
    order: int = DEFAULT_ORDER       # where the row goes among the areas' (see above)


CARD_ROWS: List[CardRow] = []


def register_card_row(row: CardRow) -> CardRow:
    """Add a row; kept in `order` (registration order among equals); rows of one section are
    shown together."""
    return place(CARD_ROWS, row)



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


def best_matching(pred: Callable[[Record], bool], better: str = "lower") -> Callable[[Run], Optional[Cell]]:
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


def _twin(run: Run) -> Optional[Cell]:
    """A simulated run's twin source (hpceval/simulate/twin.py): the run and machine it was
    calibrated from, or the spec sheet."""
    from hpceval.simulate.mark import twin_source
    said = twin_source(run)
    return Cell(said.removeprefix("; twin of "), "simulated") if said else None


# ---------------------------------------------------------------- the System rows (from the fingerprint)

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
    CardRow("System", "Twin of", "", _twin, "not a twin"),
):
    register_card_row(_row._replace(order=0))


def machine_card(run: Run) -> List[Dict[str, Any]]:
    """[{section, quantity, value, unit, point, record, measured}] in CARD_ROWS order, sections
    kept together (the rows registered so far: hpceval.views.load_rows() registers every
    benchmark's)."""
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
