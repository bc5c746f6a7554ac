"""The plan of an experiment: variants interleaved round by round; bad input refused."""
import pytest

from hpceval.catalog import PlanContext
from hpceval.errors import UsageError
from hpceval.experiment import EXPERIMENTS, Setup
from hpceval.experiment.plan import interleave, plan_variants

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def test_variants_are_interleaved():
    setup = Setup("column", ["nlons=8", "ncols=16"], CTX, launcher=None)
    steps = interleave(plan_variants("pages", "base,thp", setup), 3)
    assert [(s.round, s.variant) for s in steps] == [
        (1, "base"), (1, "thp"), (2, "base"), (2, "thp"), (3, "base"), (3, "thp")]


def test_the_kinds_are_a_registry():
    assert {"binding", "copies", "pages"} <= set(EXPERIMENTS)
    assert EXPERIMENTS["copies"].parse("sweep", PlanContext(8, 0, 0)) == ["1", "2", "4", "8"]


@pytest.mark.parametrize("kind,variants,rounds,says", [
    ("pages", "base,thp", 0, "--rounds 0"),
    ("pages", "thp", 3, "at least two variants"),
    ("copies", "1,x", 3, "'x' is not a copy count"),
    ("binding", "consecutive,wide", 3, "unknown binding 'wide'"),
])
def test_bad_plans_are_refused(kind, variants, rounds, says):
    setup = Setup("column", [], CTX, launcher=None)
    with pytest.raises(UsageError, match=says):
        interleave(plan_variants(kind, variants, setup), rounds)
