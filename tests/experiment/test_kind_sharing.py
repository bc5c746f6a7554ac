"""hpceval experiment sharing: J concurrent P-rank jobs filling the node against one job on
every CPU, by the node's combined rate."""
import os

from helpers_experiment import QUICK, assert_interleaved, assert_refused, tags

from hpceval.catalog import PlanContext
from hpceval.experiment import Setup
from hpceval.experiment.analysis import compare
from hpceval.experiment.plan import plan_variants
from hpceval.launch.openmpi import OpenMPILauncher

PSST = ["--set", "truncation=5", "--set", "levels=1", "--set", "days=0.2", "--set",
        "mappings=row", "--set", "transposes=alltoallv", "--set", "sums=allreduce"]


def test_jobs_sharing_the_node_against_one_job(cli, bindir):
    ncpu = len(os.sched_getaffinity(0))
    variants = ["one", "1:block", "1:default"]
    p = cli("experiment", "sharing", "psst", "--variants", ",".join(variants), *QUICK, *PSST)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and run["settings"]["experiment"]["combine"]
    assert_interleaved(run, variants, 4)
    block = [l for l in run["launches"] if l["label"].endswith("block")]
    assert len(block) == 4 * ncpu and all(l["nranks"] == 1 for l in block)
    assert {tuple(l["meta"]["cpus"]) for l in block} == {(c,) for c in range(ncpu)}
    assert {t["copies"] for t in tags(run) if t["variant"] == "1:block"} == {ncpu}
    # one combined sample per round: the jobs' rates summed, the process grid laid aside
    rows = [r for r in compare(run) if r.metric == "sim_days_per_day"]
    assert {r.variant: r.n for r in rows} == {v: 4 for v in variants}
    assert all("P" not in r.point for r in rows)


def test_placements_and_bad_job_sizes(cli, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    ctx = PlanContext(cores=4, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    setup = Setup("barotropic", ["grids=32x32"], ctx, OpenMPILauncher("/usr/bin/mpirun", "4", 4))
    block, inter = plan_variants("sharing", "2:block,2:interleaved", setup)
    assert [s.bind for s in block.groups[0]] == ["cpus:0,1", "cpus:2,3"]
    assert [s.bind for s in inter.groups[0]] == ["cpus:0,2", "cpus:1,3"]
    assert all(s.nranks == 2 for s in block.groups[0])


def test_bad_sharing_variants_are_refused(cli):
    ncpu = len(os.sched_getaffinity(0))
    assert_refused(cli, "sharing", "psst", "--variants", f"one,{ncpu}:block",
                   says="do not fill")
    assert_refused(cli, "sharing", "psst", "--variants", "one,1:scattered",
                   says="unknown sharing variant '1:scattered'")
