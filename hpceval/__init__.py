"""hpceval: evaluate a parallel computer the way the classic machine-evaluation studies did.

Public API (everything else is private and may change):
    run_plan, plan_targets   -- plan and execute benchmarks (hpceval.runner / hpceval.catalog)
    Store                    -- the SQLite results database (hpceval.store)
    machine_fingerprint      -- this machine's fingerprint (hpceval.fingerprint)
"""
__version__ = "0.1.0"

_PUBLIC = {
    "run_plan": "hpceval.runner",
    "plan_targets": "hpceval.catalog",
    "Store": "hpceval.store",
    "machine_fingerprint": "hpceval.fingerprint",
}


def __getattr__(name):  # lazy, so `import hpceval` stays cheap
    if name in _PUBLIC:
        import importlib
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'hpceval' has no attribute {name!r}")
