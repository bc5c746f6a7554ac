"""The distance map's node boundaries: a line wherever consecutive ranks sit on different nodes."""
from hpceval.views.figures_comm import node_boundaries


def test_lines_between_node_blocks():
    node = {0: (0, 0), 1: (0, 0), 2: (1, 0), 3: (1, 0), 4: (2, -1)}
    assert node_boundaries(node, 5) == [1.5, 3.5]


def test_one_node_or_unknown_nodes_draw_nothing():
    assert node_boundaries({0: (0, 0), 1: (0, 0)}, 2) == []
    assert node_boundaries({0: (None, None), 1: (1, 0)}, 2) == []
    assert node_boundaries({}, 3) == []
