"""HTML report: figures, headline values, escaping, self-containment, figure files.

Runs are synthetic but shaped exactly like `hpceval export --format json` (docs/export.md),
with plausible values: a 12 GB/s interconnect, a 32K/1M/32M cache hierarchy, STREAM to 16 threads.
"""
import re

import pytest

from hpceval.report import FIGURES as ALL_FIGURES, render_report, write_report

# Other areas register figures of their own benchmarks; these runs hold the skeleton's only
# (and no per-home sweep: those figures are drawn in tests/mem/test_numa.py).
FIGURES = [s for s in ALL_FIGURES if s.benchmark in ("pingpong", "mem-latency", "stream")
           and "per memory home" not in s.title]

EVIL = "<script>alert(1)</script>"
CACHES = [{"level": 1, "type": "Data", "size_bytes": 32 << 10, "line_bytes": 64, "shared_by_cpus": 2},
          {"level": 1, "type": "Instruction", "size_bytes": 32 << 10, "line_bytes": 64, "shared_by_cpus": 2},
          {"level": 2, "type": "Unified", "size_bytes": 1 << 20, "line_bytes": 64, "shared_by_cpus": 2},
          {"level": 3, "type": "Unified", "size_bytes": 32 << 20, "line_bytes": 64, "shared_by_cpus": 16}]


def rec(bench, params, metric, unit, v, statistic="median", better="lower", converged=True):
    # Samples spread a few per cent around v; the CI of the median is tight around it.
    stats = {"n": 40, "min": v * 0.97, "median": v, "mean": v * 1.01, "max": v * 1.08,
             "stddev": v * 0.02, "ci_low": v * 0.995, "ci_high": v * 1.006}
    if statistic == "max":  # STREAM reports the best rate; v is that best rate
        stats = {k: (x / 1.08 if k not in ("n", "max") else x) for k, x in stats.items()}
        stats["max"] = v
    return {"benchmark": bench, "params": params, "metric": metric, "unit": unit,
            "statistic": statistic, "better": better, "converged": converged, "stats": stats}


def pp_latency(b):  # microseconds
    return 0.22 + b / 12_000


def mem_latency(b):  # nanoseconds
    return 1.2 if b <= 32 << 10 else 4.1 if b <= 1 << 20 else 14.5 if b <= 32 << 20 else 92.0


def triad(t):  # GB/s
    return min(11.5 * t ** 0.8, 88.0)


def make_run(rid, host, tags, stream=True, unconverged_at=None, failed=False):
    records = []
    for b in [0] + [1 << k for k in range(23)]:
        conv = b != unconverged_at
        records.append(rec("pingpong", {"bytes": b, "ranks": "0-1"}, "latency", "us", pp_latency(b),
                           converged=conv))
        records.append(rec("pingpong", {"bytes": b, "ranks": "0-1"}, "bandwidth", "MB/s",
                           b / pp_latency(b), better="higher", converged=conv))
    for k in range(12, 30):
        records.append(rec("mem-latency", {"bytes": 1 << k, "stride": 64, "order": "random"},
                           "latency", "ns", mem_latency(1 << k)))
    if stream:
        for t in (1, 2, 4, 8, 16):
            for kernel, f in (("copy", 1.1), ("scale", 1.05), ("add", 0.98), ("triad", 1.0)):
                records.append(rec("stream", {"kernel": kernel, "threads": t, "array_bytes": 1 << 28},
                                   "bandwidth", "GB/s", triad(t) * f, statistic="max", better="higher"))
    launches = [{"benchmark": b, "command": f"mpirun -np 2 build/bin/hpceval-{b} --json", "status": "ok",
                 "exit_code": 0, "elapsed_s": 4.1, "message": None,
                 "meta": {"hosts": [host, "n099"], "nranks": 2}}
                for b in ("pingpong", "mem-latency") + (("stream",) if stream else ())]
    if failed:
        launches.append({"benchmark": "osu-allreduce", "command": "mpirun -np 2 hpceval-allreduce",
                         "status": "failed", "exit_code": 1, "elapsed_s": 0.3,
                         "message": "check failed: wrong sum", "meta": None})
    return {
        "export_version": 1, "id": rid, "uuid": f"uuid-{rid}", "suite": "quick",
        "started": "2026-11-21T23:40:01+00:00", "finished": "2026-11-21T23:41:02+00:00",
        "status": "failed" if failed else "ok", "tags": tags,
        "fingerprint": {
            "hash": "ab" * 32, "hostname": host, "arch": "x86_64", "cpu_model": "AMD EPYC 7543",
            "sockets": 2, "cores": 64, "threads": 128, "numa_nodes": 8, "caches": CACHES,
            "memory_bytes": 512 << 30, "os": "Debian GNU/Linux 12 (bookworm)", "kernel": "6.1.0-26-amd64",
            "mpi": {"launcher": "mpirun", "flavour": "openmpi", "version": "Open MPI 4.1.4"},
            "compiler": {"cc": "mpicc", "version": "gcc 12.2.0", "cflags": "-O3 -march=native"},
            "environment": {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}, "thp": "always",
        },
        "launches": launches,
        "records": records,
    }


# Module scope: rendering draws every figure, and the tests only read the results.
@pytest.fixture(scope="module")
def full():
    return make_run(3, "n001", ["baseline"])


@pytest.fixture(scope="module")
def evil():
    return make_run(4, EVIL, [EVIL, "after-upgrade"], stream=False, unconverged_at=64, failed=True)


@pytest.fixture(scope="module")
def both(full, evil):
    return render_report([full, evil])


def test_every_figure_is_inline_svg(full):
    html = render_report([full])
    assert html.count("<svg") == len(FIGURES)
    for spec in FIGURES:
        assert spec.title in html
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html


def test_headline_values(full):
    html = render_report([full], title="Test machine")
    assert "<title>Test machine</title>" in html
    expected = [f"{pp_latency(8):.4g}", f"{(1 << 20) / pp_latency(1 << 20):,.0f}",
                f"{mem_latency(16 << 10):.4g}", f"{mem_latency(1 << 20):.4g}",
                f"{mem_latency(1 << 29):.4g}", f"{triad(1):.4g}", f"{triad(16):.4g}"]
    headline = html.split('id="run-1-headline">', 1)[1].split("</table>", 1)[0]
    for value in expected:
        assert f"<strong>{value}</strong>" in headline
    assert "STREAM triad best, 16 threads" in headline
    assert headline.count("<tr") == 1 + len(expected)


def test_machine_strings_are_escaped(both):
    html = both
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.lower()


def test_no_external_resources(both):
    html = both
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "@import" not in html and "url(http" not in html


def test_element_ids_are_unique(both):
    ids = re.findall(r'\sid="([^"]+)"', both)
    assert len(ids) == len(set(ids))


def test_run_without_stream_has_no_stream_figure(evil):
    html = render_report([evil])
    stream = next(s for s in FIGURES if s.benchmark == "stream")
    assert stream.title not in html
    assert html.count("<svg") == len(FIGURES) - 1
    assert "STREAM triad" not in html


def test_failures_and_unconverged_points_are_flagged(evil):
    html = render_report([evil])
    assert 'class="fail"' in html and "check failed: wrong sum" in html
    assert "1 of 3 launches did not succeed" in html
    assert html.count('<tr class="flag">') == 2  # latency and bandwidth at 64 B


def test_comparison_only_for_shared_benchmarks(both):
    comparison = both.split('<section id="comparison">', 1)[1].split("</section>", 1)[0]
    overlays = comparison.split('id="comparison-summary"', 1)[1]
    # only one run has STREAM; plus the normalised headline bars
    assert comparison.count("<svg") == len(FIGURES) - 1 + 1
    assert "Headline figures normalised by the best run" in overlays


def test_no_runs():
    assert "No runs to report." in render_report([])


def test_write_report_with_figure_dir(tmp_path, full):
    written = write_report([full], tmp_path / "report.html", figure_dir=tmp_path / "fig")
    assert written[0] == tmp_path / "report.html"
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    svgs = sorted(p.name for p in (tmp_path / "fig").glob("*.svg"))
    pngs = sorted((tmp_path / "fig").glob("*.png"))
    assert svgs == sorted(f"run3-{s.make.__name__}.svg" for s in FIGURES)
    assert len(pngs) == len(FIGURES)
    assert not list((tmp_path / "fig").glob("*.pdf"))
    written = write_report([full], tmp_path / "r2.html", figure_dir=tmp_path / "pdf", pdf=True)
    pdfs = sorted((tmp_path / "pdf").glob("*.pdf"))
    assert len(pdfs) == len(FIGURES) and all(p.read_bytes().startswith(b"%PDF") for p in pdfs)
    assert set(pdfs) <= set(written)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_registered_tables_render_escaped_in_their_section():
    from hpceval.report import TABLES, Table, TableSpec, register_table, render_report
    spec = register_table(TableSpec("Memory", "Detected levels", lambda run: Table(
        ["level", "size"], [["L1", "<b>32 KiB</b>"]], "a note")))
    try:
        html = render_report([{"id": 1, "records": [], "launches": [], "fingerprint": {}}])
    finally:
        TABLES.remove(spec)
    assert "Detected levels" in html and "&lt;b&gt;32 KiB&lt;/b&gt;" in html and "a note" in html
