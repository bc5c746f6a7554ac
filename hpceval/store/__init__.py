"""Store: the SQLite results database (versioned schema)."""
from hpceval.store.db import EXPORT_VERSION, STATS, Store, dump_json
from hpceval.store.importer import import_file, import_runs, parse_export, read_export
from hpceval.store.schema import SCHEMA_VERSION

__all__ = ["EXPORT_VERSION", "SCHEMA_VERSION", "STATS", "Store", "dump_json", "import_file", "import_runs",
           "parse_export", "read_export"]
