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
