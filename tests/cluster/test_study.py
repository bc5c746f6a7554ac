"""`hpceval run study --budget` on the virtual cluster's two nodes, with Open MPI and MPICH: the
study planned for the allocation runs end to end, its ladders reach every node, and the report
draws the figures against processor count from it."""
from __future__ import annotations

import time

from test_runs import assert_nothing_left, bindir, db, finish, hpceval_on_node1, stored_run  # noqa: F401
from hpceval.views.figures_scaling import scaling_figure

BUDGET = "30s"        # `--budget 2m` by hand: docs/study.md; 20 s planned hydro and sweep on
                      # 1 and 2 nodes (the figures against processors), hotspot, random2, eager
                      # in 11-13 launches of 27-30 s, when a budget could be overrun by 25%;
                      # kept since (#44), 30 s leaves the same time for launches


def test_the_study_on_two_nodes(cluster, db, bindir):  # noqa: F811
    start = time.monotonic()
    rc, out, err = finish(hpceval_on_node1(cluster, db, bindir, "study", "--budget", BUDGET,
                                           "--hosts", "node1,node2", "--ppn", "1",
                                           "--no-remeasure", "--llc", "reported"), timeout=600)
    wall = time.monotonic() - start
    assert rc == 0, err
    run = stored_run(db)
    story = (run["settings"]["plan_notes"], run["reason"] if "reason" in run else None,
             [(l["label"], l["elapsed_s"]) for l in run["launches"]])
    # A budgeted run stops (incomplete) when this machine is slower than the plan's estimates,
    # and says what it left out; everything it measured is kept.
    assert run["status"] in ("ok", "incomplete"), story
    assert run["status"] == "ok" or run["settings"].get("left_out"), story
    assert run["settings"]["allocation"] == {"nodes": 2, "ppn": 1}
    assert run["settings"]["budget_s"] == 30 and run["settings"]["plan_notes"]
    # The ladders: 1 rank, then every node (the 1-rank rungs left out when the budget was spent
    # on the launches before them, see below)
    left = " ".join(run["settings"].get("left_out") or [])
    hosts = [tuple(l["meta"]["hosts"]) for l in run["launches"] if l.get("meta")]
    assert ("node1", "node2") in hosts, story
    assert ("node1",) in hosts or "np=1 " in left + " ", story
    benches = {r["benchmark"] for r in run["records"]}
    # The communication curves, or each named among those left out: on nodes of one CPU an
    # MPICH launch now and then takes some 3 s more than planned (2 of 4 runs on 2026-12-08:
    # p2p 0-k 3.5 s against 0.4), the communication area's share of the 30 s is spent, and the
    # rest of it is passed over, then left out when the budget's end cannot hold it.
    comm = {"collectives", "halo", "random2", "hotspot"}
    assert benches & comm or all(f"{b} np=" in left for b in comm), (sorted(benches), story[1:])
    # The proxies' curve against processors, or its launches named among those left out (each
    # area keeps its share, hpceval/runner/shares.py, but a launch under way runs on past it).
    # On nodes of one CPU a round trip costs a time slice: MPICH spent its communication share
    # up to 4x over in 1 of 6 runs, Open MPI's loggp took 17.6 s against its 9 s share in 1 of
    # 10 beside the Slurm tests, and the budget then left hydro out, as it should.
    assert "hydro" in benches or "hydro np=1" in left, (sorted(benches), story)
    drawn = [b for b in ("hydro", "sweep", "montecarlo", "barotropic", "psst")
             if scaling_figure(b)([run]) is not None]
    assert drawn or "hydro np=2" in left, (sorted(benches), story)
    print(f"{bindir.parent.name}: run study --budget {BUDGET} on 2 nodes: {wall:.0f} s wall, "
          f"{len(run['launches'])} launches, figures against processors: {drawn}")
    assert_nothing_left(cluster)
