"""A simulated machine (SimGrid SMPI, docs/simulate.md): a platform described on the command line
(`--simulate nodes=256,ppn=4,latency=1.5us,bandwidth=25GBps,topology=fat-tree`) or read from a
SimGrid platform file (`--platform FILE.xml`), and the allocation it offers to planning.

A description's `latency` is the one-way latency between two nearest nodes and `bandwidth` a
node's link bandwidth: what a ping-pong between two nodes would see on an ideal network. The
topology writers (hpceval/simulate/topology.py) turn them into SimGrid links."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from hpceval.errors import UsageError
from hpceval.limits import MAX_NODES, MAX_PPN, check_count, check_ranks

# Units of the description's values, to SI (seconds, bytes/s, flop/s, bytes).
_UNITS = {
    "latency": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
    "bandwidth": {"Bps": 1.0, "kBps": 1e3, "KBps": 1e3, "MBps": 1e6, "GBps": 1e9, "TBps": 1e12,
                  "bps": 1 / 8, "kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8,
                  "Tbps": 1e12 / 8},
    "flops": {"f": 1.0, "kf": 1e3, "Mf": 1e6, "Gf": 1e9, "Tf": 1e12},
    "memory": {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
               "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12},
}
_KIND = {"latency": "latency", "intra_latency": "latency", "bandwidth": "bandwidth",
         "intra_bandwidth": "bandwidth", "degraded_bandwidth": "bandwidth", "backbone": "bandwidth",
         "flops": "flops", "memory": "memory", "eager": "memory"}
MODELS = ("ideal", "smpi")
# charged: computation runs on this host and is charged in simulated time; none: not charged,
# so simulated time is the network's alone, free of the host's load (a loaded host's
# preemptions, charged as computation, made ranks wait for each other: docs/simulate.md)
COMPUTES = ("charged", "none")


@dataclass(frozen=True)
class Description:
    nodes: int
    ppn: int = 1
    latency: float = 1.5e-6          # s, one way between two nearest nodes
    bandwidth: float = 12.5e9        # B/s, a node's link
    topology: str = "flat"
    flops: float = 10e9              # flop/s per core
    memory: float = 16 * (1 << 30)   # bytes per node (planning only: SimGrid has no memory)
    intra_latency: float = 0.3e-6    # s, two ranks of one node
    intra_bandwidth: float = 20e9    # B/s, two ranks of one node
    model: str = "ideal"             # ideal: links as described; smpi: SMPI's calibrated factors
    compute: str = "charged"         # charged | none (COMPUTES)
    # Messages below `eager` bytes leave when sent; from it up a rendezvous: the transfer waits
    # for the receive, and pays `handshake` more one-way latencies (model=ideal; a real MPI's
    # request and reply: 2). The default is the limit of a real MPI (session.EAGER_THRESH).
    eager: int = 65536
    handshake: int = 0
    # Planted faults (issue #51: acceptance's proof): one node's link at degraded_bandwidth, one
    # node's cores at slow_factor of `flops`; None: none. topology=flat and ppn=1 only.
    degraded_node: Optional[int] = None
    degraded_bandwidth: Optional[float] = None
    slow_node: Optional[int] = None
    slow_factor: Optional[float] = None
    # A planted shared bottleneck (issue #51: congestion's proof): a backbone of this bandwidth
    # that every flow between two nodes crosses, its bandwidth shared fairly by all of them in
    # both directions (SimGrid's SHARED policy), no latency of its own; None: a crossbar, where
    # two pairs of nodes share no link. topology=flat only.
    backbone: Optional[float] = None
    # The topology's fixed unit, its outermost dimension grown to `nodes` (topology.SHAPES):
    # fat-tree K:U (K nodes a leaf switch, U up-links a leaf: U < K tapers it K:U), torus AxB
    # (the leading dimensions), dragonfly CxRxN (chassis a group, routers a chassis, nodes a
    # router). None: every dimension derived from `nodes`.
    shape: Optional[str] = None

    def settings(self) -> Dict[str, Any]:
        return asdict(self)


def _number(key: str, text: str) -> float:
    units = _UNITS[_KIND[key]]
    m = re.fullmatch(r"\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or (m.group(2) and m.group(2) not in units):
        raise UsageError(f"--simulate {key}={text}: expected a number with a unit "
                         f"({', '.join(units)})")
    scale = units[m.group(2)] if m.group(2) else 1.0
    value = float(m.group(1)) * scale
    if not value > 0 or value == float("inf"):
        raise UsageError(f"--simulate {key}={text}: must be positive")
    return value


def _count(key: str, text: str, top: int, low: int = 1) -> int:
    if not text.strip().isdigit() or not low <= int(text) <= top:
        raise UsageError(f"--simulate {key}={text}: expected a whole number from {low} to {top}")
    return int(text)


def _whole_bytes(key: str, text: str) -> int:
    """A size in bytes (units as memory's) that is a whole number: SimGrid's thresholds are."""
    value = _number(key, text)
    if value != int(value) or value > 1 << 40:
        raise UsageError(f"--simulate {key}={text}: expected a whole number of bytes up to 1TiB")
    return int(value)


def _choice(key: str, text: str, choices) -> str:
    if text not in choices:
        raise UsageError(f"--simulate {key}={text}: expected one of {', '.join(choices)}")
    return text


def _parsers() -> Dict[str, Callable[[str, str], Any]]:
    from hpceval.simulate.topology import TOPOLOGIES
    out: Dict[str, Callable[[str, str], Any]] = {k: _number for k in _KIND}
    out["nodes"] = lambda k, t: _count(k, t, MAX_NODES)
    out["ppn"] = lambda k, t: _count(k, t, 1024)
    out["topology"] = lambda k, t: _choice(k, t, tuple(TOPOLOGIES))
    out["model"] = lambda k, t: _choice(k, t, MODELS)
    out["compute"] = lambda k, t: _choice(k, t, COMPUTES)
    out["eager"] = lambda k, t: _whole_bytes(k, t)
    out["handshake"] = lambda k, t: _count(k, t, 16, low=0)
    out["degraded_node"] = out["slow_node"] = lambda k, t: _count(k, t, MAX_NODES - 1, low=0)
    out["slow_factor"] = _fraction
    out["shape"] = lambda k, t: t
    return out


def _fraction(key: str, text: str) -> float:
    """A factor above 0 and below 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:
        raise UsageError(f"--simulate {key}={text}: expected a number above 0 and below 1")
    return value


# A planted fault's two keys: the node, and how it is degraded.
PLANTS = (("degraded_node", "degraded_bandwidth"), ("slow_node", "slow_factor"))


def _check_plants(desc: Description) -> None:
    """Both keys of a plant or neither, a node of the platform, a flat topology, ppn=1 (its
    platform has no loopback link)."""
    for node, how in PLANTS:
        n, h = getattr(desc, node), getattr(desc, how)
        if (n is None) != (h is None):
            given, missing = (node, how) if h is None else (how, node)
            raise UsageError(f"--simulate {given}: needs {missing} too")
        if n is None:
            continue
        if n >= desc.nodes:
            raise UsageError(f"--simulate {node}={n}: no such node (nodes 0..{desc.nodes - 1})")
        if desc.topology != "flat" or desc.ppn != 1:
            raise UsageError(f"--simulate {node}={n}: planted faults need topology=flat and "
                             f"ppn=1, not topology={desc.topology},ppn={desc.ppn}")


def parse_description(text: str) -> Description:
    """`nodes=256,ppn=4,latency=1.5us,...` -> Description; one-line UsageError on anything
    missing, unknown, repeated or absurd."""
    parsers = _parsers()
    values: Dict[str, Any] = {}
    for item in (text or "").split(","):
        key, sep, raw = item.strip().partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not raw.strip():
            raise UsageError(f"--simulate {item.strip() or '(empty)'}: expected NAME=VALUE "
                             f"(names: {', '.join(parsers)})")
        if key not in parsers:
            raise UsageError(f"--simulate {key}: unknown (names: {', '.join(parsers)})")
        if key in values:
            raise UsageError(f"--simulate {key}: given twice")
        values[key] = parsers[key](key, raw.strip())
    if "nodes" not in values:
        raise UsageError("--simulate: nodes=N is required (e.g. nodes=64,ppn=4,latency=1.5us,"
                         "bandwidth=25GBps)")
    ppn = values.get("ppn", Description.ppn)
    check_ranks(f"--simulate nodes={values['nodes']},ppn={ppn}", values["nodes"], ppn)
    desc = Description(**values)
    _check_plants(desc)
    if desc.backbone is not None and desc.topology != "flat":
        raise UsageError(f"--simulate backbone: needs topology=flat, not "
                         f"topology={desc.topology} (its switches are the shared links)")
    if desc.shape is not None:
        from hpceval.simulate.topology import unit
        unit(desc, "--simulate")          # its grammar, and nodes a whole number of units
    if desc.handshake and desc.model != "ideal":
        raise UsageError(f"--simulate handshake={desc.handshake}: needs model=ideal (model=smpi "
                         "keeps SMPI's own latency factors)")
    return desc


@dataclass
class Platform:
    """A platform file and what hpceval knows of it: its hosts in order, ranks per node, the
    description it was written from (None for a file given with --platform)."""
    xml: str
    hosts: List[str]
    ppn: int
    name: str
    description: Optional[Description] = None
    source: Optional[str] = None          # the --platform file's path
    cfg: List[str] = field(default_factory=list)   # SimGrid --cfg options of every launch
    twin: Optional[Dict[str, Any]] = None  # a twin's source: {"run", "machine", "host"} | {"spec"}

    def __post_init__(self) -> None:
        # hosts x ranks per host within the one cap before a hostfile of that many lines is
        # written (a platform file's core= or --ppn times its hosts)
        check_ranks(f"platform {self.source or self.name}", len(self.hosts), self.ppn)

    @property
    def cores_per_node(self) -> int:
        return self.ppn

    def allocation(self) -> Dict[str, Any]:
        return allocation(self)


def allocation(platform: Platform) -> Dict[str, Any]:
    """The simulated allocation, for planning: nodes, ranks per node, cores and memory per node
    (memory from the description; a platform file states none, so 16 GiB is assumed)."""
    desc = platform.description
    return {"nodes": len(platform.hosts), "ppn": platform.ppn,
            "cores_per_node": platform.cores_per_node,
            "memory_bytes": int(desc.memory) if desc else 16 << 30,
            "simulated": platform.name}


def _radical_parts(radical: str) -> List[Tuple[str, Optional[int]]]:
    """'0-3,7' -> [('0', 3), ('7', None)]: each part's first number, and a range's last."""
    out: List[Tuple[str, Optional[int]]] = []
    for part in radical.split(","):
        lo, sep, hi = part.strip().partition("-")
        if not lo.strip().isdecimal() or (sep and not hi.strip().isdecimal()):
            raise ValueError(f"radical '{radical[:40]}'")
        out.append((lo.strip(), int(hi) if sep else None))
    return out


def radical_count(radical: str) -> int:
    """The hosts a radical names, counted without naming them: a typo's 0-999999999 is 10^9."""
    return sum(1 if hi is None else max(hi - int(lo) + 1, 0) for lo, hi in _radical_parts(radical))


def expand_radical(radical: str) -> List[str]:
    """SimGrid's cluster radical '0-3,7,9-10' -> ['0', '1', '2', '3', '7', '9', '10']."""
    out: List[str] = []
    for lo, hi in _radical_parts(radical):
        out += [lo] if hi is None else [str(i) for i in range(int(lo), hi + 1)]
    return out


def _host_count(el) -> int:
    """Hosts an element declares: a <host> one, a <cluster> or <cabinet> its radical's."""
    if el.tag == "host" and el.get("id"):
        return 1
    if el.tag in ("cluster", "cabinet") and el.get("radical") is not None:
        return radical_count(el.get("radical", ""))
    return 0


def _hosts(el) -> List[str]:
    if el.tag == "host":
        return [el.get("id", "")]
    return [f"{el.get('prefix', '')}{i}{el.get('suffix', '')}"
            for i in expand_radical(el.get("radical", ""))]


def hosts_of(xml: str) -> Tuple[List[str], Optional[int]]:
    """The hosts a platform file declares, in document order (<host>, and the hosts of every
    <cluster> and <cabinet>), and the core count of the first of them when stated. Both are
    checked against their caps (hpceval/limits.py) before a host is named."""
    import xml.etree.ElementTree as ET
    declaring = [el for el in ET.fromstring(xml).iter() if _host_count(el)]
    check_count("the platform", sum(map(_host_count, declaring)), MAX_NODES, "host")
    stated = [el.get("core", "") for el in declaring if el.get("core", "").isdecimal()]
    cores = int(stated[0]) if stated else None
    check_count(f"core={cores}", cores, MAX_PPN, "core per host")
    return [h for el in declaring for h in _hosts(el)], cores
