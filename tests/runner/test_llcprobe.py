"""The last-level cache the planner sizes arrays by (hpceval/runner/llcprobe.py): the reported
size checked against a quick latency curve. A KVM guest here reports its host's 480 MiB L3."""
import math

from helpers import CLI
from hpceval.runner.llcprobe import PROBE_MAX, judge, probe_sizes

MiB = 1 << 20


def curve(sizes, edges, values):
    """A latency curve with plateaus `values` and sharp edges at `edges` (bytes)."""
    return [values[sum(s > e for e in edges)] for s in sizes]


def test_a_vm_that_reports_the_hosts_cache_is_sized_by_what_it_sees():
    sizes = probe_sizes(480 * MiB, 16 << 30)
    lat = curve(sizes, [48 << 10, 2 * MiB, 16 * MiB], [1.4, 4.5, 38.0, 165.0])
    llc = judge(480 * MiB, 3, sizes, lat)
    assert llc.source == "detected" and llc.used == llc.detected
    assert 16 * MiB <= llc.used <= 32 * MiB and "480 MiB" in llc.note


def test_a_reported_size_the_curve_confirms_is_kept():
    sizes = probe_sizes(32 * MiB, 16 << 30)
    lat = curve(sizes, [32 << 10, 512 << 10, 32 * MiB], [1.2, 3.8, 20.0, 160.0])
    llc = judge(32 * MiB, 3, sizes, lat)
    assert llc.source == "reported" and llc.used == 32 * MiB and llc.detected


def test_a_cache_larger_than_the_probe_reaches_is_not_mistaken_for_a_small_one():
    # 256 MiB of L3 (3D-stacked caches): the probe stops at 128 MiB and sees two levels only
    sizes = probe_sizes(256 * MiB, 16 << 30)
    lat = curve(sizes, [32 << 10, 1 * MiB], [1.2, 3.8, 20.0])
    llc = judge(256 * MiB, 3, sizes, lat)
    assert llc.source == "reported" and llc.used == 256 * MiB and "2 of the 3" in llc.note


def test_probe_sizes_stay_within_the_bounds():
    sizes = probe_sizes(480 * MiB, 16 << 30)
    assert sizes[0] == 16 << 10 and max(sizes) <= PROBE_MAX
    assert len(sizes) <= 2 * math.log2(PROBE_MAX / (16 << 10)) + 2
    assert max(probe_sizes(480 * MiB, 64 * MiB)) <= 8 * MiB        # 1/8 of a small memory


def test_a_run_records_the_cache_it_planned_by(tmp_path, bindir):
    cli = CLI(tmp_path / "r.sqlite")
    p = cli("run", "mem-latency", "--set", "sizes=4K", "--set", "budget=0.02", "--set",
            "min-reps=3", "--no-remeasure")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    llc = run["settings"]["llc"]
    assert llc["source"] in ("reported", "detected") and llc["used"] > 0 and llc["reported"] > 0
    p = cli("run", "pingpong", "--set", "sizes=8", "--no-remeasure", "--set", "budget=0.02")
    assert p.returncode == 0, p.stderr
    assert cli.export("2")[0]["settings"]["llc"]["source"] == "reported"   # nothing sized by it


def test_a_merged_level_does_not_hide_main_memory():
    # Noise merged L1 and L2: two cache levels seen of three, but the last plateau is DRAM
    sizes = probe_sizes(480 * MiB, 16 << 30)
    lat = curve(sizes, [2 * MiB, 16 * MiB], [4.0, 38.0, 165.0])
    llc = judge(480 * MiB, 3, sizes, lat)
    assert llc.source == "detected" and 16 * MiB <= llc.used <= 32 * MiB
