"""Placement outside Slurm (hpceval/runner/placement.py): the request checked before anything
runs, K ranks per node, the binding a virtual cluster needs, and records tagged with their hosts."""
import json

import pytest

from hpceval.errors import UsageError
from hpceval.launch.mpich import MPICHLauncher
from hpceval.launch.openmpi import OpenMPILauncher
from hpceval.launch.srun import SrunLauncher
from hpceval.runner.placement import (VCLUSTER_NODE_ENV, Placement, binding, check_plan,
                                      emulates_nodes, launch_command, placement_from_args,
                                      read_hostfile, tag_records)


def test_k_ranks_per_node_on_the_first_nodes():
    p = Placement(("a", "b", "c"), 2)
    assert p.nranks == 6
    assert p.slots(6) == [("a", 2), ("b", 2), ("c", 2)]
    assert p.slots(3) == [("a", 2), ("b", 1)]
    with pytest.raises(UsageError, match="7 ranks does not fit 3 nodes x 2"):
        p.slots(7)


def test_request_from_the_command_line(tmp_path):
    assert placement_from_args(None, None, None, None, 4) is None
    p = placement_from_args(2, 2, "localhost,127.0.0.1,localhost6", None, None)
    assert p.hosts == ("localhost", "127.0.0.1") and p.ppn == 2
    assert placement_from_args(None, None, "localhost,127.0.0.1", None, 4).ppn == 2
    f = tmp_path / "hosts"
    f.write_text("# nodes\nlocalhost slots=4\n\n127.0.0.1  # second\n")
    assert read_hostfile(str(f)) == ["localhost", "127.0.0.1"]
    assert placement_from_args(None, 1, None, str(f), None).nranks == 2


@pytest.mark.parametrize("args, message", [
    ((3, 1, "localhost,127.0.0.1", None, None), "--nodes 3: only 2 host"),
    ((1, 0, "localhost", None, None), "--ppn 0: need at least 1"),
    ((0, 1, "localhost", None, None), "--nodes 0"),
    ((2, None, None, None, None), "--nodes/--ppn need the nodes"),
    ((None, 2, "localhost,127.0.0.1", None, 3), "--np 3 is not --nodes 2 x --ppn 2"),
    ((None, None, "localhost,127.0.0.1", None, 3), "does not split evenly"),
    ((None, 1, "localhost,localhost", None, None), "listed twice"),
    ((None, 1, "localhost", "f", None), "give one of them"),
    ((None, 1, "no-such-host.invalid", None, None), "host no-such-host.invalid does not resolve"),
    ((None, 1, None, "/nonexistent/hostfile", None), "--hostfile /nonexistent/hostfile"),
])
def test_bad_requests_are_usage_errors(args, message):
    with pytest.raises(UsageError, match=message):
        placement_from_args(*args)


def test_launchers_build_host_lists(monkeypatch):
    monkeypatch.delenv(VCLUSTER_NODE_ENV, raising=False)
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    place = Placement(("n1", "n2"), 2)
    o = OpenMPILauncher("/usr/bin/mpirun", "mpirun (Open MPI) 4.1.4", cores=2)
    env = {}
    cmd, notes = launch_command(o, place, 4, ["b"], "core", env)
    assert cmd == ["/usr/bin/mpirun", "--host", "n1:2,n2:2", "--bind-to", "core", "-np", "4", "b"]
    assert "mpi_yield_when_idle" not in cmd                     # a core each: waits spin
    assert not notes and env == {}
    m = MPICHLauncher("/usr/bin/mpiexec", "HYDRA", cores=2)
    cmd, _ = launch_command(m, place, 2, ["b"], "core", {})
    assert cmd == ["/usr/bin/mpiexec", "-n", "2", "-hosts", "n1:2", "-bind-to", "core", "b"]
    # 4 ranks per node on 2 cores: oversubscribed per node, whatever the total
    env = {}
    cmd, notes = launch_command(o, Placement(("n1", "n2"), 4), 8, ["b"], "core", env)
    assert env["HPCEVAL_OVERSUBSCRIBED"] == "1" and "--oversubscribe" in cmd
    # ranks that share a core yield it while they wait (Open MPI counts the given slots, 4)
    assert cmd[cmd.index("mpi_yield_when_idle") - 1:][:2] == ["--mca", "mpi_yield_when_idle"]
    assert notes == ["4 ranks on 2 cores per node: oversubscribed, timings are disturbed"]
    cmd, notes = launch_command(o, None, 3, ["b"], "core", {})
    assert notes == ["3 ranks on 2 cores: oversubscribed, timings are disturbed"]


def test_virtual_cluster_binding_only_across_its_nodes(monkeypatch):
    monkeypatch.delenv(VCLUSTER_NODE_ENV, raising=False)
    assert binding("core", [("n1", 1), ("n2", 1)]) == ("core", None)   # a real cluster
    monkeypatch.setenv(VCLUSTER_NODE_ENV, "node1")
    assert binding("core", [("n1", 2)]) == ("core", None)              # one node: no collision
    bind, note = binding("core", [("n1", 1), ("n2", 1)])
    assert bind == "none" and "virtual cluster" in note


def test_srun_cannot_take_hosts():
    s = SrunLauncher("/usr/bin/srun", "slurm 22.05", cores=2)
    with pytest.raises(UsageError, match="srun cannot be given hosts"):
        check_plan(s, Placement(("a",), 1), [1])
    check_plan(s, None, [8])


def test_records_say_where_they_ran():
    recs = [{"params": {"ranks": "0-2"}}, {"params": {"ranks": "ring/4"}}]
    tag_records(recs, {"hosts": ["a", "a", "b", "b"], "cpus": [0, 0, 1, 1]}, False)
    assert recs[0]["where"] == {"nodes": ["a", "b"], "placement": "real",
                                "pair_hosts": ["a", "b"], "pair_cpus": [0, 1]}
    assert recs[1]["where"] == {"nodes": ["a", "b"], "placement": "real"}
    tag_records(recs, {"hosts": ["a", "a"], "cpus": [0, 1]}, True)
    assert recs[1]["where"]["placement"] == "emulated"
    assert emulates_nodes(["--ranks-per-node", "2"]) and not emulates_nodes(["--ranks-per-node", "0"])


# -- sizes bounded before anything of their size is built (#44) -----------------------------
def test_a_million_hosts_are_checked_for_duplicates_in_linear_time():
    """names.count per name took 5.2 s at 10^4 hosts, 25.8 s at 2x10^4, minutes at 10^5."""
    import time
    from hpceval.runner.placement import first_duplicate
    names = [f"n{i}" for i in range(1_000_000)]
    start = time.monotonic()
    assert first_duplicate(names) is None
    assert first_duplicate(names + ["n999999", "n5"]) == "n5"
    assert time.monotonic() - start < 20


def test_a_hostfile_of_a_million_hosts_reads_and_checks_in_seconds(tmp_path):
    import time
    f = tmp_path / "hosts"
    f.write_text("".join(f"node{i}.example.org slots=4\n" for i in range(1_000_000)))
    start = time.monotonic()
    place = placement_from_args(None, 16, None, str(f), None, plan_only=True)
    assert place.nranks == 16_000_000 and place.hosts[-1] == "node999999.example.org"
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("args, message", [
    ((None, 100_001, "localhost", None, None), "100,001 ranks per node is more than the 100,000"),
    ((1_000_001, 1, None, None, None), "1,000,001 nodes is more than the 1,000,000 allowed"),
    ((1_000_000, 17, None, None, None), "17,000,000 ranks is more than the 16,777,216 allowed"),
    ((None, None, None, None, 1 << 24 | 1), "16,777,217 ranks is more than the 16,777,216"),
    ((None, 1, "localhost,bad host", None, None), "--hosts: item 2 is not a host name"),
])
def test_counts_refused_before_a_host_list_is_built(args, message):
    with pytest.raises(UsageError, match=message):
        placement_from_args(*args, plan_only=True)


def test_many_hosts_times_ppn_is_within_the_rank_cap(tmp_path):
    f = tmp_path / "hosts"
    f.write_text("".join(f"n{i}\n" for i in range(200_000)))
    with pytest.raises(UsageError, match="200,000 hosts x --ppn 100: 200,000 nodes x 100 ranks"):
        placement_from_args(None, 100, None, str(f), None, plan_only=True)


@pytest.mark.parametrize("line, ok", [
    ("node1", True), ("node-1.cluster.example.org", True), ("127.0.0.1 slots=8", True),
    ("::1", True), ("fe80::1 max_slots=4", True), ("n_1 slots=1 max_slots=2", True),
    ("root:x:0:0:root:/root:/bin/bash", False), ("node1:4", False), ("-node", False),
    ("node1 slots=four", False), ("node1 cpus=4", False), ("a" * 64, False),
    ("n\u00f6de", False), ("node1 slots=-1", False),
])
def test_hostfile_line_grammar(tmp_path, line, ok):
    f = tmp_path / "hosts"
    f.write_text(f"# header\n{line}\n")
    if ok:
        assert read_hostfile(str(f)) == [line.split()[0]]
        return
    with pytest.raises(UsageError) as info:
        read_hostfile(str(f))
    said = str(info.value).split(str(f), 1)[1]
    assert said.startswith(": line 2 is not a host name") and line.split()[-1] not in said


def test_slots_beyond_a_node_are_refused(tmp_path):
    f = tmp_path / "hosts"
    f.write_text("node1 slots=100001\n")
    with pytest.raises(UsageError, match="line 1: slots=100001: 100,001 slots is more than the "
                                         "100,000 allowed"):
        read_hostfile(str(f))


def test_slots_without_building_them():
    p = Placement(tuple(f"n{i}" for i in range(1_000_000)), 16)
    p.check(16_000_000)
    assert p.slots(35) == [("n0", 16), ("n1", 16), ("n2", 3)]
    with pytest.raises(UsageError, match="16000001 ranks does not fit"):
        p.check(16_000_001)


def test_a_launch_with_fewer_ranks_a_node_spreads_over_as_many_nodes(monkeypatch, tmp_path):
    # a rung its rank rule placed so (LaunchSpec.ppn): 128 ranks as 2 nodes x 64, not 100 + 28
    monkeypatch.delenv(VCLUSTER_NODE_ENV, raising=False)
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    place = Placement(("n1", "n2", "n3"), 100)
    assert place.slots(128, 64) == [("n1", 64), ("n2", 64)] and place.slots(128) == [
        ("n1", 100), ("n2", 28)]
    with pytest.raises(UsageError, match="256 ranks does not fit 3 nodes x 64"):
        place.check(256, 64)
    o = OpenMPILauncher("/usr/bin/mpirun", "mpirun (Open MPI) 4.1.4", cores=100)
    cmd, _ = launch_command(o, place, 128, ["b"], "core", {}, ppn=64)
    assert cmd[:3] == ["/usr/bin/mpirun", "--host", "n1:64,n2:64"]
    # simulated: smpirun places ranks by its hostfile, one of 64 lines a host
    from hpceval.launch.smpi import SMPILauncher
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("".join(f"h{i}\n" * 100 for i in range(3)))
    (tmp_path / "simulation.json").write_text(json.dumps({
        "name": "t", "nodes": 3, "ppn": 100, "hostfile": str(hosts), "cfg": [],
        "platform_file": str(tmp_path / "platform.xml")}))
    monkeypatch.setenv("HPCEVAL_SIMULATION", str(tmp_path))
    s = SMPILauncher("smpirun", "SimGrid 3.35", cores=2)
    sim = Placement(("h0", "h1", "h2"), 100)
    cmd, _ = launch_command(s, sim, 128, ["b"], "core", {}, ppn=64)
    fewer = cmd[cmd.index("-hostfile") + 1]
    assert fewer == str(tmp_path / "hosts-64.txt")
    assert (tmp_path / "hosts-64.txt").read_text() == "".join(f"h{i}\n" * 64 for i in range(3))
    cmd, _ = launch_command(s, sim, 200, ["b"], "core", {})
    assert cmd[cmd.index("-hostfile") + 1] == str(hosts)
