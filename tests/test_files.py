"""The one writer (hpceval/outfiles.py) and the one reader (hpceval/infiles.py), in-process: what
an output may replace, the batch that renames all or nothing, the directory made without
following links; the reader's caps on size and nesting."""
from __future__ import annotations

import json
import os

import pytest

from hpceval.errors import UsageError
from hpceval.infiles import json_depth, read_json, read_regular, read_text
from hpceval.outfiles import (PNG, check_output_dir, check_output_file, make_dir, outputs,
                              refusal, write_text_whole)


@pytest.mark.parametrize("kind,content,replaceable", [
    ("html", b"", True),
    ("html", b"\xef\xbb\xbf\n  <!DOCTYPE HTML><html>", True),
    ("html", b"<html lang=en>", True),
    ("html", b'{"a": 1}', False),
    ("json", b'  [1, 2]', True),
    ("json", b"<!doctype html>", False),
    ("xml", b'<?xml version="1.0"?><testsuites/>', True),
    ("svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>", True),
    ("png", PNG + bytes(8), True),
    ("png", b"<svg/>", False),
    ("pdf", b"%PDF-1.4\n", True),
    ("text", "ünïcode, cut in the midd".encode() + "é".encode()[:1], True),
    ("text", b"SQLite format 3\0" + bytes(100), False),
    ("json", b"SQLite format 3\0" + bytes(100), False),
])
def test_what_an_output_may_replace(tmp_path, kind, content, replaceable):
    f = tmp_path / "f"
    f.write_bytes(content)
    assert (refusal(f, kind) is None) == replaceable


def test_a_refusal_says_what_the_file_is(tmp_path):
    (tmp_path / "db").write_bytes(b"SQLite format 3\0" + bytes(100))
    assert "(a SQLite database)" in refusal(tmp_path / "db", "html")
    (tmp_path / "prog").write_bytes(b"\x7fELF\2\1\1" + bytes(64))
    assert "(an ELF executable)" in refusal(tmp_path / "prog", "json")
    os.symlink(tmp_path / "db", tmp_path / "link")
    assert "symbolic link" in refusal(tmp_path / "link", "html")
    os.mkfifo(tmp_path / "fifo")
    assert "(a FIFO)" in refusal(tmp_path / "fifo", "text")


def test_a_batch_renames_all_or_nothing(tmp_path):
    (tmp_path / "a.svg").write_text("<svg>old</svg>")
    victim = tmp_path / "victim"
    victim.write_text("kept")
    with pytest.raises(UsageError, match=r"--figures .*b\.png: is a symbolic link"):
        with outputs("--figures") as batch:
            with batch.open(tmp_path / "a.svg", "w") as f:
                f.write("<svg>new</svg>")
            with batch.open(tmp_path / "b.png", "wb") as f:
                f.write(PNG)
            os.symlink(victim, tmp_path / "b.png")      # appears while the command works
    assert (tmp_path / "a.svg").read_text() == "<svg>old</svg>" and victim.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "b.png", "victim"]


def test_a_kind_is_declared_or_taken_from_the_suffix(tmp_path):
    out = tmp_path / "table.json"
    out.write_text("<!doctype html>")
    with pytest.raises(UsageError, match="is not a JSON file \\(an HTML file\\)"):
        write_text_whole(out, "{}")
    write_text_whole(out, "<html>new</html>", "html")
    assert out.read_text() == "<html>new</html>"
    with pytest.raises(UsageError, match="-o .*: exists and is not an XML file"):
        check_output_file(out, "-o", "xml")


def test_a_named_directory_is_made_without_following_links(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "link")
    for path in (tmp_path / "link", tmp_path / "dangling"):
        if path.name == "dangling":
            os.symlink(tmp_path / "nowhere", path)
        with pytest.raises(UsageError, match="is a symbolic link"):
            check_output_dir(path, "--figures")
        with pytest.raises(UsageError, match="is a symbolic link"):
            make_dir(path, "--figures x")
    os.close(make_dir(tmp_path / "new" / "deeper", "--figures"))
    assert (tmp_path / "new" / "deeper").is_dir() and not (tmp_path / "nowhere").exists()
    assert list(elsewhere.iterdir()) == []


def test_the_reader_caps_size_without_reading(tmp_path):
    huge = tmp_path / "huge"
    with open(huge, "wb") as f:
        f.truncate(1 << 40)                       # sparse: refused by its size, unread
    with pytest.raises(UsageError, match="more than 1 MiB; refused"):
        read_regular(str(huge), "spec huge", 1 << 20)
    assert read_regular(str(huge), "x", first=4) == bytes(4)
    with pytest.raises(UsageError, match="x: not a regular file \\(a directory\\)"):
        read_regular(str(tmp_path), "x")
    (tmp_path / "bin").write_bytes(b"\xff\xfe")
    with pytest.raises(UsageError, match="not UTF-8 text"):
        read_text(str(tmp_path / "bin"), "x")


@pytest.mark.parametrize("text,depth", [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('["[[[[", "\\"[{"]', 1),
    ("[" * 100_000 + "]" * 100_000, 100_000),
])
def test_json_depth_scans_brackets_outside_strings(text, depth):
    assert json_depth(text) == depth


def test_deep_json_is_refused_in_one_line(tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 65 + "]" * 65)
    with pytest.raises(UsageError, match="deep.json: nested more than 64 levels deep"):
        read_json(str(f), str(f))
    f.write_text(json.dumps({"a": [[1]]}))
    assert read_json(str(f), "x") == {"a": [[1]]}
