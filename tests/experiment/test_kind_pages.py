"""hpceval experiment pages: base, transparent huge and explicit huge pages for any benchmark
(glibc's malloc tunable), or its own `pages` parameter where it has one; a note when no
explicit huge pages are reserved."""
from pathlib import Path

from helpers_experiment import QUICK, SST, assert_interleaved, assert_refused

from hpceval.catalog import PlanContext
from hpceval.experiment import Setup
from hpceval.experiment.kind_pages import page_notes
from hpceval.experiment.plan import plan_variants


def _reserved() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("HugePages_Total:"):
            return int(line.split()[1])
    return 0


def test_pages_of_a_kernel_run_interleaved(cli, bindir):
    p = cli("experiment", "pages", "sst", *QUICK, *SST)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok"
    assert_interleaved(run, ["base", "thp", "huge"], 4)
    tunables = [l["env"]["GLIBC_TUNABLES"] for l in run["launches"][:3]]
    assert tunables == [f"glibc.malloc.hugetlb={k}" for k in (0, 1, 2)]
    notes = run["settings"]["experiment"]["notes"]
    if _reserved() == 0:
        assert any("no explicit huge pages are reserved" in n for n in notes)
        assert "no explicit huge pages are reserved" in p.stdout
    else:
        assert not any("reserved" in n for n in notes)


def test_a_benchmark_with_its_own_pages_parameter_is_given_it():
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    setup = Setup("mem-latency", ["sizes=16K"], ctx, launcher=None)
    variants = plan_variants("pages", "base,huge", setup)
    for v in variants:
        spec = v.groups[0][0]
        assert spec.args[spec.args.index("--pages") + 1] == v.name
        assert "GLIBC_TUNABLES" not in spec.env
    assert page_notes(["thp"]) == [] or "THP" in page_notes(["thp"])[0]


def test_unknown_page_kind_is_refused(cli, bindir):
    assert_refused(cli, "pages", "sst", "--variants", "base,gigantic", says="unknown page kind")
