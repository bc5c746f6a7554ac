"""SimGrid platform files (XML, version 4.1) from a description, one writer per topology.

Every writer makes one <cluster> of `nodes` hosts named node-0.sim ... with `ppn` cores at
`flops` each, the node's intra-node (loopback) link, and links whose latencies add up to the
description's `latency` between two nearest nodes:

- flat: a crossbar; each node's private link (split duplex) is crossed twice: latency / 2 each.
  With `backbone`, every route also crosses one shared link of that bandwidth and no latency
  (SimGrid's cluster backbone, SHARED: all flows, both directions, share it fairly).
- fat-tree: two levels (leaf switches of k nodes, k up-links each, non-blocking; a `shape`
  K:U sets the leaf's nodes and up-links, tapered K:U); nearest nodes share a leaf: two links,
  latency / 2 each.
- torus: up to three dimensions (a `shape` fixes the leading ones), nodes joined directly; neighbours are one link apart:
  `latency` per link, a hop more per dimension crossed.
- dragonfly: groups of chassis of routers of nodes; nearest nodes share a router: two links,
  latency / 2 each."""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Callable, Dict, List

if TYPE_CHECKING:                  # platform.py reads TOPOLOGIES: no import back at run time
    from hpceval.simulate.platform import Description

HEADER = ("<?xml version='1.0'?>\n"
          '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
          '<platform version="4.1">\n')


def _num(v: float) -> str:
    return f"{v:.9g}"


def _common(d: Description, link_lat: float) -> str:
    return (f'id="sim" prefix="node-" suffix=".sim" radical="0-{d.nodes - 1}" '
            f'speed="{_num(d.flops)}f" core="{d.ppn}" bw="{_num(d.bandwidth)}Bps" '
            f'lat="{_num(link_lat)}s" loopback_bw="{_num(d.intra_bandwidth)}Bps" '
            f'loopback_lat="{_num(d.intra_latency)}s"')


def factors(n: int, parts: int) -> List[int]:
    """n as a product of `parts` factors as even as possible, largest first (1s allowed)."""
    out: List[int] = []
    left = n
    for k in range(parts, 0, -1):
        target = round(left ** (1.0 / k))
        best = min(divisors(left), key=lambda f: (abs(f - target), -f))
        out.append(best)
        left //= best
    out[-1] *= left
    return sorted(out, reverse=True)


def divisors(n: int) -> List[int]:
    """The divisors of n in O(sqrt n): a million nodes factor in milliseconds, not seconds."""
    small = [f for f in range(1, math.isqrt(n) + 1) if n % f == 0]
    return sorted(set(small + [n // f for f in small]))


def _bb_attrs(d: Description) -> str:
    if d.backbone is None:
        return ""
    # bb_lat 0: the nearest nodes' latency stays the description's `latency`
    return f' bb_bw="{_num(d.backbone)}Bps" bb_lat="0s" bb_sharing_policy="SHARED"'


def flat(d: Description) -> str:
    if d.degraded_node is not None or d.slow_node is not None:
        return planted(d)
    return f'  <cluster {_common(d, d.latency / 2)} sharing_policy="SPLITDUPLEX"{_bb_attrs(d)}/>\n'


def planted(d: Description) -> str:
    """The flat crossbar written host by host (a Cluster zone, one private link each), so one
    node's link or speed can differ: the degraded node's link at degraded_bandwidth, the slow
    node's cores at slow_factor x flops, and the zone's <backbone> (always SHARED) when planted.
    No loopback link: one rank a node (ppn=1)."""
    hosts, links, joins = [], [], []
    for i in range(d.nodes):
        speed = d.flops * (d.slow_factor if i == d.slow_node else 1.0)
        bw = d.degraded_bandwidth if i == d.degraded_node else d.bandwidth
        hosts.append(f'    <host id="node-{i}.sim" speed="{_num(speed)}f" core="{d.ppn}"/>\n')
        links.append(f'    <link id="node-{i}.link" bandwidth="{_num(bw)}Bps" '
                     f'latency="{_num(d.latency / 2)}s" sharing_policy="SPLITDUPLEX"/>\n')
        joins.append(f'    <host_link id="node-{i}.sim" up="node-{i}.link_UP" '
                     f'down="node-{i}.link_DOWN"/>\n')
    if d.backbone is not None:
        links.append(f'    <backbone id="sim-backbone" bandwidth="{_num(d.backbone)}Bps" '
                     'latency="0s"/>\n')
    return ('  <zone id="sim" routing="Cluster">\n' + "".join(hosts) + "".join(links)
            + "".join(joins) + "  </zone>\n")


# What a description's `shape` fixes per topology, its form, and how many numbers it takes.
SHAPES = {"fat-tree": ("K:U (nodes a leaf switch : up-links a leaf) or K", r"\d+(:\d+)?"),
          "torus": ("AxB (the leading dimensions; the last grows with the nodes) or A",
                    r"\d+(x\d+)?"),
          "dragonfly": ("CxRxN (chassis a group, routers a chassis, nodes a router)",
                        r"\d+x\d+x\d+")}


def unit(d: Description, what: str) -> List[int]:
    """The shape's numbers (fat-tree [K, U], torus [A(, B)], dragonfly [C, R, N]), checked:
    its topology takes one, its form, positive numbers, the nodes a whole number of units (a
    one-line UsageError naming `what`: '--simulate', 'spec FILE', '--nodes 100')."""
    from hpceval.errors import UsageError
    if d.topology not in SHAPES:
        raise UsageError(f"{what}: shape={d.shape}: topology={d.topology} takes no shape "
                         f"(fat-tree, torus and dragonfly do)")
    form, grammar = SHAPES[d.topology]
    if not re.fullmatch(grammar, d.shape or ""):
        raise UsageError(f"{what}: shape={d.shape}: a {d.topology} takes {form}")
    nums = [int(x) for x in re.split("[:x]", d.shape)]
    if min(nums) < 1 or (d.topology == "fat-tree" and len(nums) == 2 and nums[1] > nums[0]):
        raise UsageError(f"{what}: shape={d.shape}: positive numbers"
                         + (", up-links at most the leaf's nodes" if d.topology == "fat-tree"
                            else ""))
    per = math.prod(nums[:1] if d.topology == "fat-tree" else nums)
    if d.nodes % per:
        raise UsageError(f"{what}: {d.nodes} nodes are not a whole number of the {d.topology}'s "
                         f"units of {per} nodes (shape={d.shape})")
    return nums


def fat_tree(d: Description) -> str:
    if d.shape is None:
        leaf, tops = factors(d.nodes, 2)
        ups = leaf
    else:
        leaf, *rest = unit(d, f"--nodes {d.nodes}")
        tops, ups = d.nodes // leaf, (rest or [leaf])[0]
    # levels; children a switch per level; parents a node, a leaf; links a parent (1)
    params = f"2;{leaf},{tops};1,{ups};1,1" if tops > 1 else f"1;{leaf};1;1"
    return (f'  <cluster {_common(d, d.latency / 2)} sharing_policy="SPLITDUPLEX" '
            f'topology="FAT_TREE" topo_parameters="{params}"/>\n')


def torus(d: Description) -> str:
    lead = [] if d.shape is None else unit(d, f"--nodes {d.nodes}")
    dims = ",".join(map(str, lead + [d.nodes // math.prod(lead)] if lead
                        else factors(d.nodes, 3)))
    return (f'  <cluster {_common(d, d.latency)} sharing_policy="SPLITDUPLEX" '
            f'topology="TORUS" topo_parameters="{dims}"/>\n')


def dragonfly(d: Description) -> str:
    if d.shape is None:
        groups, chassis, routers, nodes = factors(d.nodes, 4)
    else:
        chassis, routers, nodes = unit(d, f"--nodes {d.nodes}")
        groups = d.nodes // (chassis * routers * nodes)
    params = f"{groups},1;{chassis},1;{routers},1;{nodes}"
    return (f'  <cluster {_common(d, d.latency / 2)} sharing_policy="SPLITDUPLEX" '
            f'topology="DRAGONFLY" topo_parameters="{params}"/>\n')


TOPOLOGIES: Dict[str, Callable[[Description], str]] = {
    "flat": flat, "fat-tree": fat_tree, "torus": torus, "dragonfly": dragonfly}


def platform_xml(d: Description) -> str:
    return HEADER + TOPOLOGIES[d.topology](d) + "</platform>\n"

