"""The memory-hierarchy benchmarks: load latency, bandwidth per access mode, contention, STREAM.

Sweeps follow the seeds (EV7 paper section 2, p690 talk): working sets from 1 KiB (4 KiB for the
latency) to at least 4x the last-level cache; the bandwidth sweep has 4 points per octave so
that the detector (hpceval.analysis.hierarchy) can place each cache's edge within a factor 2."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (check_memory, counts, default_bytes, harness_bytes,
                                    launch_timeout, narrow_sizes, narrow_whole, pow2_sizes,
                                    repetition_args, spec_arg, words)
from hpceval.catalog.numa import beyond_local_sizes, check_home, numa_nodes
from hpceval.catalog.options import choices, options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

BW_MODES = choices("mem-bandwidth", "modes")


def log_sizes(lo: int, hi: int, per_octave: int = 4, align: int = 64) -> List[int]:
    """lo .. hi (both included), per_octave points per doubling, multiples of `align`."""
    sizes, k = [], 0
    while True:
        s = int(round(lo * 2 ** (k / per_octave) / align)) * align
        if s > hi:
            break
        sizes.append(max(s, align))
        k += 1
    if sizes[-1] != hi and hi > sizes[-1]:
        sizes.append(hi)
    return sorted(set(sizes))


def _check_cpu(cpu: int, ctx: PlanContext) -> None:
    if cpu >= ctx.cores:
        raise UsageError(f"--set cpu={cpu}: this machine has CPUs 0..{ctx.cores - 1}")


def thread_counts(text: str, cores: int) -> List[int]:
    """'1,max' -> [1, cores]; 'sweep' -> 1, 2, 4, ... and cores."""
    return counts(text, cores, "threads", "thread count", sweep=True)


def _pinned_env(threads: int, bind: str = "close") -> Dict[str, str]:
    # Unpinned runs on the 2-core test machine were bimodal: OpenMP pins, MPI binds nothing.
    return {"OMP_NUM_THREADS": str(threads), "OMP_PROC_BIND": bind, "OMP_PLACES": "cores"}


# ---------------------------------------------------------------- mem-latency

def _plan_mem_latency(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    top = default_bytes(max(256 << 20, 4 * ctx.llc_bytes), ctx)
    sizes = v["sizes"] or pow2_sizes(4 << 10, top, midpoints=True)
    check_memory(max(sizes), ctx, "mem-latency working set")
    _check_cpu(v["cpu"], ctx)
    check_home(v["node"])
    nodes = numa_nodes()
    specs = []
    rep = repetition_args(b, v)
    common = b.param("stride").to_arg(v["stride"]) + ["--loads", str(v["loads"])]
    common += ["--window", str(v["window"] or 256 << 10)]
    orders = v["order"]
    for order in orders:
        for pages in v["pages"]:
            args = (b.param("sizes").to_arg(sizes) + common + ["--order", order, "--pages", pages,
                    "--cpu", str(v["cpu"]), "--node", str(v["node"])] + rep)
            specs.append(LaunchSpec(b.name, f"mem-latency {order} {pages}", "mem-latency", args,
                                    1, "core", expected_results=len(sizes),
                                    timeout_s=launch_timeout(v, len(sizes))))
    if v["window"] and "random" in orders and "window" not in orders:
        # Main memory's two latencies side by side: fully random (TLB misses included, as
        # lat_mem_rd -t) and TLB-friendly windows (as multichase), at the largest set.
        args = (b.param("sizes").to_arg([max(sizes)]) + common + ["--order", "window", "--pages",
                v["pages"][0], "--cpu", str(v["cpu"]), "--node",
                str(v["node"])] + rep)
        specs.append(LaunchSpec(b.name, "mem-latency window", "mem-latency", args, 1, "core",
                                expected_results=1, timeout_s=launch_timeout(v, 1)))
    if v["homes"] == "each":
        # EV7 Fig. 2.1: the curve with the memory on each home in turn, from one CPU; one
        # point per octave of the default sweep (its powers of two and the largest set).
        cpu = str(max(v["cpu"], 0))
        per_home = sizes if v["sizes"] else [s for s in sizes
                                             if s & (s - 1) == 0 or s == max(sizes)]
        for node in range(nodes):
            args = (b.param("sizes").to_arg(per_home) + common + ["--order", "random", "--pages",
                    "base", "--cpu", cpu, "--node", str(node)] + rep)
            specs.append(LaunchSpec(b.name, f"mem-latency cpu={cpu} home={node}", "mem-latency",
                                    args, 1, "none", expected_results=len(per_home),
                                    timeout_s=launch_timeout(v, len(per_home))))
    if v["matrix"] == "yes":
        # The EV7 core x memory-home matrix: main-memory latency for every (CPU, node) pair.
        big = [max(sizes)]
        for cpu in range(ctx.cores):
            for node in range(nodes):
                args = (b.param("sizes").to_arg(big) + common + ["--order", "random", "--pages",
                        "base", "--cpu", str(cpu), "--node", str(node)] + rep)
                specs.append(LaunchSpec(b.name, f"mem-latency cpu={cpu} node={node}",
                                        "mem-latency", args, 1, "none", expected_results=1,
                                        timeout_s=launch_timeout(v, 1)))
    return specs


def _window_check(v: Dict[str, Any]) -> None:
    if 0 < v["window"] < 64:
        raise UsageError(f"--set window: {v['window']} is less than a cache line (64; 0: not "
                         "measured)")


def _sizes_memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """A launch's largest working set (per thread, --sizes) times its threads."""
    sizes = [int(x) for x in (spec_arg(spec, "--sizes") or "0").split(",")]
    return int(spec_arg(spec, "--threads") or 1) * max(sizes) + harness_bytes(v)


register_benchmark(Benchmark(
    "mem-latency", "memory",
    "dependent loads one cache line apart (random cycle or linear): ns per load vs working set; "
    "page size, core and NUMA home as parameters",
    # the plan draws the default sizes from the cache (4K..max(256M, 4x LLC)) and sweeps a
    # list of orders and page kinds, a launch each
    options("mem-latency", "sizes stride order pages cpu node loads window",
            sizes=dict(default=[]), order=dict(kind="words", more="comma-separated for several"),
            pages=dict(kind="words", more="comma-separated for several"),
            # 0: not measured (never passed; the binary's least is a cache line)
            window=dict(min=0))
    + (Param("matrix", "choice", "no", "also the core x NUMA-node latency matrix at the largest "
             "size", choices=("no", "yes")),
       Param("homes", "choice", "no", "also the whole sweep from CPU `cpu` (0 when -1) with the "
             "memory on each NUMA home in turn (random order, base pages)",
             choices=("no", "each"))),
    _plan_mem_latency, narrow=narrow_sizes, sized_by_llc=True, memory=_sizes_memory,
    check=_window_check,
    tiny=("sizes=16K,1M",),
    # simulated: its chases run on this host, rank after rank
    sim_per_result_s={"": 0.7},
    headline="ns per load (median)"))


# ---------------------------------------------------------------- mem-bandwidth

def _plan_mem_bandwidth(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    # Up to three arrays per thread (copy, triad), one set per thread.
    top = default_bytes(4 * ctx.llc_bytes, ctx, 3 * max(thread_counts(v["threads"], ctx.cores)))
    sizes = v["sizes"] or log_sizes(1 << 10, top, v["per-octave"])
    modes = v["modes"]
    _check_cpu(v["cpu"], ctx)
    check_home(v["node"])
    specs = []
    for t in thread_counts(v["threads"], ctx.cores):
        check_memory(t * max(sizes), ctx, f"mem-bandwidth working set ({t} threads)")
        for pages in v["pages"]:
            args = (b.param("sizes").to_arg(sizes) + ["--modes", ",".join(modes), "--threads",
                    str(t), "--pages", pages, "--node", str(v["node"])] + repetition_args(b, v))
            env = {}
            if t == 1:
                args += ["--cpu", str(max(v["cpu"], 0))]  # one thread: pinned to a core
            else:
                env = _pinned_env(t, v["bind"])
            points = len(sizes) * len(modes)
            specs.append(LaunchSpec(b.name, f"mem-bandwidth threads={t} {pages}", "mem-bandwidth",
                                    args, 1, "none", env, expected_results=points,
                                    timeout_s=launch_timeout(v, points)))
    return specs + _home_launches(b, v, ctx, sizes)


def _home_launches(b: Benchmark, v: Dict[str, Any], ctx: PlanContext,
                   sizes: List[int]) -> List[LaunchSpec]:
    """One thread on CPU `cpu` reading: the sweep with the memory on each home in turn
    (homes=each), and arrays around the size of the CPU's home's memory, placed by first touch,
    so that the largest spills to another home (beyond-local=yes; EV7 Fig. 2.6)."""
    runs = []
    if v["homes"] == "each":
        runs += [(f"home={n}", sizes, str(n)) for n in range(numa_nodes())]
    if v["beyond-local"] == "yes":
        big = beyond_local_sizes(v["cpu"])
        check_memory(max(big), ctx, "mem-bandwidth array beyond the local memory")
        runs.append(("beyond local memory", big, "-1"))
    specs = []
    for what, sz, node in runs:
        args = (b.param("sizes").to_arg(sz) + ["--modes", "read", "--threads", "1", "--pages",
                "thp", "--cpu", str(v["cpu"]), "--node", node] + repetition_args(b, v))
        # Touching a set larger than a home's memory takes a while: 1 s per GB on top.
        specs.append(LaunchSpec(b.name, f"mem-bandwidth cpu={v['cpu']} {what}", "mem-bandwidth",
                                args, 1, "none", expected_results=len(sz),
                                timeout_s=launch_timeout(v, len(sz)) + 3 * max(sz) / 1e9))
    return specs


register_benchmark(Benchmark(
    "mem-bandwidth", "memory",
    "bandwidth vs working set (1 KiB..4x LLC, 4 points per octave) for read, write, rmw, memset, "
    "memcpy, copy, triad and non-temporal stores; GB/s of application bytes",
    # the plan draws the default sizes from the cache (1K..4x LLC, per-octave points), sweeps
    # thread counts and page kinds, and pins one thread to CPU 0 (the binary alone: unpinned)
    options("mem-bandwidth", "sizes modes threads cpu pages node", sizes=dict(default=[]),
            modes=dict(default=list(BW_MODES)),
            threads=dict(kind="str", default="1", more="comma list: 'max' = all cores, "
                         "'sweep' = 1, 2, 4 .. all"),
            cpu=dict(default=0, min=0), pages=dict(kind="words", more="comma-separated"))
    + (Param("per-octave", "int", 4, "points per doubling of the default sweep", 1, 16),
       Param("bind", "choice", "close", "OMP_PROC_BIND policy with several threads",
             choices=("close", "spread")),
       Param("homes", "choice", "no", "also the read sweep from CPU `cpu` with the memory on "
             "each NUMA home in turn", choices=("no", "each")),
       Param("beyond-local", "choice", "no", "also read arrays of 0.5, 0.9 and 1.2x the memory "
             "of `cpu`'s home, first touch (EV7 Fig. 2.6; needs two homes or more)",
             choices=("no", "yes"))),
    _plan_mem_bandwidth, sized_by_llc=True, memory=_sizes_memory,
    tiny=("sizes=16K", "modes=read,triad"),
    headline="GB/s of application bytes (max)"))


# ---------------------------------------------------------------- mem-contention

def _plan_mem_contention(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    threads = ctx.cores if v["threads"] == 0 else v["threads"]
    ws = v["bytes"] or default_bytes(4 * ctx.llc_bytes, ctx, 3 * ctx.cores)
    check_memory(threads * ws + (v["latency-bytes"] or ws), ctx, "mem-contention working sets")
    if v["stream-mode"] not in BW_MODES:
        raise UsageError(f"--set stream-mode: '{v['stream-mode']}' is not one of {', '.join(BW_MODES)}")
    args = ["--bytes", str(ws), "--latency-bytes", str(v["latency-bytes"]), "--threads",
            str(threads), "--stream-mode", v["stream-mode"], "--experiments",
            v["experiments"]] + repetition_args(b, v)
    points = 2 * threads + 2
    return [LaunchSpec(b.name, f"mem-contention threads={threads}", "mem-contention", args, 1,
                       "none", _pinned_env(threads, v["bind"]), expected_results=points,
                       timeout_s=launch_timeout(v, points))]


def _contention_memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """Every streaming core's set and the chase's (0: as large)."""
    ws, lat = int(spec_arg(spec, "--bytes")), int(spec_arg(spec, "--latency-bytes"))
    return int(spec_arg(spec, "--threads")) * ws + (lat or ws) + harness_bytes(v)


register_benchmark(Benchmark(
    "mem-contention", "memory",
    "one core's read bandwidth and latency while k = 0..n-1 other cores stream; the stream "
    "kernel on 1 core vs all cores (per-core rate)",
    options("mem-contention", "bytes latency-bytes threads stream-mode experiments")
    + (Param("bind", "choice", "close", "OMP_PROC_BIND policy", choices=("close", "spread")),),
    _plan_mem_contention, sized_by_llc=True, memory=_contention_memory,
    tiny=("bytes=4M", "latency-bytes=64K"),
    headline="GB/s, ns, degradation ratio"))


# ---------------------------------------------------------------- STREAM

def _plan_stream(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    # STREAM's rule: each array at least 4x the last-level cache (and 10M elements at least).
    n = v["n"] or max(default_bytes(4 * ctx.llc_bytes, ctx, 3) // 8, 10_000_000)
    check_memory(3 * 8 * n, ctx, "stream arrays")
    specs = []
    for bind in v["bind"]:
        for t in thread_counts(v["threads"], ctx.cores):
            args = ["--n", str(n), "--threads", str(t)] + repetition_args(b, v)
            specs.append(LaunchSpec(b.name, f"stream threads={t} {bind}", "stream", args, 1,
                                    "none", _pinned_env(t, bind), expected_results=4,
                                    timeout_s=launch_timeout(v, 4)))
    return specs


# Values grow 15x per repetition of the four kernels: the binary keeps at most 200 samples and
# 50 warm-ups (csrc/mem/stream.c), its own defaults 100 and 1.
register_benchmark(Benchmark(
    "stream", "memory",
    "STREAM copy/scale/add/triad with OpenMP threads, arrays >= 4x the last-level cache",
    options("stream", "n threads", threads=dict(
        kind="str", default="1,max", more="a comma list: 'max' = all cores, 'sweep' = 1, 2, 4 "
        ".. all"))
    + (Param("bind", "words", "close", "OMP_PROC_BIND policies, comma-separated: close, spread",
             choices=("close", "spread")),),
    _plan_stream, narrow=narrow_whole, sized_by_llc=True,
    memory=lambda spec, v: 3 * 8 * int(spec_arg(spec, "--n")) + harness_bytes(v),
    tiny=("n=200000",),
    headline="GB/s (1e9 B/s) counted as STREAM counts (copy/scale 16 B, add/triad 24 B per "
             "element), best (max) and median"))


# The study: the node's memory hierarchy once (it does not grow with the allocation).
register_study("mem-latency", budget=0.1, homes="each")
register_study("mem-bandwidth", budget=0.04, min_reps=5, warmup=1, homes="each")
register_study("stream", threads="sweep", bind="close", budget=1, max_reps=20)
