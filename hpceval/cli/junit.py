"""JUnit XML of `hpceval history --check` for CI pipelines (GitLab, Jenkins: docs/ci.md): one test
case per metric series, a failure per regression with its numbers, skipped where the latest run
cannot be judged (a single run, or points that are not comparable)."""
from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from typing import Sequence

from hpceval.cli.common import fmt_value


def _case(suite: ET.Element, x, threshold: float) -> str:
    """Add x's test case; returns "failure", "skipped" or "passed"."""
    case = ET.SubElement(suite, "testcase", classname=f"hpceval.{x.benchmark}", name=x.key,
                         time="0")
    lv = x.latest
    last = x.points[-1]
    if lv is None:
        ET.SubElement(case, "skipped", message=f"{len(x.points)} run: nothing to compare with")
        return "skipped"
    if lv["verdict"] == "regression":
        message = (f"{x.key}: {100 * lv['worse_by']:.1f}% worse than the median of earlier runs "
                   f"(threshold {100 * threshold:g}%)")
        failure = ET.SubElement(case, "failure", type="regression", message=message)
        failure.text = (f"latest {fmt_value(lv['value'])} {x.unit} (run {last['run']}), "
                        f"baseline {fmt_value(lv['baseline'])} {x.unit}, noise "
                        f"{fmt_value(lv['noise'])} {x.unit}, {x.better} is better, "
                        f"{len(x.points)} runs")
        return "failure"
    if lv["verdict"] not in ("unchanged", "improvement"):
        ET.SubElement(case, "skipped", message=f"{lv['verdict']}: {lv.get('why') or ''}".strip(": "))
        return "skipped"
    out = ET.SubElement(case, "system-out")
    out.text = (f"{lv['verdict']}: latest {fmt_value(lv['value'])} {x.unit}, baseline "
                f"{fmt_value(lv['baseline'])} {x.unit} ({100 * lv['worse_by']:+.1f}% worse)")
    return "passed"


def junit_xml(series: Sequence, threshold: float) -> str:
    """The document: <testsuites> holding one <testsuite> of len(series) cases."""
    root = ET.Element("testsuites", name="hpceval")
    suite = ET.SubElement(root, "testsuite", name="hpceval history --check",
                          timestamp=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
                          hostname=socket.gethostname())
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="threshold", value=f"{threshold:g}")
    outcomes = [_case(suite, x, threshold) for x in series]
    counts = {"tests": len(outcomes), "failures": outcomes.count("failure"), "errors": 0,
              "skipped": outcomes.count("skipped")}
    for element in (root, suite):
        element.attrib.update({k: str(v) for k, v in counts.items() if element is suite or
                               k != "skipped"})
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
