"""The last-level cache that plans size arrays by. The fingerprint's caches come from the
kernel, which on a virtual machine often reports the host's shared cache (480 MiB on a 2-core
KVM guest: arrays of 1.9 GB, "L3" rows measured in DRAM). Before planning a memory benchmark,
a quick fully random pointer chase (the mem-latency binary, a few samples per half octave) finds
the cache edges with the same detector as the report (hpceval/levels.py); the planner uses the
detected last level when it is clearly smaller than the reported one, and says so."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional

from hpceval.catalog import LaunchSpec
from hpceval.errors import Interrupted
from hpceval.runner.session import run_launch

PROBE_MAX = 128 << 20          # the probe's largest working set, at most (it takes 2-3 s)
MEMORY_SHARE = 8               # ... and at most this share of the available memory
PROBE_TIMEOUT_S = 120.0
SMALLER = 0.5                  # detected below this fraction of the reported size: use detected
# A final plateau this slow, and this many times slower than the level before it, is main
# memory even when the curve shows fewer cache levels than reported (noise merged two).
MEMORY_NS = 60.0
MEMORY_STEP = 3.0


@dataclass
class LLC:
    used: int                  # bytes the planner sizes by
    reported: int              # the fingerprint's
    detected: Optional[int]    # from the probe, None when it found no edge or did not run
    source: str                # "reported" or "detected"
    note: str = ""

    def settings(self) -> Dict[str, Any]:
        return asdict(self)


def probe_sizes(reported: int, mem_available: int) -> List[int]:
    """Half-octave working sets from 16 KiB to twice the reported LLC (bounded)."""
    top = min(2 * reported, PROBE_MAX, max(mem_available // MEMORY_SHARE, 1 << 20))
    sizes, s = [], 16 << 10
    while s <= top:
        sizes += [s, s + s // 2] if s + s // 2 <= top else [s]
        s *= 2
    return sizes


def judge(reported: int, levels_reported: int, sizes: List[int], latencies: List[float]) -> LLC:
    """The size to plan by, from the probe's curve. The detected last level counts only when
    the curve shows as many cache levels as the machine reports: fewer means the probe stopped
    short of the last edge (a genuinely large cache), not that the cache is small."""
    from hpceval.levels import detect_levels     # numpy: only a run that probes loads it
    levels = detect_levels(sizes, latencies, "latency")
    caches = [lv["size"] for lv in levels if lv["size"]]
    detected = int(2 ** math.ceil(math.log2(caches[-1]))) if caches else None
    memory = len(levels) >= 2 and levels[-1]["value"] >= max(MEMORY_NS,
                                                            MEMORY_STEP * levels[-2]["value"])
    if detected is None or (len(caches) != levels_reported and not memory):
        return LLC(reported, reported, None, "reported",
                   f"the probe found {len(caches)} of the {levels_reported} reported cache "
                   "levels below its largest working set")
    if detected < SMALLER * reported:
        return LLC(detected, reported, detected, "detected",
                   f"the machine reports a {reported >> 20} MiB last-level cache, the latency "
                   f"curve shows its edge near {detected >> 20} MiB (a virtual machine's view of "
                   "a shared cache?): arrays are sized by the detected one")
    return LLC(reported, reported, detected, "reported")


def probe_llc(launcher, reported: int, levels_reported: int, mem_available: int) -> LLC:
    """Run the probe with `launcher` (one rank) and judge its curve; the reported size when the
    probe cannot run."""
    sizes = probe_sizes(reported, mem_available)
    args = ["--sizes", ",".join(map(str, sizes)), "--order", "random", "--pages", "thp",
            "--warmup", "0", "--min-reps", "4", "--max-reps", "6", "--budget", "0.02"]
    spec = LaunchSpec("mem-latency", "cache probe", "mem-latency", args, 1, "core",
                      timeout_s=PROBE_TIMEOUT_S)
    out = run_launch(launcher, spec, PROBE_TIMEOUT_S)      # the runner's one launch path
    if out.status == "interrupted":        # a stop signal ends the command, not just the probe
        raise Interrupted(out.signum)
    # The fastest sample: a probe on a busy machine must not mistake preemption for DRAM.
    pts = [(r["params"]["bytes"], r["stats"]["min"]) for r in out.results]
    if out.status != "ok" or len(pts) < 3:
        return LLC(reported, reported, None, "reported",
                   f"the cache probe did not run: {out.message or 'no results'}")
    return judge(reported, levels_reported, [p[0] for p in pts], [p[1] for p in pts])
