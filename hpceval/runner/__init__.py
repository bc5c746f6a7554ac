"""Runner: plan -> launch -> records -> validate -> store, one launch at a time.

    run.py        run_plan: a whole run, from targets to a closed run in the store
    session.py    the launches of a run, re-measuring unclean headline points
    execute.py    one launch: start, read its records, time limit, what happened
    program.py    a program that is not a benchmark (hpceval trace), launched the same way
    procs.py      every process a launch started, ended
    signals.py    SIGTERM/SIGHUP stop like Ctrl-C
    jobtime.py    a run sized to its Slurm job's time: launches that do not fit are left out
    shares.py     each area's share of a --budget kept: an overrunning area leaves launches out
    placement.py, nodeprint.py, llcprobe.py, dryrun.py, progress.py: their own docstrings
"""
from hpceval.runner.execute import Outcome, execute
from hpceval.runner.run import LLC_CHOICES, check_ranks, plan_context, run_plan
from hpceval.runner.session import (MAX_REMEASURE, RUN_TRACE_MAX_EVENTS, RunResult, Session,
                                    collect_trace, tracing)
from hpceval.runner.signals import driver_signals

__all__ = ["LLC_CHOICES", "MAX_REMEASURE", "Outcome", "RUN_TRACE_MAX_EVENTS", "RunResult",
           "Session", "check_ranks", "collect_trace", "driver_signals", "execute",
           "plan_context", "run_plan", "tracing"]
