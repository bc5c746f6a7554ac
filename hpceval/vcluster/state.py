"""The state directory of a cluster: its layout (names, addresses, CPU sets) and per-node files."""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import List, Optional

DEFAULT_DIR = "/run/hpceval-vcluster"
SUBNET = "10.77.0"          # a /24 that exists only inside the cluster's own namespaces
PREFIX_LEN = 24
MAX_NODES = 250


class VclusterError(Exception):
    """A one-line error for the command line; exit_code 2 is bad usage or an unusable machine."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


def state_dir() -> Path:
    """$HPCEVAL_VCLUSTER_DIR, else /run/hpceval-vcluster (absolute: nodes inherit it)."""
    return Path(os.environ.get("HPCEVAL_VCLUSTER_DIR") or DEFAULT_DIR).resolve()


def ns_prefix(directory: Path) -> str:
    # Namespace names are global (/run/netns): derive them from the state directory so that two
    # clusters (a user's and the tests') never share one.
    return "hvc-" + hashlib.sha1(str(directory).encode()).hexdigest()[:6]


@dataclass
class Node:
    name: str
    ns: str
    addr: str
    cpus: List[int]


@dataclass
class Cluster:
    directory: str
    prefix: str
    bridge_ns: str
    nodes: List[Node] = field(default_factory=list)
    netns_dir_mounted: bool = False    # whether `up` made /run/netns a mount point
    slurm: bool = False                # whether `up --slurm` started Slurm (vcluster/slurm.py)

    @property
    def path(self) -> Path:
        return Path(self.directory)

    def node(self, host: str) -> Node:
        """The node a launcher names: by name, address or user@name (as ssh accepts it)."""
        host = host.rpartition("@")[2]
        for node in self.nodes:
            if host in (node.name, node.addr):
                return node
        raise VclusterError(f"no node '{host}' in the cluster "
                            f"({', '.join(n.name for n in self.nodes)})", 255)

    def namespaces(self) -> List[str]:
        return [n.ns for n in self.nodes] + [self.bridge_ns]

    def node_dir(self, node: Node) -> Path:
        return self.path / node.name

    def save(self) -> None:
        text = json.dumps(asdict(self), indent=1)
        tmp = self.path / "state.json.tmp"
        tmp.write_text(text)
        tmp.replace(self.path / "state.json")


def load(directory: Optional[Path] = None) -> Optional[Cluster]:
    directory = directory or state_dir()
    try:
        raw = json.loads((directory / "state.json").read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise VclusterError(f"unreadable cluster state {directory}/state.json: {exc}") from exc
    try:
        raw["nodes"] = [Node(**n) for n in raw["nodes"]]
        return Cluster(**raw)
    except (TypeError, KeyError, IndexError) as exc:      # not the state vcluster writes
        raise VclusterError(f"damaged cluster state {directory}/state.json ({exc}): remove "
                            "it, and the namespaces by hand if a cluster is up") from None


def cpu_sets(n: int, cpus: List[int]) -> List[List[int]]:
    """Node i's CPUs. A node's MPI believes it owns the machine and binds from the first CPU it
    sees, so nodes must not share CPUs where avoidable: contiguous blocks when there are at least
    as many CPUs as nodes, else one CPU each, round-robin."""
    if n > len(cpus):
        return [[cpus[i % len(cpus)]] for i in range(n)]
    size, extra = divmod(len(cpus), n)
    starts = [i * size + min(i, extra) for i in range(n + 1)]
    return [cpus[starts[i]:starts[i + 1]] for i in range(n)]


def layout(directory: Path, n: int) -> Cluster:
    prefix = ns_prefix(directory)
    sets = cpu_sets(n, sorted(os.sched_getaffinity(0)))
    nodes = [Node(f"node{i}", f"{prefix}-node{i}", f"{SUBNET}.{i}", sets[i - 1])
             for i in range(1, n + 1)]
    return Cluster(str(directory), prefix, f"{prefix}-net", nodes)


def hosts_text(cluster: Cluster) -> str:
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
    lines += [f"{n.addr}\t{n.name}" for n in cluster.nodes]
    return "\n".join(lines) + "\n"


def write_node_files(cluster: Cluster) -> None:
    """Per node: the hosts file, a boot id of its own (UCX takes an equal boot id for "same
    machine" and would use shared memory between nodes), and its private /tmp and /dev/shm."""
    for node in cluster.nodes:
        d = cluster.node_dir(node)
        for sub in ("tmp", "shm"):
            (d / sub).mkdir(parents=True, exist_ok=True)
            (d / sub).chmod(0o1777)
        (d / "hosts").write_text(hosts_text(cluster))
        (d / "boot_id").write_text(f"{uuid.uuid4()}\n")
