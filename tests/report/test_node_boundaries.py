"""The distance map's node boundaries: a line wherever consecutive ranks sit on different nodes."""
from hpceval.views.figures_comm import node_boundaries


def test_lines_between_node_blocks():
    node = {0: (0, 0), 1: (0, 0), 2: (1, 0), 3: (1, 0), 4: (2, -1)}
    assert node_boundaries(node, 5) == [1.5, 3.5]


def test_one_node_or_unknown_nodes_draw_nothing():
    assert node_boundaries({0: (0, 0), 1: (0, 0)}, 2) == []
    assert node_boundaries({0: (None, None), 1: (1, 0)}, 2) == []
    assert node_boundaries({}, 3) == []


def test_a_sampled_map_draws_the_ranks_measured():
    """At scale the plan samples rank 0's destinations: the map is as wide as the ranks
    measured (not 1,024 columns), each labelled with its rank and node."""
    from hpceval.views.figures_comm import distance_map
    recs = [{"benchmark": "distance", "metric": "latency", "unit": "us", "statistic": "median",
             "better": "lower", "converged": True,
             "params": {"src": 0, "dst": d, "bytes": 8, "src_node": 0, "dst_node": d // 2,
                        "src_socket": -1, "dst_socket": -1},
             "stats": {"n": 3, "min": t, "median": t, "mean": t, "max": t, "stddev": 0,
                       "ci_low": t, "ci_high": t}}
            for d, t in ((1, 0.3), (2, 1.5), (512, 3.0), (1023, 3.0))]
    fig = distance_map([{"id": 7, "records": recs}])
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["0/n0", "1/n0", "2/n1", "512/n256", "1023/n511"]
    # a boundary between columns of different nodes (1|2, 2|512, 512|1023)
    rows = [line.get_ydata()[0] for line in ax.lines
            if line.get_ydata()[0] == line.get_ydata()[1]]
    assert rows == [1.5, 2.5, 3.5]
