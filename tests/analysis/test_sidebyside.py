"""The machine cards side by side, on a real Open MPI run and a real MPICH run (conftest.py)."""
import json

from helpers import one_line_error
from hpceval.analysis import decide as dec
from hpceval.analysis.howmeasured import differences, method
from hpceval.analysis.sidebyside import machines, ratio, side_by_side

VERDICTS = set(dec.VERDICTS)


def _row(card, quantity):
    return next(r for r in card["rows"] if r["quantity"] == quantity)


def test_ratios_verdicts_and_method_notes(two_mpis):
    _, (ompi, mpich) = two_mpis
    card = side_by_side([ompi, mpich], reference=1)          # MPICH the reference
    lat = next(r for r in card["rows"] if r["section"] == "MPI intra-node" and r["quantity"] == "Latency")
    a, ref = lat["cells"]
    assert ref["verdict"] == "reference" and ref["ratio"] is None and ref["differs"] == []
    assert a["ratio"] == a["value"] / ref["value"] and a["verdict"] in VERDICTS
    assert a["method"]["MPI"].startswith("Open MPI") and ref["method"]["MPI"].startswith("MPICH")
    assert a["method"]["pages"] in ("thp", "base") and a["method"]["binding"] == "one CPU per rank"
    assert any(n.startswith("MPI: Open MPI") and "reference MPICH" in n for n in a["differs"])
    assert not any(n.startswith("binding") for n in a["differs"])    # both bound one CPU per rank
    cpu = _row(card, "CPU")
    assert [c["verdict"] for c in cpu["cells"]] == ["same", "reference"]
    # the card states n_1/2 of the ping-pong fit, and its ratio is shown untested (no CI)
    nh = _row(card, "Half-rate size n_1/2")
    assert all(c["value"] > 0 for c in nh["cells"]) and nh["cells"][0]["verdict"] is None
    assert nh["cells"][0]["ratio"] == ratio(nh["cells"][0]["value"], nh["cells"][1]["value"])


def test_a_simulated_record_is_named_and_not_compared(two_mpis):
    _, (ompi, _) = two_mpis
    sim = json.loads(json.dumps(ompi))
    for r in sim["records"]:
        r.setdefault("extra", {}).setdefault("where", {})["placement"] = "simulated"
    card = side_by_side([ompi, sim])
    lat = next(r for r in card["rows"] if r["quantity"] == "Latency")
    assert lat["cells"][1]["verdict"] == dec.NOT_COMPARABLE
    assert "simulated: simulated (reference real)" in lat["cells"][1]["differs"]
    assert differences(method(ompi, None), method(sim, None)) == []


def test_compare_reference_command(two_mpis):
    cli, (ompi, mpich) = two_mpis
    out = json.loads(cli("compare", "1", "--reference", "2", "--json").stdout)
    assert out["runs"] == [2, 1]                              # the reference first, added to RUN
    assert out["machines"]["card"]["reference"] == 0
    assert out["machines"] == json.loads(json.dumps(machines([mpich, ompi], 0)))
    p = cli("compare", "1", "2", "--reference", "2", env={"COLUMNS": "100"})
    assert p.returncode == 0, p.stderr
    assert max(map(len, p.stdout.splitlines())) <= 100
    for title in ("machine cards side by side", "tuned best against tuned best",
                  "ORNL Fig. 4", "piecewise Hockney models", "LogGP parameters"):
        assert title in p.stdout, title
    # what the cells say, on a terminal wide enough that no cell wraps (at 100 columns where a
    # cell folds depends on this machine's CPU name and the runs' notes)
    wide = cli("compare", "1", "2", "--reference", "2", env={"COLUMNS": "400"}).stdout
    assert "#2 (reference)" in wide and "[MPI: Open MPI" in wide


def test_compare_reference_bad_input(two_mpis):
    cli, _ = two_mpis
    p = cli("compare", "1", "2", "--reference", "99")
    assert p.returncode != 0 and "99" in one_line_error(p.stderr)
    p = cli("compare", "1", "--reference", "1")
    assert p.returncode == 2 and "two different runs" in one_line_error(p.stderr)


def test_a_ratio_only_of_positive_figures():
    assert ratio(3.0, 2.0) == 1.5 and ratio(0, 2.0) == 0.0
    # a difference row (MPI latency - memory latency) can change sign: no ratio then
    for v, ref in ((-0.24, 0.5), (0.3, -0.2), (-0.3, -0.2), (1.0, 0), ("base", "thp"), (True, 1)):
        assert ratio(v, ref) is None, (v, ref)
