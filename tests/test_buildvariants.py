"""Named builds (hpceval/buildvariants.py) made again when the C sources change: a build kept
across an update of hpceval ran the old binaries (the SimGrid 4.1 build of the study at 1,024
simulated ranks ran a collectives and harness two commits old), and `run --build` says when a
build is older than the sources. In-process, one binary built from a copy of csrc."""
from __future__ import annotations

import shutil

from hpceval import buildvariants as bv, paths
from hpceval.cli import cmd_run


def test_a_named_build_is_made_again_from_changed_sources(tmp_path, monkeypatch, capsys):
    csrc = tmp_path / "csrc"
    shutil.copytree(paths.source_csrc(), csrc)
    monkeypatch.setattr(paths, "source_csrc", lambda: csrc)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HPCEVAL_BINDIR", "")        # _use_build sets it: restored after
    r = bv.VARIANTS["gcc-native"]              # make test's own flags: compiled from ccache
    binary = bv.ensure_built(r, ["pingpong"]) / "hpceval-pingpong"
    first = binary.stat().st_ino, binary.stat().st_mtime_ns
    assert bv.made_from(r.name) == bv.sources_digest()
    again = bv.ensure_built(r, ["pingpong"]) / "hpceval-pingpong"
    assert (again.stat().st_ino, again.stat().st_mtime_ns) == first      # nothing changed
    cmd_run._use_build(r.name)
    assert "warning" not in capsys.readouterr().err
    with open(csrc / "comm" / "pingpong.c", "a") as f:
        f.write("/* a change of the sources */\n")
    cmd_run._use_build(r.name)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "made from other C sources" in err, err
    assert bv.stale_build(binary.parent) == r.name       # what the run's settings keep
    again = bv.ensure_built(r, ["pingpong"]) / "hpceval-pingpong"
    assert (again.stat().st_ino, again.stat().st_mtime_ns) != first
    assert bv.made_from(r.name) == bv.sources_digest()
    assert bv.stale_build(binary.parent) is None
    assert bv.stale_build(tmp_path / "elsewhere" / "bin") is None     # not a named build


def test_a_run_with_a_stale_build_is_marked_in_its_warnings():
    from hpceval.analysis.warnings import warnings
    kinds = {w.kind: w for w in warnings({"status": "ok", "settings": {"build_stale": "x"}})}
    assert kinds["stale-build"].severity == "bad" and "'x'" in kinds["stale-build"].text
    assert "stale-build" not in {w.kind for w in warnings({"status": "ok", "settings": {}})}
