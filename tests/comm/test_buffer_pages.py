"""The message buffers' page policy (--set buffer-pages=thp|base) of every communication
benchmark: asked for, stated in every record, on the card, and in compare's side-by-side cells."""
import json

import pytest

from helpers import FAST, CLI, ROOT
from hpceval.catalog import BENCHMARKS

COMM = sorted(n for n, b in BENCHMARKS.items() if b.has_param("buffer-pages"))


@pytest.fixture(scope="module")
def two_policies(tmp_path_factory, bindir):
    """Run 1: every communication benchmark, tiny, base pages; run 2: ping-pong, default."""
    cli = CLI(tmp_path_factory.mktemp("pages") / "r.sqlite")
    tiny = lambda names: [w for n in names for s in BENCHMARKS[n].tiny for w in ("--set", f"{n}.{s}")]
    p = cli("run", *COMM, "--np", "2", *FAST, *tiny(COMM), "--set", "buffer-pages=base")
    assert p.returncode == 0, p.stderr
    p = cli("run", "pingpong", "--np", "2", *FAST, *tiny(["pingpong"]))
    assert p.returncode == 0, p.stderr
    return cli, cli.export("1", "2")


def test_every_comm_benchmark_takes_it():
    """Every benchmark whose binary is in csrc/comm (its buffers from comm_alloc): not those
    whose buffers another library allocates (csrc/shmem: OpenSHMEM's symmetric heap)."""
    assert COMM == sorted(n for n, b in BENCHMARKS.items() if b.area == "communication"
                          and (ROOT / "csrc" / "comm" / f"{n}.c").is_file())
    assert "pingpong" in COMM


def test_every_record_says_what_was_asked_and_got(two_policies):
    _, (base, thp) = two_policies
    assert {r["benchmark"] for r in base["records"]} == set(COMM)
    for r in base["records"]:
        assert (r["extra"]["buffer_pages_asked"], r["extra"]["buffer_pages"]) == ("base", "base"), r
    assert all("--buffer-pages base" in l["command"] for l in base["launches"])
    for r in thp["records"]:
        assert r["extra"]["buffer_pages_asked"] == "thp"
        assert r["extra"]["buffer_pages"] in ("thp", "base")   # base where THP was refused
    assert "--buffer-pages" not in thp["launches"][0]["command"]   # the default: unchanged


def test_card_and_compare_say_so(two_policies):
    cli, (_, thp) = two_policies
    out = json.loads(cli("compare", "2", "1", "--json").stdout)
    rows = {(r["section"], r["quantity"]): r for r in out["machines"]["card"]["rows"]}
    pages = rows[("Message buffers", "Pages")]["cells"]
    assert pages[1]["value"] == "base" and pages[1]["point"] == "asked: base"
    assert pages[0]["point"] == "asked: thp"
    lat = rows[("MPI intra-node", "Latency")]["cells"][1]
    if thp["records"][0]["extra"]["buffer_pages"] == "thp":     # THP granted to the reference
        assert "pages: base (reference thp)" in lat["differs"]


def test_osu_method_times_each_round_trip_and_checks_the_last(bindir):
    """pingpong --method osu (osu_latency's loop, for the side-by-side with OSU): max-reps round
    trips each a sample, the records say so; a corrupted message still fails the run."""
    from helpers_comm import launch
    args = ["--sizes", "8,64K", "--refine", "0", "--method", "osu", "--warmup", "5",
            "--max-reps", "40", "--buffer-pages", "base"]
    p = launch(bindir, "pingpong", args)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [json.loads(l) for l in p.stdout.splitlines() if '"result"' in l]
    assert {(r["metric"], r["params"]["bytes"]) for r in recs} == {
        (m, n) for m in ("latency", "bandwidth") for n in (8, 65536)}
    for r in recs:
        assert r["method"] == "osu" and r["round_trips_per_sample"] == 1 and r["stats"]["n"] == 40
        assert 0 < r["stats"]["min"] <= r["stats"]["mean"] <= r["stats"]["max"]
    bad = launch(bindir, "pingpong", args + ["--inject", "corrupt"])
    assert bad.returncode != 0 and "data check failed" in bad.stdout, bad.stdout[-500:]
