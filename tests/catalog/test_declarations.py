"""A benchmark is one declaration (hpceval/catalog/registry.py): whether and how it scales,
tunes and predicts are fields of its Benchmark, plain data, and the central lists are derived
from them: the proxies that scale (hpceval/analysis/scaling.py PROXIES), that `hpceval tune`
measures (hpceval/analysis/tune.py TUNABLE), the application models (`hpceval predict`), and
both commands' help. A declaration from outside the package joins them all."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap

import pytest

from helpers import CLI, ROOT
from hpceval.analysis.predict import MODELS
from hpceval.analysis.scaling import PROXIES, variant_name
from hpceval.analysis.tune import TUNABLE, choice_name
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.registry import fill


def test_the_central_lists_are_the_declarations():
    assert set(PROXIES) == {n for n, b in BENCHMARKS.items() if b.scales}
    assert set(TUNABLE) == {n for n, b in BENCHMARKS.items() if b.tunes}
    assert set(MODELS) == {b.model for b in BENCHMARKS.values() if b.model}
    assert set(PROXIES) >= {"barotropic", "psst", "hydro", "sweep", "montecarlo"}
    assert set(TUNABLE) >= {"barotropic", "psst"}
    assert set(MODELS) >= {"barotropic", "psst", "sweep", "montecarlo"}


def test_declarations_are_plain_data():
    for b in BENCHMARKS.values():
        for part in (b.scales, b.tunes):
            for v in dataclasses.astuple(part) if part else ():
                assert isinstance(v, (str, tuple)), (b.name, v)
        assert isinstance(b.model, str) and all(isinstance(s, str) for s in b.tiny), b.name
        # a short budget's smaller problem: settings of its own parameters (budget.RELIEFS)
        assert all(isinstance(s, str) and b.has_param(s.split("=", 1)[0]) for s in b.lean), b.name
        # a short budget's top rung (budget._tops): settings it parses, and a rank parameter
        # for the rung
        for s in b.at_scale:
            name, text = s.split("=", 1)
            b.param(name).parse(text)
        assert not b.at_scale or b.rank_param, b.name


def test_labels_from_the_declarations():
    assert variant_name({"halo": "put", "sum": "tree", "branch": 8}) == "put/tree(8)"
    assert variant_name({"halo": "pack", "sum": "allreduce", "branch": 0}) == "pack/allreduce"
    assert PROXIES["sweep"].variant_name({"sn": 6, "mk": 10, "mmi": 3}) == "S6 mk=10 mmi=3"
    assert PROXIES["hydro"].variant_key({"problem": "sod"}) == ()
    assert PROXIES["psst"].problem_key({"truncation": 42, "levels": 18, "test": 2}) == (42, 18, 2)
    assert choice_name("barotropic", {"halo": "pack", "sum": "tree", "branch": 4, "P": 2,
                                      "Q": 1, "mapping": "row"}) == "pack/tree(4) 2x1 row"
    assert choice_name("psst", {"transpose": "alltoallv", "sum": "ring", "P": 1, "Q": 2,
                                "mapping": "col"}) == "alltoallv/ring 1x2 col"
    assert fill("{a}{b:(?)}", {"a": "x"}) == "x"


TOY = textwrap.dedent('''
    """toyproxy: the ping-pong binary declared as a proxy that scales and tunes."""
    from hpceval.catalog.registry import (Benchmark, LaunchSpec, Scales, Tunes,
                                          register_benchmark)


    def _plan(b, values, ctx):
        return [LaunchSpec(b.name, "toyproxy np=2", "pingpong", ["--sizes", "8"], 2, "core")]


    register_benchmark(Benchmark(
        "toyproxy", "toys", "a toy proxy", (), _plan, ranks="2",
        scales=Scales("latency", "us", ("bytes",), "{bytes} B", ()),
        tunes=Tunes("latency", (), ("bytes",), ("sizes=8,64",), "{bytes} B")))
''')


def test_a_declaration_from_outside_joins_every_list(tmp_path):
    (tmp_path / "bench_toyproxy.py").write_text(TOY)
    env = {"HPCEVAL_CATALOG_PATH": str(tmp_path)}
    code = ("import json; from hpceval.analysis.scaling import PROXIES; "
            "from hpceval.analysis.tune import TUNABLE, choice_name; "
            "print(json.dumps([sorted(PROXIES), sorted(TUNABLE), "
            "PROXIES['toyproxy'].variant_name({'bytes': 8}), choice_name('toyproxy', {'bytes': 64})]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={**CLI(tmp_path / "r.sqlite").env(env)}, timeout=120)
    assert p.returncode == 0, p.stderr
    proxies, tunable, variant, choice = json.loads(p.stdout)
    assert "toyproxy" in proxies and "toyproxy" in tunable
    assert (variant, choice) == ("8 B", "64 B")
    cli = CLI(tmp_path / "r.sqlite")
    shown = cli("tune", "--help", env=env)
    assert shown.returncode == 0 and "toyproxy" in " ".join(shown.stdout.split()), shown.stderr
    assert "toyproxy" not in " ".join(cli("tune", "--help").stdout.split())


def test_a_benchmark_joins_a_suite_from_its_own_module():
    """Suite membership is declared beside the benchmark (registry.join_suite): nbc's module
    puts it in the comm suite, which bench_comm.py declares without it."""
    from hpceval.catalog import SUITES
    from hpceval.catalog.registry import JOINED
    assert ("nbc", {"budget": "0.05", "ci-target": "0.03", "max-reps": "200",
                    "ranks": "2,4"}) in SUITES["comm"].entries
    assert {b for b, _ in JOINED["comm"]} >= {"loggp", "eager", "msgrate", "nbc", "rma"}


def test_joining_a_suite_nobody_declared_is_one_line(tmp_path):
    (tmp_path / "bench_joiner.py").write_text(
        "from hpceval.catalog.registry import join_suite\njoin_suite('nosuch', 'pingpong')\n")
    p = CLI(tmp_path / "r.sqlite")("list", env={"HPCEVAL_CATALOG_PATH": str(tmp_path)})
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "hpceval: error: HPCEVAL_CATALOG_PATH: join_suite: pingpong joins suite 'nosuch', "
        "which is not declared"], p.stderr


@pytest.mark.parametrize("files,message", [
    ({"bench_boom.py": "raise RuntimeError('boom')"}, "bench_boom.py: RuntimeError: boom"),
    ({"views_bad.py": "def (:"}, "views_bad.py: SyntaxError"),
    # a name of the package's: refused, not taken over (the built-in quick suite stays)
    ({"bench_twice.py": "from hpceval.catalog.registry import Suite, register_suite\n"
                        "register_suite(Suite('quick', 'mine', ()))"},
     "bench_twice.py: ValueError: suite 'quick' is declared twice"),
    ({"bench_twice.py": TOY, "bench_thrice.py": TOY.replace("a toy proxy", "again")},
     "bench_twice.py: ValueError: benchmark 'toyproxy' is declared twice"),
])
def test_a_broken_module_from_outside_is_one_line(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    p = CLI(tmp_path / "r.sqlite")("list", env={"HPCEVAL_CATALOG_PATH": str(tmp_path)})
    assert p.returncode == 2 and p.stdout == ""
    [line] = p.stderr.splitlines()
    assert line.startswith(f"hpceval: error: HPCEVAL_CATALOG_PATH: {tmp_path}/{message}"), line
