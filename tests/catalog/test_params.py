import pytest

from hpceval.catalog import Param, format_size, parse_size
from hpceval.errors import UsageError


@pytest.mark.parametrize("text,value", [("0", 0), ("100", 100), ("4K", 4096), ("1M", 1 << 20),
                                        ("2g", 2 << 30), ("8KiB", 8192), (" 3 ", 3)])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "-3", "1.5K", "abc", "4X"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size_round_trip():
    for n in (0, 1, 1000, 4096, 3 << 20, 1 << 30):
        assert parse_size(format_size(n)) == n


def test_param_kinds_and_ranges():
    p = Param("budget", "float", 1.0, "", 0.001, 10)
    assert p.parse("0.5") == 0.5
    with pytest.raises(UsageError, match=r"--set budget: 20 is out of range \[0.001, 10\]"):
        p.parse("20")
    with pytest.raises(UsageError, match="is not a number"):
        p.parse("fast")
    sizes = Param("sizes", "sizes", [], "", 0, 1 << 20)
    assert sizes.parse("4K,1,1,2M".replace("2M", "1M")) == [1, 4096, 1 << 20]
    with pytest.raises(UsageError, match="out of range"):
        sizes.parse("2M")
    c = Param("bind", "choice", "close", "", choices=("close", "spread"))
    with pytest.raises(UsageError, match="not one of close, spread"):
        c.parse("tight")
    assert Param("n", "int", 0, "").to_arg(5) == ["--n", "5"]
    assert sizes.to_arg([1, 2]) == ["--sizes", "1,2"]


def test_list_and_grid_kinds():
    """ints, grids and words: a comma list parsed once, duplicates dropped in order, each item
    checked; an empty list refused unless the default is empty (not given)."""
    sn = Param("sn", "ints", [6], "", 2, 8, noun="S_N order")
    assert sn.parse("6,2,6,02") == [6, 2]
    with pytest.raises(UsageError, match=r"--set sn: 9 is out of range \[2, 8\]"):
        sn.parse("2,9")
    with pytest.raises(UsageError, match="--set sn: 'x' is not a S_N order"):
        sn.parse("2,x")
    with pytest.raises(UsageError, match="--set sn: empty list"):
        sn.parse(" , ")
    assert sn.to_arg([2, 4]) == ["--sn", "2,4"] and sn.describe() == "sn=6"
    grid = Param("grid", "grids", "", "", noun="IxJxK")
    assert grid.parse("") == [] and grid.parse("08x8x8,8x8x8,4X4x4") == [(8, 8, 8), (4, 4, 4)]
    assert grid.to_arg([(8, 8, 8), (4, 4, 4)]) == ["--grid", "8x8x8,4x4x4"]
    with pytest.raises(UsageError, match="--set grid: '8x8' is not IxJxK"):
        grid.parse("8x8")
    with pytest.raises(UsageError, match="is not IxJxK with positive numbers"):
        grid.parse("0x8x8")
    with pytest.raises(UsageError, match="is more than 2147483647"):
        grid.parse("4294967296x1x1")
    assert Param("g", "grids", [(2, 1)], "", dims=2).parse("3x1") == [(3, 1)]
    halos = Param("halos", "words", ["pack"], "", choices=("pack", "datatype", "put"), every=True)
    assert halos.parse("put,pack,put") == ["put", "pack"]
    assert halos.parse("all") == ["pack", "datatype", "put"]
    with pytest.raises(UsageError, match="--set halos: 'x' is not one of pack, datatype, put, all"):
        halos.parse("pack,x")
    land = Param("land", "words", ["none"], "", choices=("none", "continents"))
    with pytest.raises(UsageError, match="--set land: 'all' is not one of none, continents$"):
        land.parse("all")
