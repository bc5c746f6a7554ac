"""Bring a cluster's namespaces, bridge and links up and down with iproute2 (`ip`)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional

from hpceval.vcluster import slurm as vslurm
from hpceval.vcluster.state import (MAX_NODES, PREFIX_LEN, Cluster, Node, VclusterError, layout,
                                    load, ns_prefix, state_dir, write_node_files)

NETNS_DIR = "/run/netns"
# Directories each node sees privately: a state directory below them would vanish on the nodes.
_PRIVATE_ON_NODES = ("/tmp", "/dev/shm")


def _ip(*args: str) -> str:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode:
        reason = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        raise VclusterError(f"ip {' '.join(args)}: {reason}")
    return proc.stdout


def check_machine() -> None:
    """Namespaces need root, the kernel's support and iproute2; anything missing is one line,
    exit 2."""
    if os.geteuid() != 0:
        raise VclusterError("the virtual cluster needs root (network and mount namespaces)")
    if not os.path.exists("/proc/self/ns/net"):
        raise VclusterError("this kernel has no network namespaces (/proc/self/ns/net)")
    if not shutil.which("ip"):
        raise VclusterError("iproute2's `ip` is missing: install iproute2")


def _check_directory(directory: Path) -> None:
    for private in _PRIVATE_ON_NODES:
        if directory == Path(private) or Path(private) in directory.parents:
            raise VclusterError(f"state directory {directory} is below {private}, which every "
                                "node sees privately: choose another HPCEVAL_VCLUSTER_DIR")


def listed_namespaces(prefix: str) -> List[str]:
    """This cluster's namespaces as `ip netns` knows them (also those of a half-made cluster)."""
    names = (line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip())
    return sorted(n for n in names if n.startswith(prefix + "-"))


def ns_pids(ns: str) -> List[int]:
    return [int(p) for p in _ip("netns", "pids", ns).split()]


def _make_bridge(cluster: Cluster) -> None:
    # The bridge lives in a namespace of its own: the machine's network is never touched.
    _ip("netns", "add", cluster.bridge_ns)
    _ip("-n", cluster.bridge_ns, "link", "add", "br0", "type", "bridge")
    _ip("-n", cluster.bridge_ns, "link", "set", "br0", "up")


def _make_node(cluster: Cluster, node: Node) -> None:
    # The veth pair is created inside the bridge namespace with its peer moved straight into the
    # node's, so neither end ever exists in the machine's own namespace.
    _ip("netns", "add", node.ns)
    port = f"v-{node.name}"
    _ip("-n", cluster.bridge_ns, "link", "add", port, "type", "veth",
        "peer", "name", "eth0", "netns", node.ns)
    _ip("-n", cluster.bridge_ns, "link", "set", port, "master", "br0", "up")
    _ip("-n", node.ns, "addr", "add", f"{node.addr}/{PREFIX_LEN}", "dev", "eth0")
    _ip("-n", node.ns, "link", "set", "eth0", "up")
    _ip("-n", node.ns, "link", "set", "lo", "up")


def up(n: int, directory: Optional[Path] = None, slurm: bool = False) -> Cluster:
    """N nodes; with `slurm`, also munge, slurmctld and a slurmd per node (vcluster/slurm.py)."""
    check_machine()
    if slurm:
        vslurm.check_programs()
    directory = directory or state_dir()
    _check_directory(directory)
    if not 1 <= n <= MAX_NODES:
        raise VclusterError(f"up {n}: the number of nodes must be 1..{MAX_NODES}")
    if load(directory) or listed_namespaces(ns_prefix(directory)):
        raise VclusterError(f"a cluster is already up in {directory}: 'vcluster down' first")
    cluster = layout(directory, n)
    cluster.netns_dir_mounted = not is_mount_point(NETNS_DIR)
    cluster.slurm = slurm
    directory.mkdir(parents=True, exist_ok=True)
    cluster.save()                 # first: `down` can then clean up after a failed `up`
    try:
        write_node_files(cluster)
        _make_bridge(cluster)
        for node in cluster.nodes:
            _make_node(cluster, node)
        if slurm:
            vslurm.start(cluster)
    except BaseException:
        down(directory)
        raise
    return cluster


def _signal_all(pids: List[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def end_processes(namespaces: List[str], grace: float = 3.0) -> int:
    """End every process in the namespaces (TERM, then KILL after `grace` s); returns how many.
    Only processes inside the cluster's own namespaces are ever signalled."""
    pids = [p for ns in namespaces for p in ns_pids(ns)]
    total = len(pids)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        _signal_all(pids, sig)
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            time.sleep(0.05)
            pids = [p for ns in namespaces for p in ns_pids(ns)]
    if pids:
        raise VclusterError(f"processes {pids} survived SIGKILL in the cluster's namespaces", 1)
    return total


def _remove_state(cluster: Optional[Cluster], directory: Path) -> None:
    # Only what `up` made: the node directories and state.json; the directory itself if empty.
    for node in cluster.nodes if cluster else []:
        shutil.rmtree(cluster.node_dir(node), ignore_errors=True)
    if cluster:
        vslurm.remove_files(cluster)
    for name in ("state.json", "state.json.tmp"):
        (directory / name).unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:
        pass


def is_mount_point(path: str) -> bool:
    # os.path.ismount misses bind mounts within one file system, which /run/netns is.
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == path for line in f)


def _release_netns_dir() -> None:
    # `ip netns add` made /run/netns a mount point; when `up` caused that and no namespace is
    # left in it, undo it. A plain umount fails (EBUSY) if another namespace appeared meanwhile.
    if is_mount_point(NETNS_DIR) and not os.listdir(NETNS_DIR):
        if subprocess.run(["umount", NETNS_DIR], capture_output=True).returncode == 0:
            os.rmdir(NETNS_DIR)


def down(directory: Optional[Path] = None) -> Dict[str, int]:
    """Tear down: end the processes in the cluster's namespaces, delete the namespaces (their
    veths and bridge go with them), remove the state. Returns what was removed."""
    check_machine()
    directory = directory or state_dir()
    cluster = load(directory)
    namespaces = sorted(set(cluster.namespaces() if cluster else [])
                        | set(listed_namespaces(ns_prefix(directory))))
    present = [ns for ns in namespaces if os.path.exists(f"{NETNS_DIR}/{ns}")]
    ended = end_processes(present)
    for ns in present:
        _ip("netns", "delete", ns)
    if cluster and cluster.netns_dir_mounted:
        _release_netns_dir()
    _remove_state(cluster, directory)
    return {"namespaces": len(present), "processes": ended, "state": int(cluster is not None)}


def status(directory: Optional[Path] = None) -> List[Dict[str, object]]:
    """One entry per node of the cluster in the state directory (empty when none is up)."""
    check_machine()
    cluster = load(directory)
    if cluster is None:
        return []
    alive = set(listed_namespaces(cluster.prefix))
    return [{"node": n.name, "addr": f"{n.addr}/{PREFIX_LEN}", "cpus": n.cpus, "ns": n.ns,
             "up": n.ns in alive, "processes": len(ns_pids(n.ns)) if n.ns in alive else 0}
            for n in cluster.nodes]
