"""Adding a benchmark touches its own two files only (docs/architecture.md): a C file dropped
into an area directory of a copy of csrc/ builds with no Makefile edit, links only what it uses
(ldd: no FFTW, no OpenBLAS, as the real ping-pong), and `hpceval run` runs it from one catalog
module named in HPCEVAL_CATALOG_PATH."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers import CLI, ROOT

TOY_C = r'''/* toy_barrier.c - MPI_Barrier time: the smallest benchmark the harness makes. */
#include "batch.h"
#include "harness.h"

static hpc_option options[] = {{0}};

static void params(hpc_json *r, const void *ctx)
{
    (void)ctx;
    hpc_json_str(r, "op", "barrier");
}

static double sample(long k)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    for (long i = 0; i < k; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    return hpc_now() - t0;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "toy-barrier", "MPI_Barrier time.", options, MPI_THREAD_SINGLE);
    hpc_begin(1, NULL);
    hpc_batch b;
    hpc_batch_init(&b, hpc_batch_tick_target(), 1L << 20, 1, MPI_COMM_WORLD);
    while (hpc_batch_add_coll(&b, sample(b.k)))
        ;
    hpc_point pt = {params, NULL, "barriers_per_sample", NULL};
    hpc_batch_emit(&pt, "latency", "us", "lower", &b, 1e6, 0, 0);
    hpc_batch_free(&b);
    hpc_finish();
    return 0;
}
'''

TOY_PY = '''"""toy-barrier: one launch of the toy binary."""
from hpceval.catalog.common import launch_timeout, repetition_args
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, LaunchSpec, register_benchmark


def _plan(b, v, ctx):
    return [LaunchSpec(b.name, "toy-barrier np=2", "toy-barrier", repetition_args(b, v), 2,
                       "core", expected_results=1, timeout_s=launch_timeout(v, 1))]


# its parameters: the harness's common options, read from the build's table (the snapshot
# has no toy-barrier)
register_benchmark(Benchmark("toy-barrier", "communication", "MPI_Barrier time",
                             options("toy-barrier", ""), _plan, ranks="2"))
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("newbench")
    shutil.copytree(ROOT / "csrc", d / "csrc")
    (d / "csrc" / "comm" / "toy_barrier.c").write_text(TOY_C)
    build = d / "build"
    p = subprocess.run(["make", "-s", "-C", str(d / "csrc"), f"BUILD={build}",
                        f"{build}/bin/hpceval-toy-barrier", f"{build}/bin/hpceval-pingpong",
                        f"{build}/bin/hpceval-toy-barrier.options.json",
                        f"{build}/bin/buildinfo.json"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert (d / "csrc" / "Makefile").read_bytes() == (ROOT / "csrc" / "Makefile").read_bytes()
    return d, build / "bin"


def test_linked_with_what_it_uses(built):
    _, bindir = built
    for name in ("toy-barrier", "pingpong"):
        libs = subprocess.run(["ldd", str(bindir / f"hpceval-{name}")], capture_output=True,
                              text=True).stdout
        assert "libmpi" in libs and "fftw" not in libs and "openblas" not in libs, libs


def test_run_from_one_catalog_module(built):
    d, bindir = built
    (d / "catalog").mkdir()
    (d / "catalog" / "bench_toy_barrier.py").write_text(TOY_PY)
    cli = CLI(d / "r.sqlite")
    env = {"HPCEVAL_CATALOG_PATH": str(d / "catalog"), "HPCEVAL_BINDIR": str(bindir)}
    p = cli("run", "toy-barrier", "--set", "budget=0.05", "--no-remeasure", "--llc",
            "reported", env=env)
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    [rec] = run["records"]
    assert (rec["benchmark"], rec["metric"], rec["params"]) == ("toy-barrier", "latency",
                                                                 {"op": "barrier"})
    assert rec["stats"]["median"] > 0 and rec["extra"]["barriers_per_sample"] >= 1
