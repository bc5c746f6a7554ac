"""Run a command "on" a node, as ssh would: enter the node's network namespace and a private UTS
and mount namespace, give it the node's host name, /etc/hosts, boot id, /tmp, /dev/shm and CPU
set, then replace this process by `sh -c "WORDS..."`. ctypes, because Python 3.11 has no
os.setns/os.unshare; one process, so a launcher's agent call costs one interpreter start."""
from __future__ import annotations

import ctypes
import os
import socket
from pathlib import Path
from typing import Dict, List, NoReturn, Optional, Tuple

from hpceval.vcluster.slurm import conf_path
from hpceval.vcluster.state import PREFIX_LEN, SUBNET, Cluster, Node, VclusterError, load, state_dir

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWNET = 0x00020000, 0x04000000, 0x40000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000

# What launchers call: `AGENT [ssh options] HOST COMMAND...` (Open MPI's plm_rsh_agent, Hydra's
# -launcher-exec). A symlink to scripts/vcluster that means `vcluster exec`.
AGENT = Path(__file__).resolve().parents[2] / "scripts" / "vcluster-ssh"

# ssh's options that take a value (`-o X` or `-oX`); every other option is a lone letter.
_SSH_VALUE_OPTIONS = set("BbcDEeFIiJLlmOoPpQRSWw")

# Node file -> where the node sees it. The boot id matters: UCX (MPICH) takes an equal boot id
# for "same machine" and would use shared memory between nodes.
_BINDS = (("hosts", "/etc/hosts"), ("boot_id", "/proc/sys/kernel/random/boot_id"),
          ("tmp", "/tmp"), ("shm", "/dev/shm"))

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        raise VclusterError(f"{what}: {os.strerror(ctypes.get_errno())}", 255)


def split_ssh_args(args: List[str]) -> Tuple[str, List[str]]:
    """(host, command words) of an ssh-style argument list; ssh's own options are skipped."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        arg, i = args[i], i + 1
        if arg == "--":
            break
        for k, letter in enumerate(arg[1:], 1):
            if letter in _SSH_VALUE_OPTIONS:
                i += k == len(arg) - 1       # the value is the next word unless attached
                break
    if i >= len(args):
        raise VclusterError("exec: no node given (exec [ssh options] NODE [COMMAND...])")
    return args[i], args[i + 1:]


def node_env(cluster: Cluster, node: Node) -> Dict[str, str]:
    """The caller's environment plus what makes launching from this node to the others work."""
    agent, subnet = str(AGENT), f"{SUBNET}.0/{PREFIX_LEN}"
    # The cluster's Slurm (up --slurm): sinfo, srun, sbatch... read this configuration.
    slurm = {"SLURM_CONF": str(conf_path(cluster))} if cluster.slurm else {}
    return {**os.environ, **slurm, "HPCEVAL_VCLUSTER_DIR": cluster.directory,
            "HPCEVAL_VCLUSTER_NODE": node.name, "HOSTNAME": node.name,
            "OMPI_MCA_plm_rsh_agent": agent, "HYDRA_LAUNCHER": "ssh", "HYDRA_LAUNCHER_EXEC": agent,
            # The cluster's network only: never loopback or a leftover interface.
            "OMPI_MCA_btl_tcp_if_include": subnet, "OMPI_MCA_oob_tcp_if_include": subnet,
            # Every node's Open MPI takes the whole machine for its own and would bind the first
            # rank of every node to CPU 0: the node's CPU set binds instead (docs/vcluster.md).
            "OMPI_MCA_hwloc_base_binding_policy": "none",
            # Nodes run as root, as the namespaces need; Open MPI asks for this consent.
            "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def command_argv(words: List[str]) -> List[str]:
    """ssh semantics: the words are joined by spaces and run by the shell (launchers quote for
    it, e.g. Hydra passes '"/usr/bin/hydra_pmi_proxy"'); no words is a login shell."""
    if not words:
        return [os.environ.get("SHELL") or "/bin/sh", "-l"]
    return ["/bin/sh", "-c", " ".join(words)]


def _enter(cluster: Cluster, node: Node) -> None:
    try:
        fd = os.open(f"/run/netns/{node.ns}", os.O_RDONLY)
    except FileNotFoundError:
        raise VclusterError(f"{node.name} is not up (no namespace {node.ns}): see "
                            "'vcluster status'", 255) from None
    _check(_libc.setns(fd, CLONE_NEWNET), f"setns {node.ns}")
    os.close(fd)
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWUTS), "unshare mount+uts")
    # Private propagation first, so that no bind mount below reaches the machine's namespace.
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    socket.sethostname(node.name)
    keep = _shared_checkout()
    for name, target in _BINDS:
        src = str(cluster.node_dir(node) / name)
        _check(_libc.mount(src.encode(), target.encode(), None, MS_BIND, None),
               f"bind {src} on {target}")
    if keep is not None:
        _show_checkout(*keep)
    os.sched_setaffinity(0, node.cpus)


# The checkout the cluster runs from (its venv, build, scripts/vcluster-ssh): every node must
# see it as on a real cluster's shared file system, also when it lies below /tmp or /dev/shm,
# which each node sees privately (a CI clone in /tmp).
CHECKOUT = Path(__file__).resolve().parents[2]


def _shared_checkout():
    """(fd, path) of the checkout when a private mount below will hide it, else None; the fd
    keeps the machine's directory reachable once /tmp is the node's."""
    private = [t for _, t in _BINDS if t in ("/tmp", "/dev/shm")]
    if not any(str(CHECKOUT).startswith(t + "/") for t in private):
        return None
    return os.open(str(CHECKOUT), os.O_PATH | os.O_DIRECTORY), str(CHECKOUT)


def _show_checkout(fd: int, path: str) -> None:
    os.makedirs(path, exist_ok=True)          # inside the node's private /tmp
    src = f"/proc/self/fd/{fd}"
    _check(_libc.mount(src.encode(), path.encode(), None, MS_BIND | MS_REC, None),
           f"bind the checkout {path} into the node")
    os.close(fd)


def exec_node(args: List[str], directory: Optional[Path] = None) -> NoReturn:
    """`exec [ssh options] NODE [COMMAND...]`: replace this process by COMMAND on NODE."""
    host, words = split_ssh_args(args)
    cluster = load(directory)
    if cluster is None:
        raise VclusterError(f"no cluster is up in {directory or state_dir()}: 'vcluster up N' first",
                            255)
    node = cluster.node(host)
    env = node_env(cluster, node)
    _enter(cluster, node)
    argv = command_argv(words)
    os.execvpe(argv[0], argv, env)
