"""Store: the SQLite results database (versioned schema)."""
from hpceval.store.db import EXPORT_VERSION, STATS, Store
from hpceval.store.schema import SCHEMA_VERSION

__all__ = ["EXPORT_VERSION", "SCHEMA_VERSION", "STATS", "Store"]
