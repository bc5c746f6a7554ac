"""The code stays readable at a glance (issue: a harness where a new benchmark touches its own
files only): no function over 80 lines and no file over 500 lines in csrc/ or hpceval/."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterator, List, Tuple

from helpers import ROOT

MAX_FUNCTION, MAX_FILE = 80, 500
# A C function definition at file level: a line starting a declaration that ends with ")" (the
# "{" on the next line, this code's style) or with ") {".
C_HEAD = re.compile(r"^[A-Za-z_][^;=]*\)\s*(\{\s*)?$")


def c_functions(lines: List[str]) -> Iterator[Tuple[str, int]]:
    """(head, length in lines) of every function body: from its head to the closing brace in
    column 0."""
    i = 0
    while i < len(lines):
        brace_next = i + 1 < len(lines) and lines[i + 1].startswith("{")
        if C_HEAD.match(lines[i]) and (brace_next or lines[i].rstrip().endswith("{")):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            yield lines[i].strip(), j - i + 1
            i = j
        i += 1


def test_c_sources():
    long = []
    for path in sorted((ROOT / "csrc").rglob("*.[ch]")):
        lines = path.read_text().split("\n")
        rel = path.relative_to(ROOT)
        if len(lines) > MAX_FILE:
            long.append(f"{rel}: {len(lines)} lines")
        long += [f"{rel}: {head} is {n} lines" for head, n in c_functions(lines)
                 if n > MAX_FUNCTION]
    assert long == []


def test_python_sources():
    long = []
    for path in sorted((ROOT / "hpceval").rglob("*.py")):
        text = path.read_text()
        rel = path.relative_to(ROOT)
        if text.count("\n") > MAX_FILE:
            long.append(f"{rel}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION:
                    long.append(f"{rel}: {node.name} is {n} lines")
    assert long == []


def test_the_c_scanner_finds_functions():
    src = ["static int f(int a)", "{", *["    a++;"] * 3, "}", "int g(void) {", "}",
           "int x = h(1);"]
    assert list(c_functions(src)) == [("static int f(int a)", 6), ("int g(void) {", 2)]
