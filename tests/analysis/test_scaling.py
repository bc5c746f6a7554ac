"""Scaling and the parallel overhead breakdown (hpceval.analysis.scaling) on synthetic arrays and
records with known answers, shaped as barotropic's records (docs/records.md)."""
import math

import numpy as np
import pytest

from hpceval.analysis.scaling import (CLOSURE_TOL, CUMULATIVE, Baseline, baseline_of, nranks,
                                      overhead_breakdown, overhead_rows, record_arrays,
                                      record_breakdown, strong_scaling, variant_name,
                                      weak_scaling)


# ---------------------------------------------------------------- the breakdown on arrays

# 4 ranks, each 100 us per iteration, phases covering the loop exactly.
COMPUTE = [60.0, 55.0, 50.0, 45.0]
COPY = [5.0, 5.0, 5.0, 5.0]
COMM = [35.0, 40.0, 45.0, 50.0]
WALL = [100.0] * 4
FLOPS = [260.0] * 4
# One rank: 300 us = 290 compute + 10 in the (trivial) global sum; 1000 flops.
BASE = Baseline(wall=300.0, compute=290.0, copy=0.0, comm=10.0, flops=1000.0)


def test_breakdown_known_shares():
    b = overhead_breakdown(WALL, COMPUTE, COPY, COMM, BASE, FLOPS)
    assert b.nranks == 4 and b.total == 400.0
    assert b.overhead == pytest.approx(100.0)
    # work C+K = 65, 60, 55, 50: the others wait 0 + 5 + 10 + 15 for the slowest
    assert b.imbalance == pytest.approx(30.0)
    assert b.communication == pytest.approx(170.0 - 10.0 - 30.0)
    assert b.copies == pytest.approx(20.0)
    assert b.duplicated == pytest.approx(40.0 / 1000.0 * 290.0)
    # less compute in all than on one rank: a negative rate change (cache effects) is allowed
    assert b.rate_change == pytest.approx(210.0 - 290.0 - 11.6)
    assert b.rate_change < 0
    assert b.unattributed == pytest.approx(0.0, abs=1e-9)
    assert b.closes()
    assert b.efficiency == pytest.approx(0.75)
    pc = b.percent()
    assert pc["communication"] == pytest.approx(32.5) and pc["imbalance"] == pytest.approx(7.5)
    assert pc["copies"] == pytest.approx(5.0) and pc["overhead"] == pytest.approx(25.0)
    shares = sum(pc[k] for k in ("communication", "imbalance", "copies", "duplicated",
                                 "rate_change", "unattributed"))
    assert shares == pytest.approx(pc["overhead"])
    cum = b.cumulative()
    assert list(cum) == list(CUMULATIVE)
    assert [cum[k] for k in CUMULATIVE] == pytest.approx([32.5, 40.0, 45.0, 47.9, 25.0])


def test_imbalance_is_capped_at_the_communication_time():
    # rank 0 has 40 us more work than the others, but they spend only 1 us each in MPI
    b = overhead_breakdown([100.0] * 3, [90.0, 50.0, 50.0], [0.0] * 3, [1.0, 1.0, 1.0],
                           Baseline(150.0, 150.0, 0.0, 0.0), None)
    assert b.imbalance == pytest.approx(3.0)
    assert b.communication == pytest.approx(0.0)
    assert b.duplicated == 0.0  # no flop counts: all of the compute change is "other"
    assert b.rate_change == pytest.approx(190.0 - 150.0)
    assert b.unattributed == pytest.approx(300.0 - 150.0 - 3.0 - 40.0)


def test_time_outside_phases_is_unattributed_and_breaks_closure():
    wall = [w * 1.05 for w in WALL]  # 5% of each rank's loop outside every phase
    b = overhead_breakdown(wall, COMPUTE, COPY, COMM, BASE, FLOPS)
    assert b.unattributed == pytest.approx(20.0)
    assert b.unattributed / b.total == pytest.approx(0.05 / 1.05)
    assert not b.closes() and not b.closes(CLOSURE_TOL)
    assert b.closes(tol=0.05)
    # the categories still add up to the measured overhead, with the remainder
    parts = (b.communication + b.imbalance + b.copies + b.duplicated + b.rate_change
             + b.unattributed)
    assert parts == pytest.approx(b.overhead)


def test_one_rank_against_itself_has_no_overhead():
    b = overhead_breakdown([300.0], [290.0], [0.0], [10.0], BASE, [1000.0])
    assert b.overhead == 0 and b.imbalance == 0 and b.duplicated == 0
    assert all(v == pytest.approx(0.0) for v in b.percent().values())
    assert b.efficiency == 1.0


def test_mismatched_arrays_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        overhead_breakdown([1.0, 2.0], [1.0], [0.0, 0.0], [0.0, 0.0], BASE)


# ---------------------------------------------------------------- synthetic barotropic records

def stats(v):
    return {"n": 20, "min": v * 0.98, "median": v, "mean": v * 1.01, "max": v * 1.1,
            "stddev": v * 0.02, "ci_low": v * 0.99, "ci_high": v * 1.01}


def baro(P, Q, t, *, halo="pack", sum_="allreduce", branch=0, nx=64, ny=48, scaling="strong",
         phases=None, wall=None, flops=None, serial_flops=None, land="none", top_level=False):
    """An iteration_time record; per-rank arrays default to a balanced split of t."""
    p = P * Q
    params = {"nx": nx, "ny": ny, "P": P, "Q": Q, "halo": halo, "sum": sum_, "branch": branch,
              "land": land, "scaling": scaling}
    if phases is None:
        phases = {"compute": [0.8 * t] * p, "halo": [0.1 * t] * p, "copy": [0.05 * t] * p,
                  "global_sum": [0.05 * t] * p}
    kinds = {"compute": "compute", "halo": "comm", "copy": "copy", "global_sum": "comm"}
    extra = {"iterations": 120,
             "phases": {k: {"kind": kinds[k], "per_rank": v} for k, v in phases.items()},
             "wall_per_rank": wall if wall is not None else [t] * p,
             "flops_per_rank": flops if flops is not None else [1000.0 / p] * p,
             "serial_flops": serial_flops if serial_flops is not None else 1000.0,
             "ocean_points_per_rank": [nx * ny // p] * p, "max_rel_diff_vs_direct": 1e-12,
             "max_rel_diff_vs_first_variant": 0.0, "relative_residual": 1e-13, "dt_s": 3600.0}
    rec = {"benchmark": "barotropic", "params": params, "metric": "iteration_time", "unit": "us",
           "statistic": "median", "better": "lower", "converged": True, "stats": stats(t)}
    if top_level:  # a JSON Lines record before storage: the extra keys at the top
        rec.update(extra)
    else:
        rec["extra"] = extra
    return rec


def test_record_arrays_add_phases_by_kind():
    r = baro(2, 2, 100.0, phases={"compute": [70, 60, 60, 60], "halo": [10, 20, 20, 20],
                                  "copy": [5, 5, 5, 5], "global_sum": [15, 15, 15, 15]})
    a = record_arrays(r)
    assert a["compute"].tolist() == [70, 60, 60, 60]
    assert a["comm"].tolist() == [25, 35, 35, 35]
    assert a["copy"].tolist() == [5, 5, 5, 5]
    assert a["serial_flops"] == 1000.0 and a["flops"].sum() == pytest.approx(1000.0)
    top = record_arrays(baro(2, 2, 100.0, top_level=True))
    assert top is not None and top["wall"].tolist() == [100.0] * 4
    bare = baro(1, 1, 10.0)
    del bare["extra"]["phases"]
    assert record_arrays(bare) is None
    wrong = baro(2, 1, 10.0)
    wrong["extra"]["phases"]["halo"]["per_rank"] = [1.0]  # one rank short
    assert record_arrays(wrong) is None


def test_record_breakdown_matches_the_arrays():
    one = baro(1, 1, 300.0, phases={"compute": [290.0], "halo": [0.0], "copy": [0.0],
                                    "global_sum": [10.0]})
    four = baro(2, 2, 100.0, phases={"compute": COMPUTE, "halo": [c - 5 for c in COMM],
                                     "copy": COPY, "global_sum": [5.0] * 4}, flops=FLOPS)
    base = baseline_of(one)
    assert base == Baseline(300.0, 290.0, 0.0, 10.0, 1000.0)
    b = record_breakdown(four, base)
    ref = overhead_breakdown(WALL, COMPUTE, COPY, COMM, BASE, FLOPS)
    assert b == ref


def time_of(p, grid_penalty=0.0):
    """Strong scaling model: T1 = 1000 us, 10% of the serial time lost per doubling."""
    return 1000.0 / p * (1.0 + 0.1 * math.log2(p)) * (1.0 + grid_penalty)


def strong_set(with_one=True, variants=(("pack", "allreduce", 0), ("datatype", "tree", 4))):
    recs = []
    for halo, s, br in variants:
        kw = dict(halo=halo, sum_=s, branch=br)
        if with_one:
            recs.append(baro(1, 1, time_of(1), **kw))
        recs.append(baro(1, 2, time_of(2, 0.2), **kw))   # the worse aspect ratio
        recs.append(baro(2, 1, time_of(2), **kw))
        recs.append(baro(2, 2, time_of(4), **kw))
        recs.append(baro(4, 1, time_of(4, 0.5), **kw))
    return recs


def test_strong_scaling_best_grid_and_efficiency():
    rows = strong_scaling(strong_set())
    assert {r["variant"] for r in rows} == {"pack/allreduce", "datatype/tree(4)"}
    pack = [r for r in rows if r["variant"] == "pack/allreduce"]
    assert [r["nranks"] for r in pack] == [1, 2, 4]
    assert [r["grid"] for r in pack] == ["1x1", "2x1", "2x2"]   # the faster grid of each count
    for r in pack:
        p = r["nranks"]
        assert r["time_us"] == pytest.approx(time_of(p))
        assert r["speedup"] == pytest.approx(time_of(1) / time_of(p))
        assert r["efficiency"] == pytest.approx(1.0 / (1.0 + 0.1 * math.log2(p)))
        assert r["base_nranks"] == 1 and r["problem"] == "64x48"
        assert r["ci_low"] < r["time_us"] < r["ci_high"]


def test_strong_scaling_without_one_rank_is_relative_to_the_smallest_count():
    rows = [r for r in strong_scaling(strong_set(with_one=False))
            if r["variant"] == "pack/allreduce"]
    assert [r["nranks"] for r in rows] == [2, 4]
    assert all(r["base_nranks"] == 2 and r["base"] == "2 ranks" for r in rows)
    assert rows[0]["efficiency"] == pytest.approx(1.0)
    assert rows[1]["efficiency"] == pytest.approx(2 * time_of(2) / (4 * time_of(4)))


def test_weak_scaling_efficiency_per_iteration():
    # 32x24 points per rank on every grid; time grows with the number of neighbours
    recs = [baro(P, Q, 200.0 * (1 + 0.05 * (P * Q - 1)), nx=32 * P, ny=24 * Q, scaling="weak")
            for P, Q in ((1, 1), (2, 1), (2, 2), (4, 2))]
    recs.append(baro(1, 2, 500.0, nx=32, ny=48, scaling="weak"))  # a worse 2-rank grid
    recs += strong_set()                                           # not weak: left out
    rows = weak_scaling(recs)
    assert [r["nranks"] for r in rows] == [1, 2, 4, 8]
    assert rows[1]["grid"] == "2x1"
    for r in rows:
        assert r["efficiency"] == pytest.approx(1.0 / (1 + 0.05 * (r["nranks"] - 1)))
        assert r["problem"] == "768 points/rank"
    assert not [r for r in strong_scaling(recs) if r["problem"] != "64x48"]


def test_overhead_rows_per_variant_and_count():
    recs = strong_set()
    rows = overhead_rows(recs)
    assert {(r["variant"], r["nranks"]) for r in rows} == {
        (v, p) for v in ("pack/allreduce", "datatype/tree(4)") for p in (1, 2, 4)}
    for r in rows:
        b = r["breakdown"]
        assert r["closes"] and r["baseline"] == "1 rank"
        assert b.nranks == r["nranks"]
        # balanced phases: no imbalance; efficiency is what the times say
        assert b.imbalance == pytest.approx(0.0)
        assert b.efficiency == pytest.approx(time_of(1) / (r["nranks"] * r["time_us"]))
        assert sum(b.percent()[k] for k in ("communication", "imbalance", "copies", "duplicated",
                                            "rate_change", "unattributed")) == pytest.approx(
            b.percent()["overhead"])


def test_overhead_rows_fall_back_to_another_variants_one_rank_run():
    recs = strong_set()
    recs = [r for r in recs if not (r["params"]["halo"] == "datatype" and nranks(r["params"]) == 1)]
    rows = [r for r in overhead_rows(recs) if r["variant"] == "datatype/tree(4)"]
    assert rows and all(r["baseline"] == "1 rank, variant pack/allreduce" for r in rows)
    # and no breakdown at all without any one-rank run
    assert overhead_rows(strong_set(with_one=False)) == []


def test_variant_names():
    assert variant_name({"halo": "put", "sum": "tree", "branch": 8}) == "put/tree(8)"
    assert variant_name({"halo": "pack", "sum": "onesided", "branch": 0}) == "pack/onesided"


def test_records_without_phases_still_scale_but_have_no_breakdown():
    recs = strong_set()
    for r in recs:
        del r["extra"]["phases"]
    assert len(strong_scaling(recs)) == 6
    assert overhead_rows(recs) == []


def test_breakdown_numbers_are_plain_floats():
    b = overhead_breakdown(np.array(WALL), COMPUTE, COPY, COMM, BASE, FLOPS)
    assert all(isinstance(v, float) for v in b.percent().values())


def test_rank_mapping_is_part_of_the_best_grid():
    recs = [baro(1, 1, 100.0)]
    for mapping, t in (("row", 60.0), ("col", 55.0)):
        r = baro(2, 1, t)
        r["params"]["mapping"] = mapping
        recs.append(r)
    rows = strong_scaling(recs)
    assert [r["grid"] for r in rows] == ["1x1", "2x1 col"]
    assert rows[1]["mapping"] == "col"
    assert rows[1]["efficiency"] == pytest.approx(100.0 / (2 * 55.0))


def test_strong_scaling_borrows_the_fastest_one_rank_run_of_the_problem():
    recs = strong_set()
    recs = [r for r in recs if not (r["params"]["halo"] == "datatype" and nranks(r["params"]) == 1)]
    slow = baro(1, 1, 1200.0, halo="put", sum_="onesided")   # slower than pack/allreduce's 1000
    rows = [r for r in strong_scaling(recs + [slow]) if r["variant"] == "datatype/tree(4)"]
    assert [r["nranks"] for r in rows] == [2, 4]
    assert all(r["base"] == "1 rank, variant pack/allreduce" for r in rows)
    assert rows[1]["efficiency"] == pytest.approx(time_of(1) / (4 * time_of(4)))


def test_master_worker_records_count_the_master():
    """montecarlo's records name workers, not a grid: the master is one more rank."""
    from hpceval.analysis.scaling import _grid, nranks, problem_name
    p = {"workers": 3, "cycles": 10, "particles": 1000, "geometry": "slab", "chunk": 100}
    assert nranks(p) == 4 and nranks({"workers": 0}) == 1 and _grid(p) == "1+3"
    assert problem_name(p) == "10 cycles x 1000 particles"
