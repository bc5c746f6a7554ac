"""The memory homes (NUMA nodes) the memory benchmarks place their working sets on, read from
/sys/devices/system/node: how many, which home a CPU is on, how much memory a home has. The
binaries bind with mbind (csrc/harness/affinity.c); the plan only chooses the homes (EV7
section 2: memory placed on each processor in turn, and an array larger than the local memory)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from hpceval.errors import UsageError

SYS_NODE = Path("/sys/devices/system/node")
ONE_HOME = "one memory home on this machine"


def numa_nodes() -> int:
    """NUMA nodes of this machine (1 without NUMA support)."""
    return len(list(SYS_NODE.glob("node[0-9]*"))) or 1


def _in_list(text: str, n: int) -> bool:
    """n in a sysfs list such as '0-3,8,10-11'."""
    for part in filter(None, text.strip().split(",")):
        lo, _, hi = part.partition("-")
        if int(lo) <= n <= int(hi or lo):
            return True
    return False


def cpu_node(cpu: int) -> int:
    """The home CPU `cpu` is on (0 without NUMA support)."""
    for node in range(numa_nodes()):
        f = SYS_NODE / f"node{node}" / "cpulist"
        if f.exists() and _in_list(f.read_text(), cpu):
            return node
    return 0


def node_memory(node: int) -> Optional[int]:
    """Bytes of memory on home `node` (its meminfo's MemTotal), or None when not readable."""
    f = SYS_NODE / f"node{node}" / "meminfo"
    m = re.search(r"MemTotal:\s+(\d+)\s*kB", f.read_text()) if f.exists() else None
    return int(m.group(1)) * 1024 if m else None


def check_home(node: int) -> None:
    """A home the plan was asked for must exist (-1: first touch)."""
    nodes = numa_nodes()
    if node >= nodes:
        raise UsageError(f"--set node={node}: this machine has NUMA nodes 0..{nodes - 1}")


def beyond_local_sizes(cpu: int) -> list:
    """Arrays of half, 0.9 and 1.2 times the memory of `cpu`'s home (EV7 Fig. 2.6: a read over
    an array larger than the local memory reaches into another home's); refused on a machine
    with one home, where such an array is larger than the machine."""
    node = cpu_node(cpu)
    mem = node_memory(node)
    if numa_nodes() == 1 or not mem:
        why = ONE_HOME if numa_nodes() == 1 else f"node {node}'s memory is not readable"
        raise UsageError(f"--set beyond-local=yes: {why} (no array can be larger than one "
                         "home's memory and still fit)")
    return [int(f * mem) // 64 * 64 for f in (0.5, 0.9, 1.2)]
