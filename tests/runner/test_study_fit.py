"""The study fitted to an hour on allocations this machine does not have, read from the dry run's
JSON plan in-process (hpceval/runner/dryrun.py, hpceval/catalog/budget.py and ladder.py): the
headline curves kept at 10,000 nodes x 100, and rank rules that cross nodes with fewer ranks a
node. No launch; a plan of 10,000 nodes takes well under a second."""
from __future__ import annotations

import math
from collections import defaultdict

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext, plan_targets
from hpceval.catalog.budget import Cut, cuts
from hpceval.catalog.estimate import total_s
from hpceval.catalog.tops import TOP_REPS
from hpceval.runner.dryrun import describe, dry_run, plan_json
from hpceval.runner.placement import placement_from_args

GIB = 1 << 30
HOUR = 3600.0
# The seeds' curves against processors (issue 45, item 4)
HEADLINE = ("collectives", "halo", "random2", "barotropic", "pop-step", "dense", "hydro", "evh1")
FAR = 100 * 100              # a headline curve's top rung: 100 nodes of the 10,000 at least
POWER_OF_TWO = lambda n: not n & (n - 1)
RULES = {"npb-cg": POWER_OF_TWO, "npb-lu": POWER_OF_TWO, "npb-mg": POWER_OF_TWO,
         "npb-bt": lambda n: math.isqrt(n) ** 2 == n, "npb-sp": lambda n: math.isqrt(n) ** 2 == n,
         "ps": lambda n: POWER_OF_TWO(n) and n <= 1024}       # its 32 x 32 routers' tilings


def study(nodes: int, ppn: int, mem_gib: int, budget_s: float = HOUR):
    """What `hpceval run study --nodes N --ppn K --budget ... --dry-run --json` prints, for
    nodes of K cores and mem_gib GiB available each; and the planned launches."""
    place = placement_from_args(nodes, ppn, None, None, None, plan_only=True)
    ctx = PlanContext(cores=ppn, llc_bytes=32 << 20, mem_available_bytes=mem_gib * GIB,
                      nranks=place.nranks, nodes=nodes, ppn=ppn)
    launches = dry_run(["study"], [], ctx, place, budget_s)
    return plan_json(["study"], launches, ctx, budget_s), launches


def ranks_of(doc: dict) -> dict:
    out = defaultdict(set)
    for launch in doc["launches"]:
        out[launch["benchmark"]].add(launch["ranks"])
    return out


@pytest.fixture(scope="module", params=[16, 256], ids=["16GiB", "256GiB"])
def ten_thousand(request):
    return study(10_000, 100, request.param)[0]


def test_an_hour_of_10000_nodes_keeps_every_headline_curve(ten_thousand):
    doc = ten_thousand
    assert doc["budget_s"] == HOUR and doc["estimate_s"] <= HOUR
    assert sum(l["estimate_s"] for l in doc["launches"]) == pytest.approx(doc["estimate_s"], abs=1)
    ranks = ranks_of(doc)
    for bench in HEADLINE:
        rungs = sorted(ranks[bench])
        assert len(rungs) >= 2 and rungs[0] <= 100 and rungs[-1] >= FAR, (bench, rungs)
    left_out = " ".join(n for a in doc["areas"] for n in a["left_out"])
    assert not any(bench in left_out.split() for bench in HEADLINE), left_out
    # a launch of 1,000,000 ranks starts in about 1,000 s: reach gave way, and the plan says so
    assert max(l["ranks"] for l in doc["launches"]) < 1_000_000
    assert any("rank ladders drawn for" in n and "of the 10000 nodes" in n for n in doc["notes"])


def test_cuts_thin_rungs_and_repetitions_before_reach():
    groups = cuts(10_000)
    assert groups[0] == [Cut(), Cut(True)] + [Cut(True, t) for t in range(1, 5)]
    assert [g[0].reach for g in groups[1:]] == list(range(1, 13))  # 5,000 .. 2 nodes
    assert all(c.fewer_reps for g in groups[1:] for c in g)
    assert cuts(1) == [groups[0]]


def test_a_large_problem_gets_smaller_and_loses_small_rungs_before_it_is_left_out():
    # dense on 256 GiB nodes: n from 2% of a node's memory takes an hour on one rank
    ctx = PlanContext(cores=16, llc_bytes=32 << 20, mem_available_bytes=256 * GIB, nranks=64,
                      nodes=4, ppn=16)
    sets = ["dense.memory=0.02", "dense.grids=square", "dense.ranks=ladder", "dense.min-reps=2"]
    specs = plan_targets(["dense"], sets, ctx, budget_s=120.0)
    # a node of 16 ranks and two nodes: a curve across nodes, not nothing; and in what those
    # leave of the budget, the whole allocation's rung measured alone
    assert [s.nranks for s in specs] == [16, 32, 64] and total_s(specs) <= 120.0
    assert any("dense np=64" in n and "measured alone beyond the 2 nodes" in n
               for n in ctx.notes), ctx.notes
    assert any("memory=0.002" in n and "a smaller problem" in n for n in ctx.notes)
    assert any("smaller rungs left out" in n for n in ctx.notes), ctx.notes
    [area] = ctx.areas
    assert area["smaller_problem"] and area["floor_raised"] and not area["left_out"]


@pytest.fixture(scope="module")
def four_nodes():
    return study(4, 100, 256)


def across(doc: dict) -> dict:
    """(ranks, nodes, ppn) of each rank-rule benchmark's launches across nodes."""
    out = defaultdict(set)
    for launch in doc["launches"]:
        if launch["benchmark"] in RULES and launch["nodes"] > 1:
            out[launch["benchmark"]].add((launch["ranks"], launch["nodes"], launch["ppn"]))
    return out


def check_rank_rules(doc: dict) -> None:
    for launch in doc["launches"]:
        rule = RULES.get(launch["benchmark"])
        assert rule is None or rule(launch["ranks"]), launch["label"]
        fewer = launch["ppn"] < doc["allocation"]["ppn"] and launch["nodes"] > 1
        assert launch.get("fewer_per_node") == (
            f"{launch['ranks']} ranks as {launch['nodes']} nodes x {launch['ppn']}"
            if fewer else None), launch
        assert launch["nodes"] == -(-launch["ranks"] // launch["ppn"])


def test_rank_rules_leave_a_node_of_100_with_fewer_ranks_a_node(four_nodes):
    doc, launches = four_nodes
    check_rank_rules(doc)
    two, four = [(128, 2, 64), (256, 4, 64)]
    assert across(doc) == {"npb-cg": {two, four}, "npb-lu": {two, four}, "ps": {two, four},
                           "npb-mg": {two},            # class B's 256^3: 128 ranks at most
                           "npb-bt": {(196, 2, 98), (400, 4, 100)},
                           "npb-sp": {(196, 2, 98), (400, 4, 100)}}
    assert any(n.startswith("npb-lu: 128 ranks as 2 nodes x 64, 256 ranks as 4 nodes x 64 (100 "
                            "a node breaks its rule: NPB runs on a power of two")
               for n in doc["notes"])
    # the human listing's nodes column says it too
    [row] = [describe(l) for l in launches if l.spec.label == "ps np=128 32x32 routers on 8x16, "
             "10 loads"]
    assert row[1:3] == ["128", "2 x 64"]


def test_rank_rules_reach_across_100_nodes_within_the_hour():
    doc, _ = study(100, 100, 256)
    assert doc["estimate_s"] <= HOUR
    check_rank_rules(doc)
    reach = {b: max(nodes for _, nodes, _ in rungs) for b, rungs in across(doc).items()}
    assert set(reach) == set(RULES) and min(reach.values()) >= 2
    assert reach["npb-lu"] >= 16 and reach["ps"] == 8    # 1024 ranks as 16 x 64; 512 as 8 x 64


def simulated_hour(monkeypatch=None, shares=None):
    """The study on 64 x 16 simulated ranks fitted to an hour (SMPI's start-up as measured
    here, the declared costs), optionally with budget.TOP_SHARES replaced: (ctx, launches)."""
    from hpceval.catalog import budget
    from hpceval.catalog.registry import sim_cost_model
    if shares is not None:
        monkeypatch.setattr(budget, "TOP_SHARES", shares)
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 * GIB, nodes=64,
                      ppn=16, host_memory_bytes=16 * GIB, sim_cost=sim_cost_model(0.21, 1.6e-3))
    return ctx, plan_targets(["study"], [], ctx, budget_s=HOUR)


def test_an_hour_of_1024_simulated_ranks_measures_top_rungs_alone():
    """SMPI's cost at 1,024 ranks keeps the ladders to a few of the 64 nodes; each area's
    top rungs beyond them are measured alone, with one variant of each choice (at_scale)."""
    ctx, specs = simulated_hour()
    assert total_s(specs) <= HOUR
    tops = {a["area"]: (a["reach_nodes"], a["tops"]) for a in ctx.areas if a["tops"]}
    assert {"communication", "proxies"} <= set(tops), ctx.areas
    for area, (reach, labels) in tops.items():
        mine = [s for s in specs if s.label in labels]
        assert len(mine) == len(labels) and all(s.nranks > reach * 16 for s in mine), area
        assert all(any(s.label in n and "measured alone beyond" in n for n in ctx.notes)
                   for s in mine)
    tops = [s for s in specs if any(s.label in labels for _, labels in tops.values())]
    assert any(BENCHMARKS[s.benchmark].at_scale for s in tops)
    for s in tops:
        bench = BENCHMARKS[s.benchmark]
        # TOP_REPS samples a point, no more: SMPI's noise kept halo's points to 200
        assert [arg(s, f) for f in ("--warmup", "--min-reps", "--max-reps")] == \
            ["0", str(TOP_REPS), str(TOP_REPS)], s.label
        for name, value in (a.split("=", 1) for a in bench.at_scale):
            got, parse = arg(s, f"--{name}"), bench.param(name).parse
            assert "," not in got if value == "squarest" else parse(got) == parse(value), s.label


def test_the_declared_seed_curves_are_the_headline_curves():
    assert {name for name, b in BENCHMARKS.items() if b.seed_curve} == set(HEADLINE)


def test_top_rungs_raise_every_seed_curve_before_any_other():
    """Every seed curve of a short area takes a rung beyond the area's reach, and no other
    entry's top rung is above theirs (the hour at 1,024 simulated ranks once took ccm, hydro
    and psst to 512 and left collectives, halo and barotropic at 64)."""
    ctx, specs = simulated_hour()
    short = {a["area"]: a for a in ctx.areas if a["reach_nodes"] < 64}
    top_of = defaultdict(int)
    for a in short.values():
        for s in specs:
            if s.label in a["tops"]:
                top_of[s.benchmark] = max(top_of[s.benchmark], s.nranks)
    seeds = {b for b in HEADLINE if BENCHMARKS[b].area in short and
             any(s.benchmark == b for s in specs)}
    assert seeds and seeds <= set(top_of), (seeds, dict(top_of))
    for b in seeds:
        assert top_of[b] > short[BENCHMARKS[b].area]["reach_nodes"] * 16, b
    others = set(top_of) - seeds
    assert all(top_of[b] <= max(top_of[s] for s in seeds) for b in others), dict(top_of)


def test_a_short_budget_leaves_the_seed_curves_out_last():
    """On 2 nodes and 30 s the communication area leaves its other entries out before the
    seeds' curves while those fit together (a CI run kept pingpong and p2p and left random2
    out); an area whose seed curves do not fit together keeps its cheaper entries."""
    doc, _ = study(2, 1, 16, budget_s=30)
    ran = {l["benchmark"] for l in doc["launches"]}
    areas = {a["area"]: a for a in doc["areas"]}
    assert {"collectives", "halo", "random2"} <= ran, ran
    assert "pingpong" in " ".join(areas["communication"]["left_out"])
    assert areas["proxies"]["estimate_s"] > 0.5 * areas["proxies"]["share_s"], areas["proxies"]


def arg(spec, flag: str) -> str:
    return spec.args[spec.args.index(flag) + 1]


def test_top_rungs_leave_nothing_out_that_the_whole_budget_kept(monkeypatch):
    ctx, _ = simulated_hour()
    whole, specs = simulated_hour(monkeypatch, ())
    # no share held for them: the top rungs get what the whole fit's launches leave, and the
    # areas are the whole fit's
    tops = [s for s in specs if any(s.label in a["tops"] for a in whole.areas)]
    assert tops and total_s(specs) <= HOUR
    for a in whole.areas:
        assert all(s.nranks > a["reach_nodes"] * 16 for s in tops if s.label in a["tops"])
    for held, plain in zip(ctx.areas, whole.areas):
        for key in ("left_out", "floor_raised", "smaller_problem"):
            assert len(held[key]) <= len(plain[key]), (held["area"], key)


def test_a_raised_floor_keeps_the_one_rank_rung_a_model_reads():
    """psst's one-rank run is what `predict` reads its compute rate from: the study at 256
    simulated ranks raised its floor to 16 and had no psst prediction. A benchmark with a
    model keeps rung 1 where that fits; one without (dense) loses it first."""
    from hpceval.catalog.budget import _raise_floor
    psst = (BENCHMARKS["psst"], {"ranks": "ladder"})
    dense = (BENCHMARKS["dense"], {"ranks": "ladder"})
    anything = lambda entries: True
    assert _raise_floor([psst], 0, 16, anything)[1]["ranks"] == "ladder>=2,1"
    assert _raise_floor([dense], 0, 16, anything)[1]["ranks"] == "ladder>=2"
    # when no floor fits with rung 1 kept, the lowest that fits without it
    no_one = lambda entries: not entries[0][1]["ranks"].endswith(",1")
    assert _raise_floor([psst], 0, 16, no_one)[1]["ranks"] == "ladder>=2"
    [psst_at_16] = [(BENCHMARKS["psst"], {"ranks": "ladder>=16"})]
    assert _raise_floor([psst_at_16], 0, 16, anything)[1]["ranks"] == "ladder>=16"
    # raised again: rung 1 once
    again = (BENCHMARKS["psst"], {"ranks": "ladder>=2,1"})
    assert _raise_floor([again], 0, 16, lambda es: "4" in es[0][1]["ranks"])[1]["ranks"] == \
        "ladder>=4,1"


def test_top_rungs_are_raised_again_with_what_the_areas_left(monkeypatch):
    """An area's launches are whole rungs and one that cut holds its share: the hour at 1,024
    simulated ranks left 424 s unused, enough for barotropic's two tops at 1,024. The tops are
    chosen again with what the areas' launches leave, and taken where they cost more and
    fit."""
    from hpceval.catalog import budget
    ctx, specs = simulated_hour()
    lacking = [("proxies", [], {"reach_nodes": 2})]
    have = {"proxies": [s for s in specs if s.label in ctx.areas[0]["tops"]]}
    assert have["proxies"]
    seconds = total_s(have["proxies"])
    more = {"proxies": have["proxies"] * 2}
    asked = []
    monkeypatch.setattr(budget.top, "choose", lambda l, c, p, s: (asked.append(s) or more,
                                                                  ["raised"]))
    assert budget._tops_again(have, [], lacking, ctx, None, 2.5 * seconds) == (more, ["raised"])
    assert asked == [2.5 * seconds]
    # what does not fit, or costs no more, keeps the tops chosen first
    assert budget._tops_again(have, ["first"], lacking, ctx, None, 1.5 * seconds) == \
        (have, ["first"])
    more = {"proxies": have["proxies"][:1]}
    assert budget._tops_again(have, ["first"], lacking, ctx, None, 9 * seconds)[1] == ["first"]
    assert budget._tops_again(have, ["first"], [], ctx, None, 9 * seconds) == (have, ["first"])


def test_a_seed_curve_is_measured_as_its_tops_before_it_is_left_out():
    """256 simulated ranks in 10 minutes (the declared costs): halo's ladder, every method and
    width, does not fit the communication area even thinned (the ninth hour's took 137 s at 16
    ranks) and was left out whole; it is measured on every rung as its top rungs are (one
    variant of each choice, TOP_REPS samples a point), and said. An entry eased and then left
    out all the same is said to be left out only."""
    from hpceval.catalog import budget
    from hpceval.catalog.registry import sim_cost_model
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 * GIB, nodes=16,
                      ppn=16, host_memory_bytes=16 * GIB,
                      sim_cost=sim_cost_model(0.21, 1.6e-3))
    specs = plan_targets(["study"], [], ctx, budget_s=600.0)
    halo = [s for s in specs if s.benchmark == "halo"]
    assert len({s.nranks for s in halo}) >= 2, [s.label for s in halo]
    assert all(arg(s, "--methods") == "pack" and arg(s, "--max-reps") == str(TOP_REPS)
               for s in halo)
    assert any("halo" in n and "as its top rungs are" in n for n in ctx.notes), ctx.notes
    for a in ctx.areas:
        assert not set(a["left_out"]) & set(a["one_variant"]), a
    assert total_s(specs) <= 600.0
