"""Named suites. `quick` evaluates a node in about a minute on 2 cores."""
from hpceval.catalog.registry import Suite, register_suite

register_suite(Suite(
    "quick", "ping-pong, memory latency and STREAM, short budgets (about a minute)",
    (("pingpong", {"budget": "0.2", "ci-target": "0.02"}),
     ("mem-latency", {"budget": "0.25"}),
     ("stream", {"budget": "2", "max-reps": "20"}))))
