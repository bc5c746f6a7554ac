"""Tuned best against tuned best and the ORNL Fig. 4 view, on a real Open MPI run and a real
MPICH run of the barotropic proxy's three halo updates (conftest.py)."""
from hpceval.analysis import decide as dec
from hpceval.analysis.headlines import value
from hpceval.analysis.tune import choice_name
from hpceval.analysis.tunedbest import over_best, speedup_by_size, tuned_best, variants


def test_each_machine_at_its_own_best(two_mpis):
    _, runs = two_mpis
    rows = [r for r in tuned_best(runs, reference=0) if r["benchmark"] == "barotropic"]
    assert [r["problem"] for r in rows] == ["nx=32 ny=32 land=none", "nx=48 ny=32 land=none"]
    for row in rows:
        assert row["ranks"] == 2 and row["unit"]
        nx = int(row["problem"].split()[0][3:])
        for run, cell in zip(runs, row["cells"]):
            recs = [r for r in run["records"] if r["benchmark"] == "barotropic"
                    and r["metric"] == "iteration_time" and r["params"]["nx"] == nx]
            best = min(recs, key=value)
            assert cell["variant"] == choice_name("barotropic", best["params"])
            assert cell["value"] == value(best) and cell["candidates"] == 3
        ref, other = row["cells"]
        assert ref["verdict"] == "reference" and ref["ratio"] is None
        assert other["ratio"] == other["value"] / ref["value"] and other["verdict"] in dec.VERDICTS
    # EV7 Fig. 4.2: the speed-up over the reference against problem size
    speed = speedup_by_size(rows)
    assert [r["problem"] for r in speed] == [r["problem"] for r in rows]
    for s, row in zip(speed, rows):
        assert s["speedup"][0] == 1.0
        assert s["speedup"][1] == 1.0 / row["cells"][1]["ratio"]   # reference's best / its best


def test_cost_of_each_variant_over_the_machines_best(two_mpis):
    _, runs = two_mpis
    every = [r for r in over_best(runs) if r["benchmark"] == "barotropic"]
    assert len(every) == 2 * 3                             # two problems x pack, datatype, put
    for problem in {r["problem"] for r in every}:
        rows = [r for r in every if r["problem"] == problem]
        for i, run in enumerate(runs):
            found = variants(run)[("barotropic", problem, 2)]
            low = min(value(r) for r in found.values())
            for row in rows:
                d = row["over_best"][i]
                assert abs(d - (value(found[row["variant"]]) - low) / low) < 1e-12
            assert sorted(r["over_best"][i] for r in rows)[0] == 0.0


def test_a_group_on_one_machine_only_is_no_row(two_mpis):
    _, (ompi, mpich) = two_mpis
    bare = {**mpich, "records": [r for r in mpich["records"] if r["benchmark"] != "barotropic"]}
    assert not [r for r in tuned_best([ompi, bare]) if r["benchmark"] == "barotropic"]
