"""Hand-made runs with barotropic records and a trace, shaped as the export format
(docs/export.md, docs/records.md, docs/trace.md): known answers for the report's proxy and
trace sections, shared by the report and browser tests."""
import math

VARIANTS = [("datatype", "allreduce", 0), ("pack", "allreduce", 0), ("pack", "tree", 2),
            ("put", "onesided", 0)]
GRIDS = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 1)]


def stats(v):
    return {"n": 30, "min": v * 0.97, "median": v, "mean": v * 1.01, "max": v * 1.1,
            "stddev": v * 0.02, "ci_low": v * 0.985, "ci_high": v * 1.02}


def record(params, metric, v, unit, better, extra=None):
    r = {"benchmark": "barotropic", "params": params, "metric": metric, "unit": unit,
         "statistic": "median", "better": better, "converged": True, "stats": stats(v)}
    if extra is not None:
        r["extra"] = extra
    return r


def solver_model(P, Q, vi, nx=96, ny=64, serial=400.0):
    """Per-rank phases of a synchronised solver (us/iter): compute splits the serial time with
    a 5% imbalance per rank index, ranks wait for the slowest inside the halo update."""
    p = P * Q
    comp = [serial / p * (1 + 0.05 * r) * (1 + 0.02 * (p > 1)) for r in range(p)]
    copy = [0.0 if p == 1 else 6.0 + vi] * p
    work = [c + k for c, k in zip(comp, copy)]
    halo = [(0.0 if p == 1 else 8.0 + 3 * vi) + max(work) - w for w in work]
    gsum = [1.0 + 4.0 * math.log2(p) * (1 + 0.3 * vi)] * p
    wall = [w + h + g for w, h, g in zip(work, halo, gsum)]
    return {"phases": {"compute": {"kind": "compute", "per_rank": comp},
                       "halo": {"kind": "comm", "per_rank": halo},
                       "copy": {"kind": "copy", "per_rank": copy},
                       "global_sum": {"kind": "comm", "per_rank": gsum}},
            "wall_per_rank": wall, "flops_per_rank": [1.0e6 / p * 1.01 ** (p > 1)] * p,
            "serial_flops": 1.0e6, "ocean_points_per_rank": [nx * ny // p] * p,
            "iterations": 140, "max_rel_diff_vs_direct": 3e-13 if p == 1 else None,
            "max_rel_diff_vs_first_variant": 1e-14 * vi, "relative_residual": 8e-13,
            "dt_s": 3600.0}, max(wall)


def baro_records():
    out = []
    for vi, (halo, s, br) in enumerate(VARIANTS):
        for scaling, grids in (("strong", GRIDS), ("weak", [(1, 1), (2, 1), (2, 2)])):
            for P, Q in grids:
                nx, ny = (96, 64) if scaling == "strong" else (48 * P, 32 * Q)
                params = {"nx": nx, "ny": ny, "P": P, "Q": Q, "halo": halo, "sum": s,
                          "branch": br, "land": "continents", "scaling": scaling}
                # weak scaling: the same 400 us of work per rank
                extra, t = solver_model(P, Q, vi, nx, ny,
                                        400.0 * (P * Q if scaling == "weak" else 1))
                t *= 1.0 + 0.1 * (P < Q)   # the 1x2 grid is the slower aspect ratio
                out.append(record(params, "iteration_time", t, "us", "lower", extra))
                # one solve of 140 iterations per 3600 s model step: model s per wall s
                days_per_day = 3600.0 / (140 * t * 1e-6)
                out.append(record(params, "sim_days_per_day", days_per_day, "days/day", "higher"))
    return out


def trace(nranks=4, iterations=60, step=100.0):
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "baro"}}]
    ev += [{"ph": "M", "name": "thread_name", "pid": 0, "tid": r, "args": {"name": f"rank {r}"}}
           for r in range(nranks)]
    for it in range(iterations):
        t = it * step
        for r in range(nranks):
            c = 60.0 + 5 * r
            ev += [
                {"ph": "X", "cat": "phase", "name": "compute", "pid": 0, "tid": r, "ts": t,
                 "dur": c},
                {"ph": "X", "cat": "phase", "name": "halo", "pid": 0, "tid": r, "ts": t + c,
                 "dur": 85.0 - c},
                {"ph": "X", "cat": "mpi", "name": "MPI_Isend", "pid": 0, "tid": r, "ts": t + c,
                 "dur": 2.0, "args": {"state": "overhead", "bytes": 800, "peer": (r + 1) % nranks}},
                {"ph": "X", "cat": "mpi", "name": "MPI_Waitall", "pid": 0, "tid": r,
                 "ts": t + c + 2, "dur": 83.0 - c, "args": {"state": "idle"}},
                {"ph": "X", "cat": "phase", "name": "global_sum", "pid": 0, "tid": r, "ts": t + 85,
                 "dur": 15.0},
                {"ph": "X", "cat": "mpi", "name": "MPI_Allreduce", "pid": 0, "tid": r,
                 "ts": t + 86, "dur": 13.0, "args": {"state": "overhead", "bytes": 8}},
            ]
    n = len(ev) - 1 - nranks
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"hpceval_trace_version": 1, "nranks": nranks, "command": "baro",
                          "hosts": ["n001"] * nranks, "clock": "CLOCK_MONOTONIC aligned to rank 0",
                          "clock_offset_us": [0.0] * nranks, "event_cost_ns": [150.0] * nranks,
                          "events": [n // nranks] * nranks, "dropped_events": [0] * nranks,
                          "t0_unix": 1.8e9}}


def make_run(rid=7, with_baro=True, with_traces=True, n_traces=1, iterations=60):
    return {
        "export_version": 1, "id": rid, "uuid": f"uuid-{rid}", "suite": "proxies",
        "started": "2026-11-22T01:00:00+00:00", "finished": "2026-11-22T01:05:00+00:00",
        "status": "ok", "tags": ["proxies"],
        "fingerprint": {"hash": "cd" * 32, "hostname": "n001", "arch": "x86_64", "cores": 2,
                        "threads": 2, "sockets": 1, "caches": [],
                        "mpi": {"launcher": "mpirun", "flavour": "openmpi",
                                "version": "Open MPI 4.1.4"}},
        "launches": [{"benchmark": "barotropic", "command": "mpirun -np 4 hpceval-barotropic",
                      "status": "ok", "exit_code": 0, "elapsed_s": 3.0, "message": None,
                      "meta": {"hosts": ["n001"], "nranks": 4}}],
        "records": baro_records() if with_baro else [],
        "traces": [{"benchmark": "barotropic", "label": f"barotropic np=4 #{i + 1}",
                    "trace": trace(iterations=iterations)} for i in range(n_traces)]
                  if with_traces else [],
    }
