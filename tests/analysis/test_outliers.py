"""The outlier rule (hpceval/analysis/outliers.py) on made-up maps and node checks: a node whose
links are slow is named once as the node and on each of its links, a bad link of two good nodes
as a link, a slow node by its own value; nothing on a clean or merely noisy population."""
import pytest

import hpceval.views
from hpceval.analysis.outliers import REL_FLOOR, flagged, outlier_lines, outliers

NODES = [f"n{i}" for i in range(8)]


def _link(a, b, bw, lat=1.5):
    base = {"benchmark": "netmap", "statistic": "median", "stats": {"median": 0, "n": 5},
            "params": {"src": a, "dst": b, "src_node": NODES[a], "dst_node": NODES[b],
                       "shift": 1, "rounds": 4, "rounds_total": 4}}
    return [{**base, "metric": "latency", "unit": "us", "better": "lower",
             "params": {**base["params"], "bytes": 8}, "stats": {"median": lat, "n": 5}},
            {**base, "metric": "bandwidth", "unit": "MB/s", "better": "higher",
             "params": {**base["params"], "bytes": 1 << 20}, "stats": {"median": bw, "n": 5}}]


def _map(bw=lambda a, b: 12000.0):
    return {"records": [r for a in range(8) for b in range(a + 1, 8) for r in _link(a, b, bw(a, b))]}


def _node(i, metric, v):
    return {"benchmark": "nodecheck", "metric": metric, "unit": "GB/s", "better": "higher",
            "statistic": "median", "params": {"node": NODES[i], "rank": i, "threads": 4},
            "stats": {"median": v, "n": 5}}


@pytest.fixture(autouse=True, scope="module")
def _rows():
    hpceval.views.load_rows()


def test_a_clean_map_flags_nothing_and_says_so():
    run = _map(lambda a, b: 12000.0 + 37 * ((a * 7 + b) % 5))    # 1.5% spread
    assert outliers(run) == []
    [line] = outlier_lines(run)
    assert line.endswith("none flagged") and "link bandwidth (28 links)" in line


def test_a_slow_node_is_named_once_and_on_each_of_its_links():
    run = _map(lambda a, b: 5000.0 if 5 in (a, b) else 12000.0)
    found = outliers(run)
    nodes = [o for o in found if o["kind"] == "node"]
    links = [o for o in found if o["kind"] == "link"]
    assert [(o["node"], o["quantity"], o["value"], o["median"]) for o in nodes] == \
        [("n5", "link bandwidth", 5000.0, 12000.0)]
    assert len(links) == 7 and {o["node"] for o in links} == {"n5"}
    assert {o["peer"] for o in links} == set(NODES) - {"n5"}
    assert "  OUTLIER node n5: link bandwidth 5000 MB/s, median 12000 MB/s (7 of 7 flagged " \
        "links)" in outlier_lines(run)


def test_one_bad_link_of_two_good_nodes_is_a_link():
    run = _map(lambda a, b: 4000.0 if (a, b) == (2, 6) else 12000.0)
    assert [(o["kind"], o["node"], o.get("peer")) for o in outliers(run)] == [("link", "n2", "n6")]


def test_a_slow_node_check_is_named_with_the_population_median():
    run = {"records": [_node(i, "triad", 50.0 if i == 3 else 100.0 + i) for i in range(8)]}
    [o] = outliers(run)
    assert (o["kind"], o["node"], o["quantity"], o["value"], o["median"]) == \
        ("node", "n3", "node triad bandwidth", 50.0, 103.0)
    assert "peer" not in o


def test_the_floor_and_the_spread_bound_the_rule():
    # MAD 0: only a difference beyond the floor is flagged
    assert flagged([10.0] * 7 + [10.0 * (1 - REL_FLOOR / 2)], "higher")[2][-1] is False
    assert flagged([10.0] * 7 + [10.0 * (1 - 2 * REL_FLOOR)], "higher")[2][-1] is True
    # a wide population (MAD 2): 25% below its median is within 3.5 x 1.4826 x MAD
    wide = [6.0, 8.0, 10.0, 12.0, 14.0, 9.0, 11.0, 7.5]
    assert not any(flagged(wide, "higher")[2])
    # latency: only the slow side counts
    assert flagged([1.0] * 7 + [2.0], "lower")[2][-1] and not flagged([1.0] * 7 + [0.5], "lower")[2][-1]


def test_a_run_without_a_map_or_node_check_says_nothing():
    run = {"records": [{"benchmark": "pingpong", "metric": "latency", "statistic": "median",
                        "params": {"bytes": 8}, "stats": {"median": 1.0, "n": 3}}]}
    assert outliers(run) == [] and outlier_lines(run) == []


def test_the_reports_first_screen_lists_them():
    from hpceval.views.data import summary_view
    run = {**_map(lambda a, b: 5000.0 if 5 in (a, b) else 12000.0), "fingerprint": {},
           "launches": [], "status": "ok"}
    lines = summary_view(run)["outliers"]
    assert lines[0].endswith(":") and lines[1].startswith("  OUTLIER node n5: link bandwidth")
    assert summary_view({**run, "records": []})["outliers"] == []


def test_the_card_gives_each_populations_median_and_the_nodes_named():
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.outliers import CARD_SECTION

    def card(run):
        return {r["quantity"]: r for r in machine_card({**run, "fingerprint": {}, "launches": []})
                if r["section"] == CARD_SECTION}
    rows = card(_map(lambda a, b: 5000.0 if 5 in (a, b) else 12000.0))
    bw = rows["Link bandwidth, median"]
    assert (bw["value"], bw["unit"], bw["record"]) == (12000.0, "MB/s", None)
    assert bw["point"] == "median of 28 links' medians, 5000 .. 12000"
    named = rows["Outliers flagged (nodes, links)"]
    assert (named["value"], named["point"]) == (1, "n5 (link bandwidth)")
    assert card(_map())["Outliers flagged (nodes, links)"]["point"] == "none flagged"
    assert not card({"records": []})["Link bandwidth, median"]["measured"]
