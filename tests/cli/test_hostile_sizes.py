"""Sizes and counts bounded before planning (#44): ranks (nodes x ranks per node, --np, a
benchmark's rank list), hosts read, message sizes. Every probe is refused with one line naming
the limit and the value, exit 2, the database byte-identical, and quickly: each runs under a
1.5 GB address-space limit, so a planner that grows with the ranks again fails with
MemoryError (exit 1) instead of eating the machine."""
from __future__ import annotations

import sys
import time

import pytest

AS_LIMIT = 3 << 29       # 1.5 GiB: the refused requests used to take 3-4 GB
FAST_S = 20.0            # each refusal takes well under a second; generous under any load

# `python -c` running hpceval under the address-space limit (preexec_fn is not the probe's)
CONFINED = ("import resource, runpy; "
            f"resource.setrlimit(resource.RLIMIT_AS, ({AS_LIMIT}, {AS_LIMIT})); "
            "runpy.run_module('hpceval', run_name='__main__', alter_sys=True)")


@pytest.fixture
def sized(hostile):
    """The hostile probe, confined, and timed: the refusal comes within FAST_S."""
    hostile.cli.argv = lambda: [sys.executable, "-c", CONFINED]

    def probe(*args, message, **kw):
        start = time.monotonic()
        line = hostile(*args, message=message, **kw)
        assert time.monotonic() - start < FAST_S, line
        return line
    probe.tmp = hostile.tmp
    return probe


def hostfile(d, name: str, text: str) -> str:
    path = d / name
    path.write_text(text)
    return str(path)


def platform(d, body: str) -> str:
    return hostfile(d, "p.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
                    f"{body}\n</platform>\n")


CLUSTER = ('<cluster id="c" prefix="n" suffix="" radical="{radical}" speed="1Gf" core="{core}" '
           'bw="1GBps" lat="1us"/>')


# -- the repros ---------------------------------------------------------------------
@pytest.mark.parametrize("args,message", [
    (["pingpong", "--hosts", "localhost", "--ppn", "1000000000"],
     "--ppn 1000000000: 1,000,000,000 ranks per node is more than the 100,000 allowed"),
    (["pingpong", "--dry-run", "--simulate", "nodes=1048576,ppn=1024"],
     "nodes=1048576: expected a whole number from 1 to 1000000"),
    (["pingpong", "--dry-run", "--simulate", "nodes=1000000,ppn=1024"],
     "1,024,000,000 ranks is more than the 16,777,216 allowed"),
    (["study", "--dry-run", "--nodes", "1000000", "--ppn", "1000"],
     "= 1,000,000,000 ranks is more than the 16,777,216 allowed"),
    (["pingpong", "--set", "sizes=1G"], "--set sizes: 1G is out of range [0, 64M]"),
])
def test_repros_are_refused_fast(sized, args, message):
    sized("run", *args, message=message)


@pytest.mark.parametrize("radical,core,message", [
    ("0-999999999", "1", "1,000,000,000 hosts is more than the 1,000,000 allowed"),
    ("0-3", "1000000000", "core=1000000000: 1,000,000,000 cores per host is more than the "
                          "100,000 allowed"),
])
def test_platform_repros(sized, radical, core, message):
    path = platform(sized.tmp, CLUSTER.format(radical=radical, core=core))
    line = sized("run", "pingpong", "--dry-run", "--platform", path, message=message)
    assert line.startswith(f"hpceval: error: --platform {path}: ")


def test_binding_refuses_an_np_its_launches_do_not_run(sized):
    sized("experiment", "binding", "stream", "--np", "2", "--set", "threads=2",
          message="--np 2: no launch of stream runs 2 ranks (its launches run 1)")


def test_hostfile_that_is_not_one_is_not_printed(sized):
    secret = "$6$Zq9Xw$secretHashValue"
    path = hostfile(sized.tmp, "shadow", f"root:{secret}:20228:0:99999:7:::\n"
                                         "daemon:*:20228:0:99999:7:::\n")
    line = sized("run", "pingpong", "--hostfile", path, "--ppn", "1",
                 message=f"--hostfile {path}: line 1 is not a host name [slots=N]")
    said = line.split(path, 1)[1]             # what is said beyond the file's name
    assert "root" not in said and secret not in line and "20228" not in line


def test_a_million_hosts_checked_for_duplicates_in_seconds(sized):
    names = [f"n{i}" for i in range(1, 1_000_000)] + ["n17"]
    path = hostfile(sized.tmp, "hosts", "\n".join(names) + "\n")
    sized("run", "pingpong", "--dry-run", "--hostfile", path, "--ppn", "1",
          message="host n17 is listed twice")


# -- counts at and over the caps -------------------------------------------------------------
@pytest.mark.parametrize("args,message", [
    (["--hosts", "localhost", "--ppn", "100001"],
     "--ppn 100001: 100,001 ranks per node is more than the 100,000 allowed"),
    (["--dry-run", "--nodes", "1000001"],
     "--nodes 1000001: 1,000,001 nodes is more than the 1,000,000 allowed"),
    (["--dry-run", "--nodes", "1000000", "--ppn", "17"],
     "1,000,000 nodes x 17 ranks per node = 17,000,000 ranks is more than the 16,777,216"),
    (["--dry-run", "--nodes", "4096", "--ppn", "4097"], "= 16,781,312 ranks is more than"),
    (["--dry-run", "--nodes", "0"], "--nodes 0: need at least 1 node"),
    (["--hosts", "localhost", "--ppn", "-5"], "--ppn -5: need at least 1 rank per node"),
    (["--nodes", "ten"], "argument --nodes: invalid int value: 'ten'"),
    (["--ppn", "1.5"], "argument --ppn: invalid int value: '1.5'"),
    (["--dry-run", "--np", "16777217"],
     "--np 16777217: 16,777,217 ranks is more than the 16,777,216 allowed"),
    (["--np", "0"], "--np 0: need at least 1 rank"),
    (["--dry-run", "--simulate", "nodes=16385,ppn=1024"],
     "16,385 nodes x 1,024 ranks per node = 16,778,240 ranks is more than the 16,777,216"),
    (["--dry-run", "--simulate", "nodes=4,ppn=1025"], "ppn=1025: expected a whole number from 1 "
                                                      "to 1024"),
    (["--dry-run", "--simulate", "nodes=0"], "nodes=0: expected a whole number from 1"),
    (["--dry-run", "--simulate", "nodes=2", "--np", "99999999999"],
     "99,999,999,999 ranks is more than the 16,777,216 allowed"),
])
def test_counts_over_their_caps(sized, args, message):
    sized("run", "pingpong", *args, message=message)


@pytest.mark.parametrize("bench,value,message", [
    ("pingpong", "67108865", "--set sizes: 67108865 is out of range [0, 64M]"),
    ("p2p", "2G", "--set sizes: 2G is out of range [0, 64M]"),
    ("distance", "8,128M", "128M is out of range [0, 64M]"),
    ("hotspot", "100M", "100M is out of range [1, 64M]"),
    ("random2", "1T", "1T is out of range [0, 64M]"),
    ("eager", "65M", "65M is out of range [0, 64M]"),
    ("loggp", "8,1G", "1G is out of range [0, 64M]"),
])
def test_message_sizes_beyond_what_a_launch_can_time(sized, bench, value, message):
    sized("run", bench, "--dry-run", "--set", f"sizes={value}", message=message)


@pytest.mark.parametrize("bench,value", [("distance", "1000000000"), ("collectives", "2,16777217"),
                                         ("hotspot", "99999999999999999999")])
def test_rank_lists_over_the_cap(sized, bench, value):
    sized("run", bench, "--dry-run", "--set", f"nranks={value}",
          message="ranks is more than the 16,777,216 allowed")


@pytest.mark.parametrize("text,message", [
    ("".join(f"n{i}\n" for i in range(1_000_001)),
     "1,000,001 hosts is more than the 1,000,000 allowed"),
    ("localhost slots=99999999999\n",
     "line 1: slots=99999999999: 99,999,999,999 slots is more than the 100,000 allowed"),
    ("# nodes\nlocalhost slots=4\nlocalhost6 slots=-3\n", "line 3 is not a host name"),
    ("localhost\nnode1:4\n", "line 2 is not a host name"),
    ("h\u00e9llo w\u00f6rld\n", "line 1 is not a host name"),
    ("localhost\n" + "x" * 300 + "\n", "line 2 is not a host name"),
])
def test_hostfiles_bounded_and_checked_line_by_line(sized, text, message):
    path = hostfile(sized.tmp, "hosts", text)
    line = sized("run", "pingpong", "--dry-run", "--hostfile", path, "--ppn", "1",
                 message=message)
    assert "node1:4" not in line and "\u00e9" not in line and "xxxx" not in line


def test_a_host_list_item_is_a_host_name(sized):
    line = sized("run", "pingpong", "--hosts", "localhost,a;rm -rf ~", "--ppn", "1",
                 message="--hosts: item 2 is not a host name")
    assert "rm -rf" not in line


@pytest.mark.parametrize("body,args,message", [
    (CLUSTER.format(radical="0-1000000", core="1"), [],
     "1,000,001 hosts is more than the 1,000,000 allowed"),
    (CLUSTER.format(radical="0-599999", core="1") + "\n"
     + CLUSTER.format(radical="0-599999", core="1").replace('id="c" prefix="n"',
                                                             'id="d" prefix="m"'), [],
     "1,200,000 hosts is more than the 1,000,000 allowed"),
    (CLUSTER.format(radical="0-3", core="100001"), [], "100,001 cores per host is more than"),
    (CLUSTER.format(radical="0-999", core="1"), ["--ppn", "100000"],
     "1,000 nodes x 100,000 ranks per node = 100,000,000 ranks is more than the 16,777,216"),
    (CLUSTER.format(radical="0-3", core="1"), ["--ppn", "100001"],
     "100,001 ranks per node is more than the 100,000 allowed"),
])
def test_platform_files_bounded_before_their_hosts_are_named(sized, body, args, message):
    path = platform(sized.tmp, body)
    sized("run", "pingpong", "--dry-run", "--platform", path, *args, message=message)


@pytest.mark.parametrize("args,message", [
    (["binding", "pingpong", "--np", "16777217"], "16,777,217 ranks is more than the 16,777,216"),
    (["binding", "pingpong", "--np", "-2"], "--np -2: need at least 1 rank"),
    (["binding", "mem-latency", "--np", "2"], "--np 2: no launch of mem-latency runs 2 ranks"),
])
def test_experiment_np_honoured_or_refused(sized, args, message):
    sized("experiment", *args, message=message)


def test_just_under_the_rank_cap_plans_in_seconds(hostile):
    """10^6 nodes x 16 ranks (16,000,000 ranks): the study plans in seconds within the 1.5 GB
    (33 s and 428 MB before: the distance sample listed every rank; 10^5 x 100 took minutes)."""
    hostile.cli.argv = lambda: [sys.executable, "-c", CONFINED]
    start = time.monotonic()
    p = hostile.cli("run", "study", "--dry-run", "--json", "--nodes", "1000000", "--ppn", "16",
                    timeout=120)
    assert p.returncode == 0, p.stderr
    assert '"nodes": 1000000' in p.stdout and time.monotonic() - start < 60
