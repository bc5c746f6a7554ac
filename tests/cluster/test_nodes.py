"""The nodes themselves: names, addresses, name table, private files, CPU sets, ssh-style exec."""
from __future__ import annotations

import os
import subprocess

from cluster_helpers import AGENT, VCLUSTER
from helpers import one_line_error
from hpceval.vcluster.enter import split_ssh_args
from hpceval.vcluster.state import cpu_sets


def test_each_node_has_its_name_address_and_cpus(cluster):
    for node in cluster.cluster.nodes:
        out = cluster.on(node.name, "hostname; ip -4 -o addr show dev eth0;"
                                    " grep Cpus_allowed_list /proc/self/status")
        name, addr, cpus = out.splitlines()
        assert name == node.name
        assert f"inet {node.addr}/24" in addr and node.addr.startswith("10.")
        assert cpus.split()[-1] == ",".join(map(str, node.cpus))
    if len(os.sched_getaffinity(0)) == 2:     # the documented layout on a 2-core machine
        assert [n.cpus for n in cluster.cluster.nodes] == [[0], [1]]


def test_machine_network_is_untouched(cluster):
    addrs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert "10.77." not in addrs
    assert "v-node1" not in links and "br0" not in links


def test_name_table_is_the_nodes_own(cluster):
    hosts = cluster.on("node1", "cat /etc/hosts; getent hosts node2")
    assert "10.77.0.1\tnode1" in hosts and "10.77.0.2\tnode2" in hosts
    assert hosts.splitlines()[-1].split() == ["10.77.0.2", "node2"]
    with open("/etc/hosts") as f:
        assert "node2" not in f.read()          # the machine's file was not edited


def test_boot_id_tmp_and_shm_are_per_node(cluster):
    marker = f"vcluster-test-{os.getpid()}"
    cluster.on("node1", f"touch /tmp/{marker} /dev/shm/{marker}")
    seen = {n: cluster.on(n, f"cat /proc/sys/kernel/random/boot_id; ls /tmp /dev/shm")
            for n in ("node1", "node2")}
    with open("/proc/sys/kernel/random/boot_id") as f:
        machine = f.read().strip()
    ids = {n: text.split()[0] for n, text in seen.items()}
    assert len({machine, *ids.values()}) == 3
    assert seen["node1"].count(marker) == 2 and marker not in seen["node2"]
    assert not os.path.exists(f"/tmp/{marker}") and not os.path.exists(f"/dev/shm/{marker}")


def test_exec_takes_ssh_options_and_shell_strings(cluster):
    # As launchers call ssh: options first, then the host, then the command (one string or words).
    assert cluster.on("-x", "-q", "-o", "BatchMode=yes", "-oStrictHostKeyChecking=no", "-n",
                      "-p", "22", "root@node2", "hostname") == "node2\n"
    assert cluster.on("node1", "echo $HPCEVAL_VCLUSTER_NODE; hostname | tr a-z A-Z") == \
        "node1\nNODE1\n"
    assert cluster.on("node2", "echo", "'a  b'", "$HOSTNAME") == "a  b node2\n"
    env = cluster.on("node1", "env")
    assert f"OMPI_MCA_plm_rsh_agent={AGENT}\n" in env and f"HYDRA_LAUNCHER_EXEC={AGENT}\n" in env
    agent = subprocess.run([str(AGENT), "-x", "node2", "hostname"], capture_output=True,
                           text=True, env=cluster.env, timeout=30)
    assert agent.stdout == "node2\n", agent.stderr


def test_exec_errors_are_one_line(cluster):
    unknown = cluster.run("exec", "node9", "true")
    assert unknown.returncode == 255
    assert one_line_error(unknown.stderr) == \
        "vcluster: error: no node 'node9' in the cluster (node1, node2)"
    assert cluster.run("exec", "-x").returncode == 2
    already = cluster.run("up", "2")
    assert already.returncode == 2 and "already up" in one_line_error(already.stderr)
    assert [cluster.run("up", n).returncode for n in ("0", "x", "251")] == [2, 2, 2]
    assert cluster.run("exec", "node2", "exit 7").returncode == 7


def test_status_reports_the_nodes(cluster):
    cluster.on("node2", "true")
    proc = cluster.run("status")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and [l.split()[:2] for l in lines] == \
        [["node1", "10.77.0.1/24"], ["node2", "10.77.0.2/24"]]
    assert all("\tup\t" in l for l in lines)


def test_needs_root():
    # As root, drop to nobody; anyone else is already not root.
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    proc = subprocess.run([*(drop if os.geteuid() == 0 else []), "/usr/bin/python3",
                           str(VCLUSTER), "status"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert one_line_error(proc.stderr) == \
        "vcluster: error: the virtual cluster needs root (network and mount namespaces)"


def test_ssh_argument_parsing():
    assert split_ssh_args(["-x", "n1", "a", "b"]) == ("n1", ["a", "b"])
    assert split_ssh_args(["-qxo", "X=1", "-lroot", "n2", "-x"]) == ("n2", ["-x"])
    assert split_ssh_args(["--", "n3"]) == ("n3", [])


def test_cpu_sets_block_then_round_robin():
    assert cpu_sets(2, [0, 1]) == [[0], [1]]
    assert cpu_sets(3, [0, 1]) == [[0], [1], [0]]
    assert cpu_sets(3, list(range(8))) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert cpu_sets(1, [4, 5]) == [[4, 5]]
