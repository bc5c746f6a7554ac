"""A virtual cluster on one Linux machine: N "nodes", each a network namespace on a private bridge,
entered with its own host name, /etc/hosts, boot id, /tmp, /dev/shm and CPU set (docs/vcluster.md).

Standard library only, so that the system python3 runs it (scripts/vcluster) without the venv.
    up(n), down(), status()    -- build, tear down, describe the cluster of a state directory
    exec_node(node, words)      -- replace this process by a command on a node (ssh semantics)
"""
from hpceval.vcluster.enter import exec_node
from hpceval.vcluster.net import down, status, up
from hpceval.vcluster.state import Cluster, VclusterError, load, state_dir

__all__ = ["Cluster", "VclusterError", "down", "exec_node", "load", "state_dir", "status", "up"]
