"""The fingerprint of every node of a run that spans nodes: one tiny launch, a rank per node,
each printing its node's fingerprint as one JSON line. Nodes that differ are a finding (`show`,
the report): an acceptance test measures the machine it was given, not the one it assumed.

Run as `python -m hpceval.runner.nodeprint MPIRUN` on a node."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple

from hpceval.fingerprint import machine_fingerprint
from hpceval.launch.base import version_text
from hpceval.runner.execute import start
from hpceval.runner.procs import end_session

# What must agree between nodes; the host name, environment and hash differ by nature.
FIELDS = ("arch", "cpu_model", "sockets", "cores", "threads", "numa_nodes", "caches",
          "memory_bytes", "os", "kernel", "thp", "cpu_governor", "mpi")


def node_fingerprint(launcher_program: str) -> Dict[str, Any]:
    fp = machine_fingerprint()
    lines = [l.strip() for l in (version_text(launcher_program) or "").splitlines() if l.strip()]
    # The MPI installed on this node: Hydra's version is on its "Version:" line.
    fp["mpi"] = next((l for l in lines if l.startswith("Version:")), lines[0] if lines else None)
    return {"host": fp["hostname"], **{k: fp.get(k) for k in FIELDS}}


def differences(nodes: Dict[str, Dict[str, Any]]) -> List[str]:
    """The fields in which the nodes' fingerprints differ."""
    return [k for k in FIELDS if len({json.dumps(n.get(k), sort_keys=True)
                                      for n in nodes.values()}) > 1]


def _parse(stdout: str) -> Dict[str, Dict[str, Any]]:
    nodes: Dict[str, Dict[str, Any]] = {}
    for line in stdout.splitlines():
        try:
            fp = json.loads(line)
        except ValueError:
            continue
        if isinstance(fp, dict) and "host" in fp:
            nodes[fp.pop("host")] = fp
    return nodes


def _launch(command: List[str], timeout_s: float) -> Tuple[str, str, bool]:
    """(stdout, stderr, timed out) of the fingerprint launch, started as every launch is
    (execute.start: a session of its own that dies with the driver)."""
    proc = start(command, {}, bufsize=-1)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return out, err, False
    except subprocess.TimeoutExpired:
        end_session(proc.pid)
        out, err = proc.communicate()
        return out, err, True
    except KeyboardInterrupt:             # the driver's stop signal: the launch ends with it
        end_session(proc.pid)
        raise


def gather(launcher, hosts: Tuple[str, ...], timeout_s: float) -> Dict[str, Any]:
    """{'nodes': {host: fingerprint}, 'differ': [fields], 'warning': text or None}. A node that
    does not answer is not fatal here: the run's own launches fail on it and say why. A launch
    that failed at once (not one that timed out) is tried a second time: a daemon's start-up
    can fail now and then on a loaded machine."""
    argv = [sys.executable, "-m", "hpceval.runner.nodeprint", launcher.program]
    command = launcher.command(len(hosts), argv, "none", {}, slots=[(h, 1) for h in hosts])
    for attempt in range(2):
        out, err, timed_out = _launch(command, timeout_s)
        nodes = _parse(out)
        if len(nodes) >= len(hosts) or timed_out:
            break
    # Counted, not matched by name: a node may call itself n1.cluster while --hosts says n1.
    warning: Optional[str] = None
    if len(nodes) < len(hosts):
        why = next((l.strip() for l in reversed(err.splitlines()) if l.strip(" -")), "")
        warning = (f"fingerprints from {len(nodes)} of {len(hosts)} nodes"
                   + (" (timed out)" if timed_out else f" ({why[:200]})" if why else ""))
    return {"nodes": nodes, "differ": differences(nodes), "warning": warning}


def run_nodes(launcher, place, timeout_s: Optional[float]) -> Optional[Dict[str, Any]]:
    """The nodes part of a run's settings: None for a run on this machine only."""
    if place is None or getattr(launcher, "simulated", False):   # simulated hosts: no nodes
        return None
    return gather(launcher, place.hosts, min(timeout_s or 60.0, 60.0))


if __name__ == "__main__":
    print(json.dumps(node_fingerprint(sys.argv[1])), flush=True)
