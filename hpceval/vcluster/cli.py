"""`vcluster up N | down | status | exec [ssh options] NODE [COMMAND...]` (scripts/vcluster).
Called as `vcluster-ssh` it is `vcluster exec`: an ssh stand-in for MPI launchers."""
from __future__ import annotations

import os
import sys
from typing import Callable, Dict, List

from hpceval.vcluster.enter import exec_node
from hpceval.vcluster.net import check_machine, down, status, up
from hpceval.vcluster.state import VclusterError, state_dir

USAGE = ("usage: vcluster up N [--slurm] | down | status | exec [ssh options] NODE [COMMAND...]\n"
         "       (state in $HPCEVAL_VCLUSTER_DIR, else /run/hpceval-vcluster; docs/vcluster.md)")


def _up(args: List[str]) -> int:
    slurm = "--slurm" in args
    args = [a for a in args if a != "--slurm"]
    if len(args) != 1 or not (args[0].isascii() and args[0].isdigit()) or len(args[0]) > 6:
        raise VclusterError("up takes the number of nodes: vcluster up N [--slurm]")
    cluster = up(int(args[0]), slurm=slurm)
    for node in cluster.nodes:
        print(f"{node.name}\t{node.addr}\tcpus {','.join(map(str, node.cpus))}")
    return 0


def _down(args: List[str]) -> int:
    removed = down()
    if not removed["state"] and not removed["namespaces"]:
        print(f"vcluster: no cluster in {state_dir()}")
    else:
        print(f"vcluster: down ({removed['namespaces']} namespaces, "
              f"{removed['processes']} processes ended)")
    return 0


def _status(args: List[str]) -> int:
    nodes = status()
    if not nodes:
        print(f"vcluster: no cluster in {state_dir()}")
        return 1
    for n in nodes:
        state = "up" if n["up"] else "MISSING"
        print(f"{n['node']}\t{n['addr']}\tcpus {','.join(map(str, n['cpus']))}\t{state}\t"
              f"{n['processes']} processes\tnetns {n['ns']}")
    return 0 if all(n["up"] for n in nodes) else 1


def _exec(args: List[str]) -> int:
    check_machine()
    exec_node(args)


COMMANDS: Dict[str, Callable[[List[str]], int]] = {
    "up": _up, "down": _down, "status": _status, "exec": _exec}


def main(argv: List[str], prog: str = "vcluster") -> int:
    if os.path.basename(prog) == "vcluster-ssh":
        argv = ["exec", *argv]
    if not argv or argv[0] not in COMMANDS:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        return COMMANDS[argv[0]](argv[1:])
    except VclusterError as exc:
        print(f"vcluster: error: {exc}", file=sys.stderr)
        return exc.exit_code
