"""Each area's share of a --budget is kept while the run goes (hpceval/runner/shares.py): a
launch whose estimate would reach into the later areas' planned time is left out and the run
goes on with the next area; the last area runs to the budget's end. The clock is planted: the
launches take the times the test gives them, so every decision is known in advance."""
from __future__ import annotations

import types
from typing import Dict, List

import pytest

from hpceval.catalog import BENCHMARKS, LaunchSpec
from hpceval.runner import run as run_module
from hpceval.runner.execute import Outcome
from hpceval.runner.session import RunResult
from hpceval.runner.shares import area_ends, over_share

AREAS = [{"area": "communication", "estimate_s": 10.0}, {"area": "kernels", "estimate_s": 5.0},
         {"area": "proxies", "estimate_s": 8.0}]


def spec(benchmark: str, label: str, estimate: float) -> LaunchSpec:
    return LaunchSpec(benchmark, label, benchmark, [], 2, "core", estimate_s=estimate,
                      startup_s=0.0)


def test_the_benchmarks_used_here_are_of_the_areas_named():
    assert [BENCHMARKS[b].area for b in ("pingpong", "stream", "hydro")] == [
        "communication", "memory", "proxies"]


def test_each_area_ends_where_the_later_areas_estimates_begin():
    assert area_ends(AREAS, 100.0) == {"communication": 87.0, "kernels": 92.0, "proxies": 100.0}
    assert area_ends(AREAS, None) == {}                     # no budget: no shares


def test_a_launch_past_its_areas_end_is_left_out_while_a_later_area_waits():
    ends = {"communication": 87.0, "proxies": 100.0}
    ping, hydro = spec("pingpong", "pingpong", 3.0), spec("hydro", "hydro", 3.0)
    assert over_share(ping, [hydro], ends, now=85.0)        # would end at 88 > 87
    assert not over_share(ping, [hydro], ends, now=84.0)    # ends at 87: in its share
    assert not over_share(ping, [ping], ends, now=99.0)     # nothing later: the budget decides
    assert not over_share(hydro, [], ends, now=99.0)        # the last area: the budget's end


class _Clock:
    def __init__(self):
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class _Session:
    """What launch_all asks of a session, on a planted clock: each launch takes `took[label]`
    seconds (its estimate when not given) and is ok."""

    def __init__(self, clock: _Clock, areas: List[Dict], budget_s: float, took: Dict[str, float]):
        self.ctx = types.SimpleNamespace(areas=areas)
        self.deadline, self.clock_, self.took, self.made = budget_s, clock, took, []
        self.clock = types.SimpleNamespace(query=lambda: (None, None))   # not in a Slurm job

    def spent(self, need: float = 0.0) -> bool:
        return self.clock_.now + need > self.deadline

    def launch(self, s: LaunchSpec) -> Outcome:
        self.clock_.now += self.took.get(s.label, s.estimate_s)
        self.made.append(s.label)
        return Outcome(command=[], started="", status="ok")


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    c = _Clock()
    monkeypatch.setattr(run_module, "time", c)
    return c


PLAN = [spec("pingpong", "pingpong", 2.0), spec("p2p", "p2p", 2.0), spec("loggp", "loggp", 2.0),
        spec("hydro", "hydro np=1", 2.0), spec("hydro", "hydro np=2", 2.0)]
PLAN_AREAS = [{"area": "communication", "estimate_s": 6.0}, {"area": "proxies", "estimate_s": 4.0}]


def test_an_overrunning_area_leaves_its_last_launches_out_and_the_next_area_runs(clock):
    # pingpong takes 5 s of its area's 6: p2p would end at 7 > 6 (10 s less proxies' 4)
    session = _Session(clock, PLAN_AREAS, 10.0, {"pingpong": 5.0})
    result = RunResult(1, "ok")
    assert run_module.launch_all(session, PLAN, result) == "incomplete"
    assert session.made == ["pingpong", "hydro np=1", "hydro np=2"]
    assert result.left_out == ["p2p", "loggp"]
    assert result.reason == ("the --budget's share of communication was spent (slower than "
                             "estimated); left out 2 launches: p2p, loggp")


def test_a_launch_passed_over_runs_at_the_end_where_the_budget_holds_it(clock):
    """The tenth hour at 1,024 simulated ranks passed pop-step's top over (its area had
    overrun) and ended 219 s inside its budget, enough for it: what the later areas leave
    passes back to the launches passed over, in order, while the budget holds them."""
    # pingpong takes 5 s: p2p and loggp are passed over; the proxies take 1 s each, leaving
    # 3 s at the end: p2p (2 s) runs there, loggp (2 s more) would pass the budget's end
    session = _Session(clock, PLAN_AREAS, 10.0, {"pingpong": 5.0, "hydro np=1": 1.0,
                                                 "hydro np=2": 1.0})
    result = RunResult(1, "ok")
    assert run_module.launch_all(session, PLAN, result) == "incomplete"
    assert session.made == ["pingpong", "hydro np=1", "hydro np=2", "p2p"]
    assert result.left_out == ["loggp"]
    clock.now = 0.0     # 10.5 s: both fit after the proxies' 1 s
    session = _Session(clock, PLAN_AREAS, 10.5, {"pingpong": 5.0, "hydro np=1": 0.5,
                                                 "hydro np=2": 0.5})
    assert run_module.launch_all(session, PLAN, RunResult(1, "ok")) == "ok"
    assert session.made == ["pingpong", "hydro np=1", "hydro np=2", "p2p", "loggp"]


def test_on_its_estimates_every_launch_runs(clock):
    session = _Session(clock, PLAN_AREAS, 10.0, {})
    result = RunResult(1, "ok")
    assert run_module.launch_all(session, PLAN, result) == "ok"
    assert session.made == [s.label for s in PLAN] and result.left_out == []


def test_time_an_area_leaves_unused_passes_to_the_next(clock):
    # communication ends 3 s early; the proxies' launches, 2 s slower each, still fit
    session = _Session(clock, PLAN_AREAS, 10.0, {"pingpong": 1.0, "p2p": 1.0, "loggp": 1.0,
                                                 "hydro np=1": 3.0, "hydro np=2": 3.0})
    assert run_module.launch_all(session, PLAN, RunResult(1, "ok")) == "ok"
    assert session.made == [s.label for s in PLAN]


def test_without_a_budget_nothing_is_left_out(clock):
    session = _Session(clock, [], float("inf"), {"pingpong": 50.0})
    session.deadline = None
    session.spent = lambda need=0.0: False
    assert run_module.launch_all(session, PLAN, RunResult(1, "ok")) == "ok"
    assert len(session.made) == len(PLAN)
