"""Planning the memory benchmarks and the `memory` suite: sweeps, launches, refusals."""
import math

import pytest

from hpceval.catalog import SUITES, PlanContext, plan_targets
from hpceval.catalog import numa
from hpceval.catalog.bench_memory import log_sizes, numa_nodes, thread_counts
from hpceval.catalog.numa import beyond_local_sizes
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_bandwidth_sweep_covers_1k_to_4x_llc_at_4_points_per_octave():
    [spec] = plan_targets(["mem-bandwidth"], [], CTX)
    sizes = [int(s) for s in arg(spec, "--sizes").split(",")]
    assert sizes[0] == 1024 and sizes[-1] >= 4 * CTX.llc_bytes
    octaves = math.log2(sizes[-1] / sizes[0])
    assert len(sizes) >= 4 * octaves
    assert all(b / a <= 2 ** 0.3 for a, b in zip(sizes, sizes[1:]))     # no gap > 1/4 octave
    assert all(s % 64 == 0 for s in sizes)
    assert arg(spec, "--cpu") == "0" and spec.bind == "none"           # one thread: pinned
    assert "triad-nt" in arg(spec, "--modes")


def test_bandwidth_threads_are_pinned_by_openmp():
    specs = plan_targets(["mem-bandwidth"], ["threads=1,max", "bind=spread", "pages=base,thp"], CTX)
    assert [(arg(s, "--threads"), arg(s, "--pages")) for s in specs] == [
        ("1", "base"), ("1", "thp"), ("2", "base"), ("2", "thp")]
    two = specs[2]
    assert "--cpu" not in two.args
    assert two.env == {"OMP_NUM_THREADS": "2", "OMP_PROC_BIND": "spread", "OMP_PLACES": "cores"}


def test_latency_orders_pages_and_matrix():
    specs = plan_targets(["mem-latency"], ["order=random,linear", "pages=base,huge", "matrix=yes",
                                           "sizes=4K,1M"], CTX)
    curves = [s for s in specs if arg(s, "--cpu") == "-1"]
    assert [(arg(s, "--order"), arg(s, "--pages")) for s in curves] == [
        ("random", "base"), ("random", "huge"), ("linear", "base"), ("linear", "huge"),
        ("window", "base")]
    # the TLB-friendly flavour at the largest set only, beside the fully random sweep
    assert arg(curves[-1], "--sizes") == "1048576" and arg(curves[-1], "--window") == "262144"
    matrix = [s for s in specs if arg(s, "--cpu") != "-1"]
    assert len(matrix) == CTX.cores * numa_nodes()
    assert {(arg(s, "--cpu"), arg(s, "--node")) for s in matrix} == {
        (str(c), str(n)) for c in range(CTX.cores) for n in range(numa_nodes())}
    assert all(arg(s, "--sizes") == "1048576" for s in matrix)


def test_stream_thread_sweep_and_binding_policies():
    specs = plan_targets(["stream"], ["threads=sweep", "bind=close,spread"],
                         PlanContext(cores=6, llc_bytes=32 << 20, mem_available_bytes=16 << 30))
    assert [(s.env["OMP_PROC_BIND"], s.env["OMP_NUM_THREADS"]) for s in specs] == [
        (b, t) for b in ("close", "spread") for t in ("1", "2", "4", "6")]
    assert thread_counts("1,max", 4) == [1, 4]


def test_contention_uses_every_core_pinned():
    [spec] = plan_targets(["mem-contention"], [], CTX)
    assert arg(spec, "--threads") == "2" and int(arg(spec, "--bytes")) == 4 * CTX.llc_bytes
    assert spec.env["OMP_PROC_BIND"] == "close" and spec.expected_results == 6


def test_memory_suite_plans_every_memory_benchmark():
    specs = plan_targets(["memory"], [], CTX)
    assert {s.benchmark for s in specs} == {"mem-latency", "mem-bandwidth", "mem-contention",
                                            "stream"}
    assert [e[0] for e in SUITES["memory"].entries] == ["mem-latency", "mem-bandwidth",
                                                        "mem-contention", "stream"]


@pytest.mark.parametrize("targets,sets,message", [
    (["mem-bandwidth"], ["modes=read,fly"], "'fly' is not one of"),
    (["mem-bandwidth"], ["sizes=16G", "threads=max"], "needs 32.0 GiB but only"),
    (["mem-bandwidth"], ["cpu=9"], "this machine has CPUs 0..1"),
    (["mem-latency"], ["pages=giant"], "'giant' is not one of"),
    (["mem-latency"], ["node=64"], "this machine has NUMA nodes"),
    (["mem-contention"], ["bytes=8G"], "needs"),
    (["mem-contention"], ["stream-mode=fly"], "'fly' is not one of"),
    (["stream"], ["bind=loose"], "'loose' is not one of"),
    (["stream"], ["threads=sweepy"], "not a thread count"),
])
def test_bad_plans_are_refused_before_launch(targets, sets, message):
    with pytest.raises(UsageError, match=message):
        plan_targets(targets, sets, CTX)


def test_log_sizes():
    s = log_sizes(1024, 4096, 4)
    assert s == [1024, 1216, 1472, 1728, 2048, 2432, 2880, 3456, 4096]


def test_latency_window_flavour_can_be_left_out_or_swept():
    specs = plan_targets(["mem-latency"], ["sizes=4K,1M", "window=0"], CTX)
    assert [arg(s, "--order") for s in specs] == ["random"]
    specs = plan_targets(["mem-latency"], ["sizes=4K,1M", "order=window", "window=64K"], CTX)
    assert [(arg(s, "--order"), arg(s, "--sizes"), arg(s, "--window")) for s in specs] == [
        ("window", "4096,1048576", "65536")]


def test_a_sweep_per_memory_home():
    """homes=each: the latency sweep and the read-bandwidth sweep once per home, from one CPU,
    the memory bound to that home (this machine's homes: one on the test VM)."""
    lat = plan_targets(["mem-latency"], ["homes=each", "sizes=4K,1M", "cpu=1"], CTX)
    homes = [s for s in lat if "home=" in s.label]
    assert [(arg(s, "--cpu"), arg(s, "--node"), arg(s, "--sizes")) for s in homes] == [
        ("1", str(n), "4096,1048576") for n in range(numa_nodes())]
    bw = plan_targets(["mem-bandwidth"], ["homes=each", "sizes=4K,1M", "node=0"], CTX)
    assert arg(bw[0], "--node") == "0"                  # the main sweep, bound as asked
    homes = [s for s in bw if "home=" in s.label]
    assert [(arg(s, "--modes"), arg(s, "--cpu"), arg(s, "--node")) for s in homes] == [
        ("read", "0", str(n)) for n in range(numa_nodes())]
    assert all(arg(s, "--sizes") == "4096,1048576" for s in homes)


def test_beyond_local_memory_needs_a_second_home():
    """This machine: refused with one home (an array larger than the home is larger than the
    machine), planned with several."""
    if numa_nodes() == 1:
        with pytest.raises(UsageError, match="one memory home on this machine"):
            plan_targets(["mem-bandwidth"], ["beyond-local=yes"], CTX)
        with pytest.raises(UsageError, match="this machine has NUMA nodes 0..0"):
            plan_targets(["mem-bandwidth"], ["node=1"], CTX)
    else:
        assert len(beyond_local_sizes(0)) == 3


def test_beyond_local_sizes_on_a_two_home_node(tmp_path, monkeypatch):
    """A two-home machine's sysfs (CPU 1 on home 1, 4 GiB there): reads of 0.5, 0.9 and 1.2x
    that memory from CPU 1, placed by first touch."""
    for node, cpus in ((0, "0"), (1, "1")):
        d = tmp_path / f"node{node}"
        d.mkdir()
        (d / "cpulist").write_text(cpus + "\n")
        (d / "meminfo").write_text(f"Node {node} MemTotal:  4194304 kB\nNode {node} MemFree: 1 kB\n")
    monkeypatch.setattr(numa, "SYS_NODE", tmp_path)
    assert numa.numa_nodes() == 2 and numa.cpu_node(1) == 1
    specs = plan_targets(["mem-bandwidth"], ["beyond-local=yes", "sizes=4K", "cpu=1"], CTX)
    [big] = [s for s in specs if "beyond local" in s.label]
    assert arg(big, "--sizes") == ",".join(str(int(f * (4 << 30)) // 64 * 64) for f in (0.5, 0.9, 1.2))
    assert (arg(big, "--node"), arg(big, "--cpu"), arg(big, "--modes")) == ("-1", "1", "read")


def test_default_sweep_per_home_is_one_point_per_octave():
    specs = plan_targets(["mem-latency"], ["homes=each"], CTX)
    [main] = [s for s in specs if arg(s, "--cpu") == "-1" and arg(s, "--order") == "random"]
    full = [int(x) for x in arg(main, "--sizes").split(",")]
    for s in (s for s in specs if "home=" in s.label):
        per_home = [int(x) for x in arg(s, "--sizes").split(",")]
        assert per_home == [x for x in full if x & (x - 1) == 0 or x == full[-1]]
        assert per_home[-1] == full[-1] and len(per_home) < len(full)
