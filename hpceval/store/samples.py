"""A point's samples in the store, and the percentiles computed from them when it is stored.

A result record carries the samples its stats are over (`samples`, docs/records.md): every
sample in the order taken, or 1000 order statistics spread over the sorted samples when there
were more. The store keeps them (a BLOB: zlib of little-endian float64) and, once, when the
record is stored, computes p90 and p99 (numpy's default, linear interpolation between order
statistics) and the coefficient of variation, stddev / |mean|. p50 is the median the binary
computed (the same order statistic, from unrounded samples).
"""
from __future__ import annotations

import sys
import zlib
from array import array
from typing import Any, Dict, List, Optional

# Beside STATS in an exported record's stats, and columns of the CSV export.
SHAPE = ("p50", "p90", "p99", "cv")
# The statistics of a stored point that `history --stat` can follow.
POINT_STATS = ("median", "p50", "p90", "p99", "cv", "min", "max", "mean")
PERCENTILES = (90, 99)


def encode(samples: Optional[List[float]]) -> Optional[bytes]:
    if not samples:
        return None
    a = array("d", samples)
    if sys.byteorder != "little":
        a.byteswap()
    return zlib.compress(a.tobytes(), 6)


def decode(blob: bytes) -> List[float]:
    """The samples of a stored point; ValueError when the cell is not what encode wrote."""
    try:
        a = array("d", zlib.decompress(blob))
    except (zlib.error, TypeError) as exc:
        raise ValueError(str(exc)) from None
    if not a:
        raise ValueError("no samples")
    if sys.byteorder != "little":
        a.byteswap()
    return a.tolist()


def shape(rec: Dict[str, Any]) -> Dict[str, Optional[float]]:
    """{p90, p99, cv} of a record about to be stored: the percentiles from its samples when it
    carries them, else what its stats say (an export of a point stored without samples: none);
    cv from its stddev and mean (None when the mean is 0)."""
    s = rec.get("stats") or {}
    samples = rec.get("samples")
    if samples:
        import numpy as np          # only when storing samples: the CLI starts without it
        p90, p99 = (float(v) for v in np.percentile(np.asarray(samples, dtype=float),
                                                    PERCENTILES))
    else:
        p90, p99 = s.get("p90"), s.get("p99")
    mean, sd = s.get("mean"), s.get("stddev")
    cv = sd / abs(mean) if mean and sd is not None else None
    return {"p90": p90, "p99": p99, "cv": cv}


def stats_shape(row: Any) -> Dict[str, float]:
    """The stored p50 (the median), p90, p99 and cv of a records row that has them."""
    out = {"p50": row["median"], "p90": row["p90"], "p99": row["p99"], "cv": row["cv"]}
    return {k: v for k, v in out.items() if v is not None}
