"""A twin's values from a stored run's records (`hpceval twin RUN`, docs/simulate.md "Twins").

- **Network**: SMPI's piecewise model (smpi/lat-factor, smpi/bw-factor) through the measured
  ping-pong curve. A segment ends at every size the run measured (those are where it found the
  curve's breakpoints: between two sizes nothing was measured) and is the line through its two
  end points, so the twin's ping-pong passes through every measured point; a segment whose line
  would need a negative latency (the curve bends up: a cache's edge) keeps latency 0 and meets
  its upper point. The links' latency is the first segment's intercept and their bandwidth the
  last segment's slope; the factors are each segment's against them. Inter-node pairs set the
  factors and the links; intra-node pairs then set the loopback link (least squares on relative
  error, the same factors); a run on one node sets both from its intra-node pairs, and says so.
- **Eager limit**: the `eager` benchmark's bracketed protocol step (hpceval/analysis/eager.py).
- **Core speed**: the first kernel of KERNELS the run measured (one rank, its flops counted).
- **Collectives**: the run's MPI's selection where SMPI has it (SELECTORS).
- **Both-ways exchange**: p2p's swap less the one-way time, charged on MPI_Isend (`exchange`)."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpceval.errors import UsageError
from hpceval.simulate.platform import Description
from hpceval.simulate.twin import Note, Twin

Point = Tuple[int, float, dict]          # bytes, one-way us, the record
FROM_RUN = "calibrated_from"             # a merged run's record: the uuid of the run it is from
Segment = Tuple[int, float, float]       # first byte it applies to, latency us, us per byte
SMPI_KEY_OFFSET = 16   # SimGrid 3.32 applies a factor keyed K to sizes over K - 16 (session.py)

# kernel benchmark -> (metric, flop/s per unit, why its rate stands for a core's)
KERNELS: Dict[str, Tuple[str, float, str]] = {
    "column": ("mflops", 1e6, "column physics counts its flops, runs on one core, in cache, "
               "with sqrt/exp/divide: a code's rate, not a peak"),
    "sst": ("mflops", 1e6, "the shallow water model on one core counts its flops: a "
            "whole code's rate"),
}


def _median(rec: dict) -> Optional[float]:
    v = (rec.get("stats") or {}).get("median")
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def _point(run: dict, rec: dict, what: str = "") -> str:
    p = rec.get("params") or {}
    shown = " ".join(f"{k}={v}" for k, v in sorted(p.items()))
    return (f"run {rec.get(FROM_RUN) or run.get('uuid')} {rec.get('benchmark')} "
            f"{rec.get('metric')} {shown} "
            f"(median {_median(rec):.6g} {rec.get('unit')}){what}")


def pingpong_curves(run: dict) -> Dict[str, List[Point]]:
    """Per placement ('intra', 'inter'): the ping-pong's one-way times, sorted by size."""
    from hpceval.analysis.comm import placement_of
    from hpceval.analysis.headlines import select
    out: Dict[str, List[Point]] = {}
    for rec in select(run.get("records") or [], "pingpong", "latency"):
        b, t = (rec.get("params") or {}).get("bytes"), _median(rec)
        where = placement_of(run, rec)
        if isinstance(b, int) and b > 0 and t is not None and where:
            out.setdefault(where, []).append((b, t, rec))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in out.items() if len(v) >= 2}


def wire(n: int) -> int:
    """The bytes SMPI transfers for an n-byte message: n + 16 (SimGrid 3.32; an ideal 1 us,
    100 MB/s link gives 1.17 us at 1 B, 2.17 at 100 B, 11.2 at 1,000). A segment's line is in
    these bytes, or a steep small-size segment (a low bandwidth factor) is 16 bytes off: a
    twin's 7 B ping-pong came out 0.68 us against its run's 0.49."""
    return n + SMPI_KEY_OFFSET


def segments(points: List[Point]) -> List[Segment]:
    """The line of each stretch between two measured sizes (see the module's doc), in the bytes
    SMPI transfers (`wire`)."""
    out: List[Segment] = []
    for (n0, t0, _), (n1, t1, _) in zip(points, points[1:]):
        slope = (t1 - t0) / (n1 - n0)
        lat = t0 - wire(n0) * slope
        if slope <= 0:                   # no growth between two sizes: noise; keep 1% of t1
            slope = 0.01 * t1 / wire(n1)
            lat = t1 - wire(n1) * slope
        if lat < 0:
            lat, slope = 0.0, t1 / wire(n1)
        out.append((1 if not out else n0 + 1, lat, slope))
    return out


def at(segs: List[Segment], n: int) -> Segment:
    return [s for s in segs if s[0] <= n][-1] if n >= segs[0][0] else segs[0]


def factors(segs: List[Segment]) -> Tuple[float, float, str, str]:
    """(latency us, bandwidth MB/s, smpi/lat-factor, smpi/bw-factor) of the segments. The links'
    latency is the first segment's above 0: a first segment that bends up (a noisy 1 B point
    under load) keeps latency 0, and its factor is then 0, not a division by it."""
    lat = next((s[1] for s in segs if s[1] > 0), segs[0][1]) or 1e-3
    slope = segs[-1][2]
    keys = [0 if i == 0 else s[0] - 1 + SMPI_KEY_OFFSET for i, s in enumerate(segs)]
    lf = ";".join(f"{k}:{s[1] / lat:.6g}" for k, s in zip(keys, segs))
    bf = ";".join(f"{k}:{slope / s[2]:.6g}" for k, s in zip(keys, segs))
    return lat, 1.0 / slope, lf, bf


def loopback(points: List[Point], segs: List[Segment], lat: float, bw: float) -> Tuple[float, float]:
    """Intra-node latency (us) and bandwidth (MB/s) that, under the inter-node factors, come
    nearest the intra-node points (least squares on relative error)."""
    import numpy as np
    from scipy.optimize import nnls
    rows = [(at(segs, n)[1] / lat, wire(n) * at(segs, n)[2] * bw, t) for n, t, _ in points]
    A = np.array([[a / t, b / t] for a, b, t in rows])
    (x, y), _ = nnls(A, np.ones(len(rows)))
    return max(x, 1e-3), 1.0 / max(y, 1e-9)


def _need(what: Any, run: dict, benchmark: str, why: str) -> Any:
    if not what:
        raise UsageError(f"run {run.get('uuid')} has no {benchmark} records to calibrate {why} "
                         f"from: run 'hpceval run {benchmark}' first")
    return what


def eager_limit(run: dict) -> Tuple[int, str]:
    """The eager limit (bytes) and where it came from: inter-node when measured, else intra."""
    from hpceval.analysis.eager import late_receive_times, eager_limit as limit
    curves = _need(late_receive_times(run), run, "eager", "the eager limit")
    for where in ("inter-node", "intra-node", "unknown"):
        found = limit(run, where)
        if found:
            s, rec = found
            return int(s.n_after), _point(run, rec, f", {where}: the step {s.n_before} -> "
                                          f"{s.n_after} B")
    where, pts = next(iter(curves.items()))
    b, _, rec = pts[-1]
    return int(b) + 1, _point(run, rec, f", {where}: no protocol step up to the largest size, "
                              "so every size measured is eager")


def core_speed(run: dict) -> Tuple[float, str]:
    """flop/s of one core from the first kernel of KERNELS the run measured: the record of the
    median rate among its points."""
    from hpceval.analysis.headlines import select
    for name, (metric, scale, why) in KERNELS.items():
        recs = sorted((r for r in select(run.get("records") or [], name, metric)
                       if _median(r)), key=_median)
        if recs:
            rec = recs[len(recs) // 2]
            return _median(rec) * scale, _point(run, rec, f"; {name}: {why}")
    return _need(None, run, next(iter(KERNELS)), "the core speed")


def _curve_notes(run: dict, where: str, points: List[Point], segs: List[Segment]) -> List[Note]:
    return [Note(f"{where}-node ping-pong segment from {s[0]} B", f"{s[1]:.6g} us + "
                 f"{s[2] * 1e3:.6g} ns/B", f"through {_point(run, lo[2])} and {_point(run, hi[2])}")
            for s, lo, hi in zip(segs, points, points[1:])]


def network(run: dict) -> Tuple[Dict[str, float], Dict[str, str], List[Note]]:
    """Description fields, SMPI config and notes of the network."""
    curves = _need(pingpong_curves(run), run, "pingpong", "the network (two sizes at least)")
    main = "inter" if "inter" in curves else "intra"
    segs = segments(curves[main])
    lat, bw, lf, bf = factors(segs)
    fields = {"latency": lat * 1e-6, "bandwidth": bw * 1e6,
              "intra_latency": lat * 1e-6, "intra_bandwidth": bw * 1e6}
    notes = _curve_notes(run, main, curves[main], segs)
    if main == "inter" and "intra" in curves:
        il, ib = loopback(curves["intra"], segs, lat, bw)
        fields.update(intra_latency=il * 1e-6, intra_bandwidth=ib * 1e6)
        notes.append(Note("intra-node loopback", f"{il:.6g} us, {ib:.6g} MB/s", "least squares "
                          f"over {len(curves['intra'])} intra-node ping-pong points of run "
                          f"{run.get('uuid')}, under the inter-node factors"))
    elif main == "intra":
        notes.append(Note("inter-node links", "the intra-node figures", f"run {run.get('uuid')} "
                          "ran on one node: run pingpong across two nodes (--hosts A,B --ppn 1) "
                          "to calibrate them"))
    notes.append(Note(f"links: latency, bandwidth ({main}-node)", f"{lat:.6g} us, {bw:.6g} "
                      "MB/s", "the first segment's latency above 0, the last segment's "
                      "bandwidth"))
    return fields, {"smpi/lat-factor": lf, "smpi/bw-factor": bf}, notes


# SimGrid's network/crosstraffic (on by default): each flow also loads its reverse route with 5%
# of its bytes, so two flows opposite on one split-duplex link each get 1/1.05 of it (a twin's
# 1 MiB swap on 1,000 MB/s links: 1,105 us against a ping-pong's 1,050; tests/simulate/
# test_twin.py). A node's loopback is a fat pipe: no flow there slows another.
CROSSTRAFFIC = 0.05


def swap_curve(run: dict, where: str) -> List[Point]:
    """p2p's simultaneous exchange (mode swap, MPI_Sendrecv, a pair) at `where`, by size."""
    from hpceval.analysis.comm import placement_of
    from hpceval.analysis.headlines import select
    out: List[Point] = []
    for rec in select(run.get("records") or [], "p2p", "latency"):
        p = rec.get("params") or {}
        b, t = p.get("bytes"), _median(rec)
        if ((p.get("mode"), p.get("protocol")) == ("swap", "sendrecv") and isinstance(b, int)
                and b > 0 and t is not None and placement_of(run, rec) == where):
            out.append((b, t, rec))
    return sorted(out, key=lambda p: p[0])


def exchange(run: dict) -> Tuple[Optional[str], List[Note]]:
    """smpi/ois: what a simultaneous exchange costs beyond one way, per size. SMPI's links are
    full duplex at no cost, so a twin prices a 2-rank exchange (and an allreduce or alltoall
    step) as one ping-pong trip; a real MPI takes more (Open MPI's 8 B allreduce 1.5 trips on
    the virtual cluster). SMPI charges smpi/ois on every MPI_Isend (its collectives and
    MPI_Sendrecv use them) and nothing on MPI_Send, so the ping-pong stays as fitted. The
    extra is the measured swap less the twin's own exchange without it (one way; across
    nodes its bytes' time 5% longer: CROSSTRAFFIC); one setting for
    every pair (SMPI's config has no per-link overhead), from the pairs the network was
    fitted on. None when the run has no swap (the note says what to run)."""
    curves = pingpong_curves(run)
    main = "inter" if "inter" in curves else "intra"
    pts = swap_curve(run, main) if curves else []
    if not pts:
        return None, [Note("both-ways exchange overhead (smpi/ois, not set)", "not measured",
                           f"run {run.get('uuid')} has no {main}-node p2p swap: run 'hpceval "
                           "run p2p --set p2p.modes=swap --set p2p.protocols=sendrecv' to "
                           "charge it (a twin prices an exchange as one ping-pong trip)")]
    segs = segments(curves[main])
    cross = 1 + (CROSSTRAFFIC if main == "inter" else 0.0)
    one_way = [at(segs, n)[1] + cross * wire(n) * at(segs, n)[2] for n, _, _ in pts]
    extra = [(n, max(0.0, t - w), rec) for (n, t, rec), w in zip(pts, one_way)]
    sections = [(0, extra[0][1], 0.0)]      # up to the first size: its own overhead
    for (n0, d0, _), (n1, d1, _) in zip(extra, extra[1:]):
        slope = (d1 - d0) / (n1 - n0)
        sections.append((n0, d0 - n0 * slope, slope))
    if sections[-1][2] < 0:                 # past the last size: no falling extrapolation
        sections.append((extra[-1][0], extra[-1][1], 0.0))
    ois = ";".join(f"{k}:{a * 1e-6:.9g}:{b * 1e-6:.9g}" for k, a, b in sections)
    notes = [Note(f"both-ways exchange overhead (smpi/ois) at {n} B", f"{d:.6g} us",
                  f"{_point(run, rec)} less the twin's own {main}-node exchange {w:.6g} us")
             for (n, d, rec), w in zip(extra, one_way)]
    return ois, notes


def _loggp_note(run: dict) -> List[Note]:
    from hpceval.analysis.headlines import select
    recs = [r for r in select(run.get("records") or [], "loggp", "L") if _median(r)]
    return [Note("LogGP L (cross-check, not set: SMPI's os/or apply to detached sends only; "
                 "the latency factor carries the whole one-way time)",
                 f"{_median(recs[0]):.6g} us", _point(run, recs[0]))] if recs else []


# A twin charges every computation burst from 100 ns up (smpi/cpu-threshold; hpceval's default
# for described platforms, 10 us, leaves the harness's bookkeeping out). A proxy's iteration is
# many short bursts between messages: with 10 us a twin of a 2-node Open MPI run on the
# virtual cluster gave barotropic (96x64, 2 ranks) 20 us an iteration against 42-46 us
# measured on the real nodes; 1 us: 32; 100 ns: 48 (benchmarks/twin_validate.py, docs/simulate.md).
CPU_THRESHOLD = "1e-7"


def _threshold_note() -> Note:
    return Note("computation charged from (smpi/cpu-threshold)", f"{CPU_THRESHOLD} s",
                "a code's iteration is many short bursts between messages: a twin charges "
                "them all but the shortest (described platforms: 1e-5 s)")


# The measured MPI's collective selection where SMPI has it (smpi/coll-selector): the algorithm
# per size and rank count that library picks, so a twin's allreduce is its MPI's, not SMPI's
# default (a reduce then a bcast: 12.0 us for 8 B at 16 ranks where MPICH's takes 9.0, Open
# MPI's 13.5; docs/simulate.md).
SELECTORS = {"openmpi": "ompi", "mpich": "mpich"}


def selector(run: dict) -> Tuple[Optional[str], str]:
    """(smpi/coll-selector, where it came from); None for an MPI SMPI has no selector of (then
    hpceval's default, MPICH's, stays and the note says so)."""
    mpi = (run.get("fingerprint") or {}).get("mpi") or {}
    chosen = SELECTORS.get(str(mpi.get("flavour")))
    ran = mpi.get("version") or mpi.get("flavour") or "an MPI not recorded"
    what = f"run {run.get('uuid')} ran {ran}"
    return chosen, what + ("" if chosen else ": SMPI has no selector of it; MPICH's kept")


def _memory_note(run: dict) -> List[Note]:
    """The node's STREAM triad on the most threads, stated, not set: a SimGrid host has a speed
    and no memory. A twin's computation runs on this host, so a memory-bound kernel is charged
    what this host's memory gives it: right for a twin of this machine, and for another the
    reason its memory-bound rates are this host's."""
    from hpceval.analysis.memory import stream_triad
    cell = stream_triad("all")(run) or stream_triad("one")(run)
    if cell is None:
        return [Note("node memory bandwidth (not modelled: SimGrid has no memory)", "not measured",
                     f"run {run.get('uuid')} has no STREAM triad ('hpceval run stream')")]
    return [Note("node memory bandwidth (stated, not set: SimGrid has no memory; computation "
                 "runs on this host, at this host's memory bandwidth)",
                 f"{cell.value:.6g} MB/s, {cell.point}", _point(run, cell.record))]


def from_run(run: dict, topology: str = "flat", shape: Optional[str] = None) -> Twin:
    """The twin of a stored run (export form): its nodes, as many as it ran on (2 at least)."""
    from hpceval.simulate.session import eager_cfg
    fields, config, notes = network(run)
    eager, eager_src = eager_limit(run)
    flops, flops_src = core_speed(run)
    fp = run.get("fingerprint") or {}
    nodes = max(2, len({h for l in run.get("launches") or []
                        for h in ((l.get("meta") or {}).get("hosts") or [])}))
    desc = Description(nodes=nodes, ppn=int(fp.get("cores") or 1), topology=topology,
                       flops=flops, memory=float(fp.get("memory_bytes") or 16 << 30),
                       model="smpi", eager=eager, shape=shape, **fields)
    if shape is not None:
        from hpceval.simulate.topology import unit
        unit(desc, "twin --shape")
    config.update((c.split("=", 1)[1].split(":", 1) for c in eager_cfg(eager)))
    config["smpi/host-speed"] = f"{flops:.6g}f"
    config["smpi/cpu-threshold"] = CPU_THRESHOLD
    ois, ois_notes = exchange(run)
    if ois:
        config["smpi/ois"] = ois
    coll, coll_src = selector(run)
    if coll:
        config["smpi/coll-selector"] = coll
    notes += [Note("eager limit (smpi/async-small-thresh, send-is-detached-thresh)",
                   f"{eager} B", eager_src),
              Note("core speed (cluster speed; smpi/host-speed the same: computation this host "
                   "runs is charged at its own duration, right when the simulator runs on the "
                   "machine measured)", f"{flops:.6g} flop/s", flops_src),
              Note("collectives' algorithms (smpi/coll-selector)", coll or "mpich", coll_src),
              *ois_notes, _threshold_note(), *_memory_note(run), *_loggp_note(run)]
    source = {"run": run.get("uuid"), "machine": fp.get("hash"), "host": fp.get("hostname")}
    return Twin(desc, config, source, notes)



def _key(run: dict, rec: dict) -> Tuple[Any, ...]:
    from hpceval.analysis.comm import placement_of
    return (rec.get("benchmark"), rec.get("metric"), json.dumps(rec.get("params"), sort_keys=True),
            placement_of(run, rec))


def median_run(runs: Sequence[dict]) -> dict:
    """Several runs of one machine as one: every point's record is the one of median value
    among the runs that measured it (the lower of the middle two), so each value a twin takes
    is still a measured record, named with its own run. One run moves 27-34% between two
    runs minutes apart on this VM (docs/simulate.md): a twin is as good as what it is fitted to."""
    machines = {(r.get("fingerprint") or {}).get("hash") for r in runs}
    if len(machines) > 1:
        raise UsageError("twin: the runs are of different machines (fingerprints "
                         f"{', '.join(sorted(str(m)[:12] for m in machines))}): a twin is "
                         "calibrated from runs of one machine")
    pools: Dict[Tuple[Any, ...], List[dict]] = {}
    for run in runs:
        for rec in select_all(run):
            pools.setdefault(_key(run, rec), []).append({**rec, FROM_RUN: run.get("uuid")})
    records = [sorted(recs, key=lambda r: _median(r) or 0.0)[(len(recs) - 1) // 2]
               for recs in pools.values()]
    merged = dict(runs[0])
    merged["records"] = records
    merged["launches"] = [l for r in runs for l in r.get("launches") or []]
    merged["uuid"] = ", ".join(str(r.get("uuid")) for r in runs)
    return merged


def select_all(run: dict) -> List[dict]:
    """Every point of a run once (a re-measured point as its best measurement)."""
    from hpceval.analysis.headlines import select
    kinds = dict.fromkeys((r.get("benchmark"), r.get("metric")) for r in run.get("records") or [])
    return [rec for b, m in kinds for rec in select(run.get("records") or [], b, m)]


def from_runs(runs: Sequence[dict], topology: str = "flat", shape: Optional[str] = None) -> Twin:
    """The twin of one run, or of several of one machine (median_run)."""
    return from_run(runs[0] if len(runs) == 1 else median_run(runs), topology, shape)


# A spec sheet's figures a twin cannot do without, and how to read the core speed from it.
SPEC_NEEDS = ("nodes", "cores_per_node", "network_latency_us", "network_bandwidth_mbs")


def _spec_flops(spec: Dict[str, Any], path: str) -> Tuple[float, str]:
    if "peak_gflops_per_node" in spec:
        return (spec["peak_gflops_per_node"] * 1e9 / spec["cores_per_node"],
                "peak_gflops_per_node / cores_per_node")
    if "clock_mhz" in spec and "flops_per_cycle" in spec:
        return spec["clock_mhz"] * 1e6 * spec["flops_per_cycle"], "clock_mhz x flops_per_cycle"
    raise UsageError(f"spec {path}: a twin needs peak_gflops_per_node, or clock_mhz and "
                     "flops_per_cycle, for the core speed")


def from_spec(path: str) -> Twin:
    """The twin of a spec sheet (hpceval/specsheet.py's keys plus `topology`): the nominal
    figures taken as they are (SMPI's factors 1: a sheet states no curve)."""
    from hpceval import specsheet
    from hpceval.simulate.session import eager_cfg
    from hpceval.simulate.topology import TOPOLOGIES
    doc = specsheet.read(path)
    topology = doc.pop("topology", "flat") if isinstance(doc, dict) else "flat"
    shape = doc.pop("topology_shape", None) if isinstance(doc, dict) else None
    if topology not in TOPOLOGIES:
        raise UsageError(f"spec {path}: topology = {topology!r}: expected one of "
                         f"{', '.join(TOPOLOGIES)}")
    spec = specsheet.check(doc, path)
    missing = [k for k in SPEC_NEEDS if k not in spec]
    if missing:
        raise UsageError(f"spec {path}: a twin needs {missing[0]} (and {', '.join(SPEC_NEEDS)})")
    flops, how = _spec_flops(spec, path)
    lat, bw = spec["network_latency_us"] * 1e-6, spec["network_bandwidth_mbs"] * 1e6
    desc = Description(nodes=spec["nodes"], ppn=spec["cores_per_node"], latency=lat,
                       bandwidth=bw, topology=topology, flops=flops, model="smpi",
                       shape=None if shape is None else str(shape))
    if shape is not None:
        from hpceval.simulate.topology import unit
        unit(desc, f"spec {path} topology_shape")
    config = {"smpi/lat-factor": "0:1", "smpi/bw-factor": "0:1",
              "smpi/cpu-threshold": CPU_THRESHOLD,
              **dict(c.split("=", 1)[1].split(":", 1) for c in eager_cfg(desc.eager))}
    src = f"spec sheet {path}"
    notes = [Note("latency", f"{lat * 1e6:.6g} us", f"{src} network_latency_us"),
             Note("bandwidth", f"{bw / 1e6:.6g} MB/s", f"{src} network_bandwidth_mbs"),
             Note("core speed", f"{flops:.6g} flop/s", f"{src} {how} (a peak: a code gets less)"),
             Note("intra-node link", f"{desc.intra_latency * 1e6:.6g} us, "
                  f"{desc.intra_bandwidth / 1e6:.6g} MB/s", "not on the sheet: hpceval's default"),
             Note("eager limit", f"{desc.eager} B", "not on the sheet: hpceval's default"),
             _threshold_note(),
             Note("topology", topology + (f", shape {shape}" if shape is not None else ""),
                  f"{src} topology" + (" and topology_shape: its unit fixed, the outermost "
                                       "dimension grown with --nodes" if shape is not None else
                                       "; its dimensions grow with --nodes")
                  + " (hpceval/simulate/topology.py)")]
    return Twin(desc, config, {"spec": path, "name": spec.get("name")}, notes)
