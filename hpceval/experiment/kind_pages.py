"""pages: base pages, transparent huge pages (madvise) or explicit 2 MiB huge pages for a
benchmark's memory. A benchmark with a `pages` parameter of its own (mem-latency,
mem-bandwidth) is given it; every other gets glibc's malloc tunable, which asks for THP
(hugetlb=1) or hugetlb pages (hugetlb=2) on the heap and on every mmap'd chunk."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Dict, List

from hpceval.catalog import BENCHMARKS, LaunchSpec
from hpceval.experiment.registry import Experiment, Setup, names, plan_benchmark, register_experiment

PAGES = ("base", "thp", "huge")
_TUNABLE = {"base": "0", "thp": "1", "huge": "2"}


def _meminfo(key: str) -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _thp_mode() -> str:
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return "unknown"
    return text[text.find("[") + 1:text.find("]")] if "[" in text else "unknown"


def page_notes(variants: List[str]) -> List[str]:
    """What the machine makes of the variants: no hugetlb pages reserved, THP never/always."""
    notes = []
    if "huge" in variants and _meminfo("HugePages_Total") == 0:
        notes.append("no explicit huge pages are reserved (HugePages_Total 0, see "
                     "/proc/sys/vm/nr_hugepages): the 'huge' variant falls back to base pages")
    mode = _thp_mode()
    if "thp" in variants and mode == "never":
        notes.append("transparent huge pages are off (THP mode never): 'thp' gets base pages")
    if "base" in variants and mode == "always":
        notes.append("THP mode is 'always': 'base' may get transparent huge pages too")
    return notes


def _env(spec: LaunchSpec, variant: str) -> Dict[str, str]:
    # Kept: tunables set by the user; ours last, so it wins.
    before = os.environ.get("GLIBC_TUNABLES", "")
    tunable = f"glibc.malloc.hugetlb={_TUNABLE[variant]}"
    return {**spec.env, "GLIBC_TUNABLES": f"{before}:{tunable}" if before else tunable}


# Message buffers that ask for THP themselves whatever the variant (csrc/comm/lib/comm.c).
OWN_THP_AREAS = ("communication",)


def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    bench = BENCHMARKS[setup.benchmark]
    own = bench.has_param("pages")
    specs = plan_benchmark(setup, (f"pages={variant}",) if own else ())
    extra = [f"{bench.name}'s message buffers ask for transparent huge pages themselves: "
             "only its other memory follows the variant"] if bench.area in OWN_THP_AREAS else []
    for note in page_notes([variant]) + extra:
        if note not in setup.notes:
            setup.notes.append(note)
    return [[replace(s, label=f"{s.label} pages={variant}",
                     env=s.env if own else _env(s, variant))] for s in specs]


register_experiment(Experiment(
    "pages", "base, transparent huge and explicit 2 MiB huge pages", "pages",
    lambda ctx: ",".join(PAGES), lambda text, ctx: names(text, PAGES, "page kind"), _expand))
