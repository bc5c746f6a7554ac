"""The machine's peaks, and promised against delivered (issue #28): what a core and a node can do
at most, derived from the fingerprint (the vector unit of the instruction set x the nominal
clock, hpceval/cpupeak.py) and promised by a spec sheet (hpceval/specsheet.py, the run's
settings "spec"), beside what the run measured: % of peak of the dense solve and of the compute
kernels, % of the promised memory bandwidth (STREAM), network latency and bandwidth, and the
machine balance (bytes per flop, the X1 study's lens). A pure function of a run (export
format); what cannot be known says "unknown" and why, never a guess."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional

from hpceval import cpupeak
from hpceval.analysis.card import Cell
from hpceval.analysis.headlines import value

Run = Dict[str, Any]
SECTION = "Peaks: promised against delivered"
ORDER = 36                   # after the dense solve's rows (35)
UNKNOWN = "unknown"


class Peak(NamedTuple):
    gflops: Optional[float]  # per core; None: unknown
    how: str                 # the derivation, or why it is unknown


def spec_of(run: Run) -> Dict[str, Any]:
    return (run.get("settings") or {}).get("spec") or {}


def _fp(run: Run) -> Dict[str, Any]:
    return run.get("fingerprint") or {}


def derived_core_peak(run: Run) -> Peak:
    """Doubles per vector x 2 (FMA) x PIPES_BOUND pipes x the nominal clock: a bound (how many
    FMA pipes a core has is not readable), or unknown with the reason."""
    fp = _fp(run)
    unit = cpupeak.vector_unit(fp.get("cpu_isa") or [], fp.get("sve_bytes"))
    if unit is None:
        return Peak(None, "no double-precision vector unit among the CPU flags recorded")
    per_pipe = cpupeak.flops_per_cycle_per_pipe(unit)
    mhz = fp.get("nominal_mhz")
    if not isinstance(mhz, (int, float)) or mhz <= 0:
        return Peak(None, str(fp.get("nominal_mhz_source") or "no nominal clock recorded"))
    pipes = cpupeak.PIPES_BOUND
    return Peak(mhz * 1e-3 * per_pipe * pipes,
                f"at most: {unit.name}, {per_pipe} flops/cycle a pipe x {pipes} pipes (one-pipe "
                f"parts: half) x {mhz:.0f} MHz nominal ({fp.get('nominal_mhz_source')})")


def promised_core_peak(run: Run) -> Peak:
    """The spec sheet's peak per core: its node peak / its cores (else the fingerprint's), or
    its clock x flops per cycle."""
    spec = spec_of(run)
    cores = spec.get("cores_per_node") or _fp(run).get("cores")
    if spec.get("peak_gflops_per_node") and cores:
        return Peak(spec["peak_gflops_per_node"] / cores,
                    f"spec sheet: {spec['peak_gflops_per_node']:g} GFlop/s a node / {cores} cores")
    if spec.get("clock_mhz") and spec.get("flops_per_cycle"):
        return Peak(spec["clock_mhz"] * 1e-3 * spec["flops_per_cycle"],
                    f"spec sheet: {spec['flops_per_cycle']:g} flops/cycle x "
                    f"{spec['clock_mhz']:g} MHz")
    return Peak(None, "no spec sheet (hpceval spec FILE, or --spec FILE)")


def _peak_cell(peak: Callable[[Run], Peak], per_node: bool) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        if "cpu_isa" not in _fp(run):
            return None                  # a fingerprint from before the peak's facts
        p = peak(run)
        if p.gflops is None:
            return Cell(UNKNOWN, p.how)
        cores = (spec_of(run).get("cores_per_node") if peak is promised_core_peak else None) \
            or _fp(run).get("cores") or 1
        return Cell(p.gflops * cores, f"{p.how} x {cores} cores") if per_node else Cell(p.gflops, p.how)
    return get


def _vector_unit(run: Run) -> Optional[Cell]:
    fp = _fp(run)
    if "cpu_isa" not in fp:
        return None
    unit = cpupeak.vector_unit(fp.get("cpu_isa") or [], fp.get("sve_bytes"))
    if unit is None:
        return Cell(UNKNOWN, "no double-precision vector unit among the CPU flags")
    return Cell(unit.name, f"{cpupeak.flops_per_cycle_per_pipe(unit)} flops/cycle a pipe; "
                f"flags {', '.join(fp['cpu_isa'])}")


def ranks_of(rec: Dict[str, Any]) -> int:
    p = rec.get("params") or {}
    n = p.get("ranks") or p.get("copies") or p.get("threads") or 1
    return n if isinstance(n, int) and n > 0 else 1


def gflops_of(rec: Dict[str, Any]) -> Optional[float]:
    """A flop rate record's median in GFlop/s (MFlop/s and GFlop/s units)."""
    v, unit = value(rec), str(rec.get("unit") or "").lower()
    scale = {"gflop/s": 1.0, "mflop/s": 1e-3}.get(unit)
    return v * scale if v is not None and scale else None


def percent_of_peak(best: Callable[[Run], Optional[Cell]], peak: Callable[[Run], Peak]
                    ) -> Callable[[Run], Optional[Cell]]:
    """A rate record's median / (the core peak x the cores it ran on), in %."""
    def get(run: Run) -> Optional[Cell]:
        cell = best(run)
        rate = gflops_of(cell.record) if cell and cell.record else None
        if rate is None:
            return None
        p = peak(run)
        if p.gflops is None:
            return Cell(UNKNOWN, p.how)
        n = ranks_of(cell.record)
        bound = " (at least: the peak is a bound)" if p.how.startswith("at most") else ""
        return Cell(100.0 * rate / (p.gflops * n), f"{rate:.3g} GFlop/s on {n} core(s) of "
                    f"{p.gflops:.3g} GFlop/s{bound}; {cell.point}", cell.record)
    return get


def versus_spec(measured: Callable[[Run], Optional[Cell]], key: str, higher: bool,
                unit: str) -> Callable[[Run], Optional[Cell]]:
    """Delivered as % of promised: measured / promised (higher is better: bandwidth) or promised
    / measured (latency); None without the figure or the measurement."""
    def get(run: Run) -> Optional[Cell]:
        promised = spec_of(run).get(key)
        cell = measured(run)
        if not promised or cell is None or not isinstance(cell.value, (int, float)) \
                or cell.value <= 0:
            return None
        pct = 100.0 * (cell.value / promised if higher else promised / cell.value)
        return Cell(pct, f"{cell.value:.3g} {unit} measured, {promised:g} {unit} promised; "
                    f"{cell.point}", cell.record)
    return get


def balance(bandwidth: Callable[[Run], Optional[Cell]], rate: Callable[[Run], Optional[Cell]]
            ) -> Callable[[Run], Optional[Cell]]:
    """Bytes per flop of one node: STREAM's all-core GB/s over the dense solve's GFlop/s."""
    def get(run: Run) -> Optional[Cell]:
        bw, fl = bandwidth(run), rate(run)
        if not bw or not fl or not isinstance(bw.value, (int, float)) or not fl.value:
            return None
        return Cell(bw.value / fl.value, f"{bw.value:.3g} GB/s / {fl.value:.3g} GFlop/s")
    return get


def promised_balance(run: Run) -> Optional[Cell]:
    spec = spec_of(run)
    bw, peak = spec.get("memory_bandwidth_gbs_per_node"), spec.get("peak_gflops_per_node")
    return Cell(bw / peak, f"{bw:g} GB/s / {peak:g} GFlop/s, spec sheet") if bw and peak else None


def spec_figure(key: str) -> Callable[[Run], Optional[Cell]]:
    def get(run: Run) -> Optional[Cell]:
        v = spec_of(run).get(key)
        return Cell(v, spec_of(run).get("name") or "spec sheet") if v is not None else None
    return get


def card_rows(dense_best: Callable[[Run], Optional[Cell]],
              one_node_dense: Callable[[Run], Optional[Cell]]) -> List[Any]:
    """The section's rows; dense_best: the best dense solve; one_node_dense: the best on at most
    one node's cores (the machine balance's flops)."""
    from hpceval.analysis.card import CardRow
    from hpceval.analysis.comm import mpi_point
    from hpceval.analysis.kernels import kernel_rate
    from hpceval.analysis.memory import stream_triad
    stream = stream_triad("all")
    inter_lat, inter_bw = mpi_point("inter", "latency", 8), mpi_point("inter", "bandwidth", None)
    rows = [("Vector unit (instruction set)", "", _vector_unit),
            ("Peak per core, derived (ISA x nominal clock)", "GFlop/s",
             _peak_cell(derived_core_peak, False)),
            ("Peak per node, derived", "GFlop/s", _peak_cell(derived_core_peak, True)),
            ("Peak per node, spec sheet", "GFlop/s", spec_figure("peak_gflops_per_node")),
            ("Dense solve, % of derived peak", "%", percent_of_peak(dense_best, derived_core_peak)),
            ("Dense solve, % of spec-sheet peak", "%",
             percent_of_peak(dense_best, promised_core_peak))]
    for bench in ("column", "sst"):
        rows.append((f"{bench} MFlop/s, % of derived peak", "%",
                     percent_of_peak(kernel_rate(bench), derived_core_peak)))
    rows += [("Memory bandwidth (STREAM, all cores), % of spec", "%",
              versus_spec(stream, "memory_bandwidth_gbs_per_node", True, "GB/s")),
             ("MPI inter-node latency, promised / delivered", "%",
              versus_spec(inter_lat, "network_latency_us", False, "us")),
             ("MPI inter-node bandwidth, % of promised", "%",
              versus_spec(inter_bw, "network_bandwidth_mbs", True, "MB/s")),
             ("Machine balance, delivered (STREAM bytes per dense flop)", "B/flop",
              balance(stream, one_node_dense)),
             ("Machine balance, promised (spec sheet)", "B/flop", promised_balance)]
    return [CardRow(SECTION, q, u, get, order=ORDER) for q, u, get in rows]
