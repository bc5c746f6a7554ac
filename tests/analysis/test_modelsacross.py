"""The message-time models across machines (SP2 Table 3), on a real Open MPI run and a real
MPICH run (conftest.py)."""
from hpceval.analysis.commmodel import run_models
from hpceval.analysis.loggp import loggp_params
from hpceval.analysis.modelsacross import card_n_half, models_across


def test_hockney_regions_per_machine(two_mpis):
    _, runs = two_mpis
    rows = [r for r in models_across(runs)["hockney"] if r["series"] == "pingpong"]
    assert rows and [r["region"] for r in rows] == list(range(1, len(rows) + 1))
    for i, run in enumerate(runs):
        regions = run_models(run)["pingpong"].regions
        cells = [r["cells"][i] for r in rows if r["cells"][i] is not None]
        assert len(cells) == len(regions)
        for c, reg in zip(cells, regions):
            assert (c["h_us"], c["r_inf_MBps"], c["n_lo"], c["n_hi"]) == (reg.t0, reg.r_inf, reg.n_lo, reg.n_hi)
            if c["r_inf_MBps"] is not None:
                assert abs(c["n_half_bytes"] - c["h_us"] * c["r_inf_MBps"]) <= 1e-9 * c["n_half_bytes"]
    # the card quotes the largest messages' region (None when that region has no rate)
    last = [r["cells"][0] for r in rows if r["cells"][0] is not None][-1]
    found = card_n_half(runs[0])
    assert (found and found["n_half"]) == last["n_half_bytes"]


def test_loggp_table(two_mpis):
    _, runs = two_mpis
    rows = models_across(runs)["loggp"]
    assert {r["where"] for r in rows} == {"intra-node"}
    L = next(r for r in rows if r["parameter"] == "L")
    assert L["values"] == [loggp_params(run, "intra-node")["L_us"] for run in runs]
    assert models_across([{"records": []}, {"records": []}]) == {"hockney": [], "loggp": []}
