"""The benchmarks of the walking skeleton: ping-pong, memory load latency, STREAM."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import REPETITION, launch_timeout, pow2_sizes, repetition_args
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark
from hpceval.errors import UsageError

PINGPONG_SIZES = sorted(set([0] + pow2_sizes(1, 4 << 20) + [3, 7, 1000, 65537, 1000000]))


def _plan_pingpong(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nranks = ctx.nranks or 2
    if nranks < 2:
        raise UsageError(f"pingpong needs at least 2 ranks, --np {nranks} given")
    sizes = v["sizes"]
    args = b.param("sizes").to_arg(sizes) + repetition_args(b, v)
    results = 2 * len(sizes) - (1 if 0 in sizes else 0)
    return [LaunchSpec(b.name, f"pingpong np={nranks}", "pingpong", args, nranks, "core",
                       expected_results=results, timeout_s=launch_timeout(v, len(sizes)))]


def _check_memory(need: int, ctx: PlanContext, what: str) -> None:
    # Refuse before launching: a working set beyond memory would swap or be OOM-killed.
    if ctx.mem_available_bytes and need > 0.8 * ctx.mem_available_bytes:
        raise UsageError(f"{what} needs {need / 2**30:.1f} GiB but only "
                         f"{ctx.mem_available_bytes / 2**30:.1f} GiB of memory is available")


def _plan_mem_latency(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    sizes = v["sizes"] or pow2_sizes(4 << 10, max(256 << 20, 4 * ctx.llc_bytes), midpoints=True)
    _check_memory(max(sizes), ctx, "mem-latency working set")
    if v["cpu"] >= ctx.cores:
        raise UsageError(f"--set cpu={v['cpu']}: this machine has CPUs 0..{ctx.cores - 1}")
    args = (b.param("sizes").to_arg(sizes) + b.param("stride").to_arg(v["stride"])
            + b.param("cpu").to_arg(v["cpu"]) + repetition_args(b, v))
    return [LaunchSpec(b.name, "mem-latency", "mem-latency", args, 1, "core",
                       expected_results=len(sizes), timeout_s=launch_timeout(v, len(sizes)))]


def _thread_counts(text: str, cores: int) -> List[int]:
    counts: List[int] = []
    for item in str(text).split(","):
        item = item.strip()
        if item in ("max", "all"):
            counts.append(cores)
        else:
            try:
                n = int(item)
            except ValueError:
                raise UsageError(f"--set threads: '{item}' is not a thread count or 'max'") from None
            if not 1 <= n <= 4096:
                raise UsageError(f"--set threads: {n} is out of range [1, 4096]")
            counts.append(n)
    return sorted(set(counts))


def _plan_stream(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    # STREAM's rule: each array at least 4x the last-level cache (and 10M elements at least).
    n = v["n"] or max(4 * ctx.llc_bytes // 8, 10_000_000)
    _check_memory(3 * 8 * n, ctx, "stream arrays")
    specs = []
    for t in _thread_counts(v["threads"], ctx.cores):
        args = ["--n", str(n), "--threads", str(t)] + repetition_args(b, v)
        env = {"OMP_NUM_THREADS": str(t), "OMP_PROC_BIND": v["bind"], "OMP_PLACES": "cores"}
        specs.append(LaunchSpec(b.name, f"stream threads={t}", "stream", args, 1, "none", env,
                                expected_results=4, timeout_s=launch_timeout(v, 4)))
    return specs


register_benchmark(Benchmark(
    "pingpong", "communication",
    "MPI_Send/MPI_Recv ping-pong between ranks 0 and 1: latency (half round trip) and bandwidth",
    (Param("sizes", "sizes", PINGPONG_SIZES, "message sizes in bytes", 0, 1 << 30),) + REPETITION,
    _plan_pingpong, ranks=">=2 (--np, default 2)"))

register_benchmark(Benchmark(
    "mem-latency", "memory",
    "dependent loads over a random cycle one cache line apart: ns per load vs working set",
    (Param("sizes", "sizes", [], "working sets in bytes (default 4K..max(256M, 4x LLC))", 256, 1 << 40),
     Param("stride", "size", 64, "bytes between pointers (a cache line)", 8, 1 << 20),
     Param("cpu", "int", -1, "CPU to pin to (-1: the launcher's binding)", -1, 1 << 20),
     ) + REPETITION,
    _plan_mem_latency))

register_benchmark(Benchmark(
    "stream", "memory",
    "STREAM copy/scale/add/triad with OpenMP threads, arrays >= 4x the last-level cache",
    (Param("n", "int", 0, "elements per array (0: 4x LLC, at least 10M)", 0, 1 << 40),
     Param("threads", "str", "1,max", "OpenMP thread counts, comma-separated ('max' = all cores)"),
     Param("bind", "choice", "close", "OMP_PROC_BIND policy", choices=("close", "spread")),
     ) + REPETITION,
    _plan_stream))
