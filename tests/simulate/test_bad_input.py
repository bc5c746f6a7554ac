"""Bad input for a simulated run: one line, exit 2, before anything runs (no database)."""
import os
import shutil

import pytest

from helpers import ROOT, one_line_error

GOOD = "nodes=4,ppn=2,latency=1.5us,bandwidth=10GBps"


@pytest.mark.parametrize("desc,message", [
    ("nodes=0,ppn=2", "nodes=0: expected a whole number from 1"),
    ("nodes=4,latency=-1us", "latency=-1us: must be positive"),
    ("nodes=4,bandwidth=0GBps", "bandwidth=0GBps: must be positive"),
    ("nodes=4,latency=fast", "latency=fast: expected a number with a unit"),
    ("nodes=4,bandwidth=3parsecs", "expected a number with a unit"),
    ("ppn=4", "nodes=N is required"),
    ("nodes=4,topology=ring", "topology=ring: expected one of flat, fat-tree, torus, dragonfly"),
    ("nodes=4,colour=blue", "colour: unknown"),
    ("nodes=4,nodes=5", "nodes: given twice"),
    ("nodes=4,,ppn=2", "expected NAME=VALUE"),
    ("nodes=4,ppn=0", "ppn=0: expected a whole number"),
    ("nodes=4,compute=some", "compute=some: expected one of charged, none"),
    ("nodes=4,eager=0KiB", "eager=0KiB: must be positive"),
    ("nodes=4,eager=1.5", "eager=1.5: expected a whole number of bytes"),
    ("nodes=4,handshake=-1", "handshake=-1: expected a whole number from 0 to 16"),
    ("nodes=4,handshake=2,model=smpi", "handshake=2: needs model=ideal"),
    ("nodes=4,backbone=0GBps", "backbone=0GBps: must be positive"),
    ("nodes=4,backbone=wide", "backbone=wide: expected a number with a unit"),
    ("nodes=4,backbone=10GBps,topology=torus", "backbone: needs topology=flat"),
])
def test_bad_description(sim, desc, message):
    p = sim("run", "pingpong", "--simulate", desc)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in one_line_error(p.stderr)
    assert not sim.db.exists()


def test_more_ranks_than_hosts(sim):
    p = sim("run", "pingpong", "--simulate", GOOD, "--np", "9")
    assert p.returncode == 2 and "4 hosts x 2 ranks per host = 8 ranks" in one_line_error(p.stderr)
    p = sim("run", "pingpong", "--simulate", GOOD, "--np", "3")
    assert p.returncode == 2 and "not a whole number of simulated hosts" in one_line_error(p.stderr)
    assert not sim.db.exists()


def test_platform_simgrid_rejects(sim, tmp_path):
    bad = tmp_path / "bad.xml"         # well-formed XML, but no speed SimGrid can read
    bad.write_text("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                   "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                   "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"fast\" "
                   "bw=\"1GBps\" lat=\"1us\"/>\n</platform>\n")
    p = sim("run", "pingpong", "--platform", str(bad))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "SimGrid rejects platform" in one_line_error(p.stderr)
    broken = tmp_path / "broken.xml"
    broken.write_text("<platform version=\"4.1\"><cluster")
    p = sim("run", "pingpong", "--platform", str(broken))
    assert p.returncode == 2 and "not a SimGrid platform file" in one_line_error(p.stderr)
    p = sim("run", "pingpong", "--platform", str(tmp_path / "none.xml"))
    assert p.returncode == 2 and "none.xml" in one_line_error(p.stderr)
    assert not sim.db.exists()


def test_conflicting_options(sim):
    for extra, message in ((["--hosts", "a,b"], "no --hosts or --hostfile"),
                           (["--launcher", "mpirun"], "launched by smpirun"),
                           (["--platform", "x.xml"], "give one of them"),
                           (["--ppn", "2"], "give nodes= and ppn= there")):
        p = sim("run", "pingpong", "--simulate", GOOD, *extra)
        assert p.returncode == 2 and message in one_line_error(p.stderr), (extra, p.stderr)


def test_smpirun_missing(sim, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(shutil.which("python3") or "/usr/bin/python3", bindir / "python3")
    p = sim("run", "pingpong", "--simulate", GOOD, env={"PATH": str(bindir)})
    assert p.returncode == 2 and "smpirun not found" in one_line_error(p.stderr)


def test_smpi_build_missing(sim):
    p = sim("run", "pingpong", "--simulate", GOOD,
            env={"HPCEVAL_BINDIR": str(ROOT / "build" / "bin")})
    assert p.returncode == 2
    assert "is not an SMPI build" in one_line_error(p.stderr)
    assert not sim.db.exists()


def test_smpi_build_without_simulation(sim):
    p = sim("run", "pingpong", "--np", "2")
    assert p.returncode == 2 and "give --simulate or --platform" in one_line_error(p.stderr)


def test_smpicc_missing(sim, tmp_path):
    p = sim("build", "--name", "smpi-x", "--mpicc", str(tmp_path / "smpicc"))
    assert p.returncode == 2 and "install libsimgrid-dev" in one_line_error(p.stderr)


def test_dry_run_plans_for_the_simulated_allocation(sim):
    p = sim("run", "pingpong", "distance", "--dry-run", "--simulate", "nodes=64,ppn=4")
    assert p.returncode == 0, p.stderr
    # the distance map spans the allocation; a ping-pong needs two nodes at most (pair_ranks)
    assert "distance np=256" in p.stdout and "pingpong np=8" in p.stdout


# -- sizes bounded before hosts are named (#44) -------------------------------------------
def test_platform_hosts_counted_before_they_are_named():
    """A radical of 10^9 hosts is counted, not expanded (it took GBs); core= is capped."""
    from hpceval.errors import UsageError
    from hpceval.simulate.platform import hosts_of, radical_count
    assert radical_count("0-3,7,9-10") == 7 and radical_count("5-2") == 0
    big = '<platform version="4.1"><cluster id="c" prefix="n" radical="0-999999999" core="2"/></platform>'
    with pytest.raises(UsageError, match="1,000,000,000 hosts is more than the 1,000,000 allowed"):
        hosts_of(big)
    cores = big.replace("0-999999999", "0-3").replace('core="2"', 'core="100001"')
    with pytest.raises(UsageError, match="core=100001: 100,001 cores per host is more than"):
        hosts_of(cores)
    hosts, core = hosts_of(big.replace("0-999999999", "0-2,7"))
    assert hosts == ["n0", "n1", "n2", "n7"] and core == 2


@pytest.mark.parametrize("desc,message", [
    ("nodes=16385,ppn=1024", "16,778,240 ranks is more than the 16,777,216 allowed"),
    ("nodes=1000001", "nodes=1000001: expected a whole number from 1 to 1000000"),
])
def test_descriptions_within_the_rank_cap(desc, message):
    from hpceval.errors import UsageError
    from hpceval.simulate.platform import parse_description
    with pytest.raises(UsageError, match=message):
        parse_description(desc)
    assert parse_description("nodes=16384,ppn=1024").nodes == 16384      # at the cap


def test_a_million_nodes_factor_in_milliseconds():
    import time
    from hpceval.simulate.topology import factors
    start = time.monotonic()
    assert factors(1_000_000, 3) == [100, 100, 100] and factors(999_983, 2) == [999_983, 1]
    assert factors(1 << 20, 4) == [32, 32, 32, 32] and factors(12, 3) == [3, 2, 2]
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("desc, params", [
    ("nodes=64,topology=fat-tree,shape=16:4", "2;16,4;1,4;1,1"),     # 4 leaves, 4 up-links each
    ("nodes=64,topology=fat-tree,shape=16", "2;16,4;1,16;1,1"),      # non-blocking
    ("nodes=64,topology=torus,shape=4x4", "4,4,4"),
    ("nodes=96,topology=torus,shape=8", "8,12"),
    ("nodes=64,topology=dragonfly,shape=2x2x4", "4,1;2,1;2,1;4"),
])
def test_a_shape_fixes_the_unit_and_grows_with_the_nodes(desc, params):
    from hpceval.simulate.platform import parse_description
    from hpceval.simulate.topology import platform_xml
    assert f'topo_parameters="{params}"' in platform_xml(parse_description(desc))


@pytest.mark.parametrize("desc, message", [
    ("nodes=60,topology=fat-tree,shape=16:4", "60 nodes are not a whole number of the "
                                              "fat-tree's units of 16 nodes"),
    ("nodes=64,shape=4", "topology=flat takes no shape"),
    ("nodes=64,topology=torus,shape=4:4", "a torus takes AxB"),
    ("nodes=64,topology=fat-tree,shape=4:8", "up-links at most the leaf's nodes"),
    ("nodes=64,topology=dragonfly,shape=0x2x4", "positive numbers"),
])
def test_bad_shape(desc, message):
    from hpceval.errors import UsageError
    from hpceval.simulate.platform import parse_description
    with pytest.raises(UsageError, match=message):
        parse_description(desc)
