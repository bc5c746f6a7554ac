"""run_program (hpceval trace's launch path): a program whose work is complete but which does
not exit (a rank hung in MPI_Finalize) is ended after the grace time and counts as ok."""
from __future__ import annotations

import time

from hpceval.runner.execute import FINALIZE_GRACE_S
from hpceval.runner.program import run_program


def test_ended_after_its_work_is_done(tmp_path):
    marker = tmp_path / "done"
    t0 = time.monotonic()
    out = run_program(["sh", "-c", f"touch {marker}; exec sleep 600"], {}, 60,
                      done=marker.exists)
    took = time.monotonic() - t0
    assert out.status == "ok" and out.exit_code == 0, out
    assert any("hung in MPI_Finalize" in w for w in out.warnings), out.warnings
    assert FINALIZE_GRACE_S <= took < FINALIZE_GRACE_S + 10


def test_without_done_the_time_limit_rules(tmp_path):
    out = run_program(["sleep", "600"], {}, 1.0, done=lambda: False)
    assert out.status == "timeout" and "1 s time limit" in out.message


def test_a_failure_is_a_failure(tmp_path):
    out = run_program(["sh", "-c", "echo broken >&2; exit 3"], {}, 30, done=lambda: False)
    assert out.status == "failed" and out.exit_code == 3 and out.warnings == []
