"""Slurm on the virtual cluster (`vcluster up N --slurm`): one munged for the cluster (in the bridge
namespace; its socket is a file every node reaches), slurmctld on node1 and one slurmd per node,
all configured and spooled in the cluster's state directory (docs/vcluster.md, "Slurm").
`down` ends them with everything else in the cluster's namespaces."""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import List

from hpceval.vcluster.state import Cluster, VclusterError

SLURM_DIR = "slurm"                 # below the state directory
PROGRAMS = ("munged", "slurmctld", "slurmd", "sinfo", "nsenter")
VCLUSTER = Path(__file__).resolve().parents[2] / "scripts" / "vcluster"


def slurm_dir(cluster: Cluster) -> Path:
    return cluster.path / SLURM_DIR


def conf_path(cluster: Cluster) -> Path:
    return slurm_dir(cluster) / "slurm.conf"


def munge_socket(cluster: Cluster) -> Path:
    return slurm_dir(cluster) / "munge" / "run" / "munge.socket.2"


def check_programs() -> None:
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    if missing:
        raise VclusterError(f"--slurm needs {', '.join(missing)}: install slurmctld slurmd "
                            "slurm-client munge (HPCEVAL_SLURM=1 sh scripts/install-deps.sh)")


def conf_text(cluster: Cluster) -> str:
    d, first = slurm_dir(cluster), cluster.nodes[0]
    lines = [
        "ClusterName=hvc", f"SlurmctldHost={first.name}({first.addr})",
        "SlurmUser=root", "SlurmdUser=root", f"AuthInfo=socket={munge_socket(cluster)}",
        f"StateSaveLocation={d}/ctld", f"SlurmctldPidFile={d}/slurmctld.pid",
        f"SlurmctldLogFile={d}/slurmctld.log",
        # %n: each slurmd its own spool, pid file, log and (pmix needs it) its own TmpFS.
        f"SlurmdSpoolDir={cluster.path}/%n/slurmd", f"SlurmdPidFile={cluster.path}/%n/slurmd.pid",
        f"SlurmdLogFile={cluster.path}/%n/slurmd.log", f"TmpFS={cluster.path}/%n/tmp",
        # No cgroups: the nodes share one kernel and the container may not delegate them.
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
        "SchedulerType=sched/builtin", "ReturnToService=2", "MpiDefault=none",
        # Finished jobs stay visible to scontrol for 10 minutes: `hpceval submit --wait` reads
        # their end state there (there is no accounting database). KillWait: the seconds from
        # SIGTERM (scancel, the time limit) to SIGKILL, in which the job's hpceval ends its launch
        # and stores what it measured (Slurm's default is 30).
        "MinJobAge=600", "KillWait=10", "InactiveLimit=0", "SlurmdTimeout=30",
        "MessageTimeout=10",
    ]
    lines += [f"NodeName={n.name} NodeAddr={n.addr} CPUs={len(n.cpus)} State=UNKNOWN"
              for n in cluster.nodes]
    lines.append("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def _munge_key(path: Path, uid: int, gid: int) -> None:
    path.write_bytes(os.urandom(1024))
    os.chown(path, uid, gid)
    path.chmod(0o400)


def write_files(cluster: Cluster) -> None:
    """slurm.conf, spool directories (daemons refuse to start without them), munge's own key and
    socket directory (owned by munge, o+x: munged checks)."""
    d = slurm_dir(cluster)
    munge = pwd.getpwnam("munge")
    for sub in ("ctld", "munge/run", "munge/lib", "munge/log"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    for sub in ("munge", "munge/run", "munge/lib", "munge/log"):
        os.chown(d / sub, munge.pw_uid, munge.pw_gid)
        (d / sub).chmod(0o755 if sub in ("munge", "munge/run") else 0o700)
    _munge_key(d / "munge" / "munge.key", munge.pw_uid, munge.pw_gid)
    for node in cluster.nodes:
        (cluster.node_dir(node) / "slurmd").mkdir(parents=True, exist_ok=True)
    conf_path(cluster).write_text(conf_text(cluster))


def _run(argv: List[str], what: str) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=60)
    if proc.returncode:
        reason = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        raise VclusterError(f"{what}: {reason}")


def _start_munged(cluster: Cluster) -> None:
    d = slurm_dir(cluster) / "munge"
    # In the bridge namespace so that `down` ends it; as user munge, as munged insists.
    _run(["nsenter", f"--net=/run/netns/{cluster.bridge_ns}", "setpriv", "--reuid=munge",
          "--regid=munge", "--clear-groups", "munged", f"--socket={munge_socket(cluster)}",
          f"--key-file={d}/munge.key", f"--pid-file={d}/run/munged.pid",
          f"--log-file={d}/log/munged.log", f"--seed-file={d}/lib/munged.seed"], "munged")


def _on_node(cluster: Cluster, node: str, *words: str) -> List[str]:
    # Through `vcluster exec`: the node's network, host name, /tmp and CPU set, the machine's
    # /sys (slurmd fails under `ip netns exec`, which remounts it).
    env_dir = f"HPCEVAL_VCLUSTER_DIR={cluster.directory}"
    return ["env", env_dir, sys.executable, str(VCLUSTER), "exec", node, *words]


def _wait_nodes_idle(cluster: Cluster, limit_s: float = 30.0) -> None:
    conf = conf_path(cluster)
    deadline = time.monotonic() + limit_s
    state = ""
    while time.monotonic() < deadline:
        proc = subprocess.run(_on_node(cluster, cluster.nodes[0].name, "sinfo", "-h", "-N", "-o",
                                       "%t"), capture_output=True, text=True,
                              env={**os.environ, "SLURM_CONF": str(conf)})
        state = proc.stdout.split()
        if proc.returncode == 0 and len(state) == len(cluster.nodes) and \
                all(s == "idle" for s in state):
            return
        time.sleep(0.2)
    raise VclusterError(f"Slurm nodes not idle after {limit_s:.0f} s (sinfo: {state}); logs in "
                        f"{slurm_dir(cluster)}")


def start(cluster: Cluster) -> None:
    """munged, slurmctld on node1, slurmd on every node; returns when every node is idle."""
    check_programs()
    write_files(cluster)
    _start_munged(cluster)
    conf = str(conf_path(cluster))
    _run(_on_node(cluster, cluster.nodes[0].name, "slurmctld", "-f", conf), "slurmctld")
    for node in cluster.nodes:
        _run(_on_node(cluster, node.name, "slurmd", "-f", conf, "-N", node.name),
             f"slurmd on {node.name}")
    _wait_nodes_idle(cluster)


def remove_files(cluster: Cluster) -> None:
    shutil.rmtree(slurm_dir(cluster), ignore_errors=True)
