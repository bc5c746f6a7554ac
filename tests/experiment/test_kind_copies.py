"""hpceval experiment copies: k simultaneous one-rank copies of a serial kernel, each on a CPU
of its own; per-copy rate vs k; more copies than CPUs, or a kernel that is not serial, refused."""
import os

from helpers_experiment import QUICK, assert_interleaved, assert_refused, tags

from hpceval.experiment.analysis import compare

COLUMN = ["--set", "nlons=8", "--set", "ncols=16"]


def test_copies_of_a_serial_kernel_run_at_once(cli, bindir, tmp_path):
    p = cli("experiment", "copies", "column", "--variants", "1,2", *QUICK, *COLUMN,
            "--figures", str(tmp_path))
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok"
    assert_interleaved(run, ["1", "2"], 4)
    two = [t for t in tags(run) if t["variant"] == "2"]
    assert sorted({t["copy"] for t in two}) == [1, 2] and all(t["copies"] == 2 for t in two)
    assert all(0 <= t["overlap"] <= 1 for t in two)
    # each copy its own one-rank launch on a CPU of its own
    launches = [l for l in run["launches"] if "copy" in l["label"] and "/2" in l["label"]]
    assert all(l["nranks"] == 1 for l in launches)
    assert {tuple(l["meta"]["cpus"]) for l in launches} == {(0,), (1,)}
    # the per-copy rates: every copy of every round is a sample
    assert {r.n for r in compare(run) if r.variant == "2"} == {8}
    assert (tmp_path / f"run{run['id']}-experiment_figure.png").is_file()


def test_more_copies_than_cpus_or_a_parallel_benchmark_is_refused(cli, bindir):
    too_many = str(len(os.sched_getaffinity(0)) + 1)
    assert_refused(cli, "copies", "column", "--variants", f"1,{too_many}",
                   says="--oversubscribe")
    assert_refused(cli, "copies", "pingpong", says="copies: pingpong cannot run as one rank")
    assert_refused(cli, "compilers", "column", says="unknown experiment kind 'compilers'")
    assert_refused(cli, "copies", "column", "--variants", "1", says="at least two variants")
    assert_refused(cli, "copies", "nosuch", says="unknown benchmark 'nosuch'")
