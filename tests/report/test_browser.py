"""The report in a real browser: headless Chromium (Debian's `chromium`) loads it with no console
errors under a strict content security policy (nothing may be fetched), every figure renders at a
non-zero size with drawn content, and a screenshot is kept under the test's tmp dir.

Skipped when no chromium is installed, unless HPCEVAL_REQUIRE_BROWSER=1 (as `make test` sets)."""
import json
import os
import re
import shutil
import subprocess

import pytest

from hpceval.report import render_report

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--hide-scrollbars"]
EVIL = "<script>alert(1)</script>"

# Injected into a copy of the report only (the report itself has no scripts): records errors and
# policy violations from the first moment, then measures every figure once the page has loaded.
PROBE = """<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-hpceval-probe'">
<script nonce="hpceval-probe">
window.__errs = [];
addEventListener('error', function (e) { __errs.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || 'resource')); }, true);
addEventListener('securitypolicyviolation', function (e) { __errs.push('csp: ' + e.blockedURI); });
(function () { var ce = console.error; console.error = function () { __errs.push('console.error: ' + [].join.call(arguments, ' ')); ce.apply(console, arguments); }; })();
addEventListener('load', function () {
  var figs = [].map.call(document.querySelectorAll('figure svg'), function (s) {
    var r = s.getBoundingClientRect(); return [r.width, r.height, s.querySelectorAll('path, use').length]; });
  // Drawn content (text is paths) reaching past the figure's own canvas is clipped text.
  var clipped = [].map.call(document.querySelectorAll('figure svg'), function (s, i) {
    var vb = s.viewBox.baseVal, b = s.querySelector('g').getBBox();
    return (b.x < vb.x - 1 || b.y < vb.y - 1 || b.x + b.width > vb.x + vb.width + 1
            || b.y + b.height > vb.y + vb.height + 1) ? i : -1; }).filter(function (i) { return i >= 0; });
  var tops = {};
  ['#glance', '.summary', '.warnings', 'nav.toc', 'section.run', 'figure'].forEach(function (q) {
    var e = document.querySelector(q); tops[q] = e ? e.getBoundingClientRect().top + scrollY : null;
    if (e && q === '.warnings') tops['.warnings bottom'] = e.getBoundingClientRect().bottom + scrollY; });
  var pre = document.createElement('pre'); pre.id = 'hpceval-probe';
  pre.textContent = JSON.stringify({errors: __errs, figures: figs, clipped: clipped, tops: tops, tags: [].map.call(document.querySelectorAll('.tag'), function (t) { return t.textContent; })});
  document.body.appendChild(pre);
});
</script>"""


def _chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("HPCEVAL_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is not installed (make test installs it: scripts/install-deps.sh)")
        pytest.skip("chromium is not installed")
    return exe


def _rec(bench, metric, unit, better, v, **params):
    return {"benchmark": bench, "params": params, "metric": metric, "unit": unit, "statistic": "median",
            "better": better, "converged": True,
            "stats": {"n": 9, "min": v * 0.98, "median": v, "mean": v * 1.01, "max": v * 1.05,
                      "stddev": v * 0.02, "ci_low": v * 0.99, "ci_high": v * 1.01}}


def _run(i, slow, tags, disturbed=None):
    recs = []
    for b in (8, 64, 1024, 65536, 1 << 20):
        lat = (0.2 + b / 10000) * slow
        recs += [_rec("pingpong", "latency", "us", "lower", lat, bytes=b, ranks="0-1"),
                 _rec("pingpong", "bandwidth", "MB/s", "higher", b / lat, bytes=b, ranks="0-1")]
    for b in (4 << 10, 64 << 10, 1 << 20, 64 << 20):
        recs.append(_rec("mem-latency", "latency", "ns", "lower", (1.3 if b < 32 << 10 else 4 if b < 512 << 10
                                                                    else 18 if b < 32 << 20 else 95) * slow,
                         bytes=b, stride=64, order="random"))
    for t in (1, 2):
        for k in ("copy", "scale", "add", "triad"):
            recs.append({**_rec("stream", "bandwidth", "GB/s", "higher", 12.0 * t / slow, kernel=k, threads=t,
                                array_bytes=1 << 27), "statistic": "max"})
    for r in recs if disturbed else ():
        r["extra"] = {"disturbed": disturbed}
    return {"export_version": 1, "id": i, "uuid": f"0000000{i}-0000-0000-0000-000000000000",
            "started": f"2026-11-2{i}T00:00:00+00:00", "finished": f"2026-11-2{i}T00:01:00+00:00",
            "suite": "quick", "status": "ok", "tags": tags,
            "fingerprint": {"hash": "ab" * 32, "hostname": EVIL, "cpu_model": "AMD EPYC", "sockets": 1, "cores": 2,
                            "threads": 2, "numa_nodes": 1, "memory_bytes": 24 << 30,
                            "caches": [{"level": 1, "type": "Data", "size_bytes": 32 << 10},
                                       {"level": 2, "type": "Unified", "size_bytes": 512 << 10},
                                       {"level": 3, "type": "Unified", "size_bytes": 32 << 20}]},
            "launches": [{"benchmark": b, "command": f"mpirun -np 2 hpceval-{b}", "status": "ok", "exit_code": 0,
                          "elapsed_s": 1.0, "message": None, "meta": {"hosts": ["n1", "n1"], "nranks": 2}}
                         for b in ("pingpong", "mem-latency", "stream")],
            "records": recs}


def _proxy_run():
    """The quick run plus the proxy sections: barotropic records and one trace."""
    from proxy_runs import make_run
    run = _run(3, 1.0, ["proxies"])
    proxies = make_run(3)
    run["records"] += proxies["records"]
    run["traces"] = proxies["traces"]
    return run


def _browse(exe, url, profile, *extra):
    return subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr",
                           "--v=0", *extra, url], capture_output=True, text=True, timeout=90,
                          stdin=subprocess.DEVNULL)


def _probe(exe, html, tmp_path, name):
    probed = tmp_path / f"{name}.html"
    probed.write_text(html.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
    p = _browse(exe, probed.as_uri(), tmp_path / f"profile-{name}", "--dump-dom",
                "--window-size=1280,1000")
    m = re.search(r'<pre id="hpceval-probe">(.*?)</pre>', p.stdout, re.S)
    assert m, f"the page did not finish loading (rc {p.returncode}): {p.stderr[-2000:]}"
    return json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def test_summary_and_warnings_come_first_and_no_figure_text_is_clipped(tmp_path):
    """Two quick runs, the first disturbed (twice as slow everywhere): the report says so, calls
    nothing an improvement or a regression, and leads with the summary and the warnings."""
    exe = _chromium()
    disturbed = _run(1, 2.0, ["first"], "other processes preempted the ranks 40 times in 9 samples")
    clean = _run(2, 1.0, ["second"])
    one = render_report([disturbed], title="one run")
    two = render_report([disturbed, clean], title="two runs")
    assert "Run #1 was disturbed" in two
    # the slowdown is put down to the disturbance: "... (a disturbed run), not a regression"
    said = two.lower().replace("not a regression", "")
    assert "a disturbed run" in two and "improvement" not in said and "regression" not in said
    for html, first in ((one, ".summary"), (two, "#glance")):
        probe = _probe(exe, html, tmp_path, first.strip(".#"))
        tops = probe["tops"]
        assert probe["errors"] == [] and probe["clipped"] == []
        assert tops[first] < tops["nav.toc"] < tops["section.run"]
        assert tops[".warnings"] < tops["nav.toc"] and tops[".warnings bottom"] < 1400
        assert tops["figure"] is None or tops[".warnings"] < tops["figure"]


def test_report_renders_in_headless_chromium(tmp_path):
    exe = _chromium()
    html = render_report([_run(1, 1.0, ["base"]), _run(2, 1.2, [EVIL]), _proxy_run()],
                         title="browser test")
    nfig = html.count("<svg")
    assert nfig >= 13 and 'id="comparison"' in html and 'id="history"' in html
    assert "Application proxies" in html and "Gantt" in html
    report = tmp_path / "report.html"
    report.write_text(html, encoding="utf-8")
    probed = tmp_path / "probed.html"
    probed.write_text(html.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")

    p = _browse(exe, probed.as_uri(), tmp_path / "profile1", "--dump-dom")
    m = re.search(r'<pre id="hpceval-probe">(.*?)</pre>', p.stdout, re.S)
    assert m, f"the page did not finish loading (rc {p.returncode}): {p.stderr[-2000:]}"
    probe = json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    assert probe["errors"] == []
    assert not re.search(r":CONSOLE[:(]", p.stderr), p.stderr
    assert len(probe["figures"]) == nfig
    for width, height, drawn in probe["figures"]:
        assert width > 100 and height > 50 and drawn > 10
    assert probe["clipped"] == []
    assert EVIL in probe["tags"]                 # shown as text, not run

    shot = tmp_path / "report.png"
    p = _browse(exe, report.as_uri(), tmp_path / "profile2", f"--screenshot={shot}", "--window-size=1280,2400")
    assert shot.exists() and shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 20_000, p.stderr


def test_experiment_and_models_sections_render(tmp_path, bindir):
    """Real runs: an experiment (the p690 kind: pages of sst, interleaved) and the runs a
    prediction rests on (ping-pong, barotropic on 1 and 2 ranks): their report sections render
    in the browser with nothing clipped."""
    from helpers import CLI, FAST
    exe = _chromium()
    cli = CLI(tmp_path / "r.sqlite")
    p = cli("experiment", "pages", "sst", "--rounds", "2", "--variants", "base,thp",
            *FAST[:FAST.index("--no-remeasure")], "--set", "truncations=5", "--set", "levels=1",
            "--set", "copies=1", "--set", "alpha=0", "--set", "days=0.2")
    assert p.returncode == 0, p.stderr
    p = cli("run", "pingpong", "barotropic", *FAST, "--set", "pingpong.refine=0",
            "--set", "ranks=1,2", "--set", "barotropic.grids=48x32", "--set", "barotropic.land=none",
            "--set", "barotropic.halos=pack", "--set", "barotropic.sums=allreduce")
    assert p.returncode == 0, p.stderr
    experiment, measured = cli.export("1"), cli.export("2")
    for runs, section in ((experiment, "Experiments"), (measured, "Models")):
        html = render_report(runs, title=section)
        assert f">{section}<" in html
        probe = _probe(exe, html, tmp_path, section)
        assert probe["errors"] == [] and probe["clipped"] == [], probe
        assert probe["figures"] and all(w > 100 and h > 50 and d > 10
                                        for w, h, d in probe["figures"]), probe["figures"]
