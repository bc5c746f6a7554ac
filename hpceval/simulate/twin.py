"""A twin: a simulated platform describing a node kind, calibrated from a stored run's records or
from a spec sheet (`hpceval twin`, docs/simulate.md "Twins"), in the form `--platform` reads.

The file is a SimGrid platform (version 4.1) with

- a versioned header comment (`hpceval-twin FORMAT`),
- a `<config>` element with the SMPI settings it needs (SimGrid applies them itself;
  `--platform` also passes them as --cfg, so they win over hpceval's defaults),
- one comment per calibrated value naming the record it came from (run uuid, benchmark, point),
- one `<cluster>` of the topology's writer (hpceval/simulate/topology.py) carrying, as the
  property `hpceval-twin`, the twin itself as JSON: `--platform TWIN --nodes N` writes the same
  twin for N nodes, so the topology grows with N."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Dict, List, Optional
from xml.sax.saxutils import escape, quoteattr

from hpceval.errors import UsageError
from hpceval.simulate.platform import Description

FORMAT = 1
# Settings SimGrid 3.32 takes only on the command line: smpi/coll-selector in a platform's
# <config> ends the simulation at load ("Actor pid=-1 is gone??"). They reach smpirun as --cfg
# (config_cfg), the twin's JSON keeps them.
CFG_ONLY = frozenset({"smpi/coll-selector"})
PROP = "hpceval-twin"
_HEADER = re.compile(r"<!--\s*hpceval-twin\s+(\S+)")


@dataclass
class Note:
    """One calibrated value and where it came from."""
    what: str                 # "smpi/lat-factor segment 1,040 B+", "core speed" ...
    value: str
    source: str               # "run <uuid> pingpong latency bytes=1024 (median 0.94 us)"


@dataclass
class Twin:
    description: Description               # the node kind; `nodes` is the default count
    config: Dict[str, str]                 # SMPI settings: smpi/lat-factor, ...
    source: Dict[str, Any]                 # {"run": uuid, "machine": hash, "host": ...} | {"spec": path}
    notes: List[Note] = field(default_factory=list)

    def for_nodes(self, nodes: int) -> "Twin":
        return replace(self, description=replace(self.description, nodes=nodes))

    def source_line(self) -> str:
        s = self.source
        if "run" in s:
            runs = "runs" if "," in str(s["run"]) else "run"
            return f"{runs} {s['run']} on machine {s.get('machine')} ({s.get('host')})"
        return f"spec sheet {s.get('spec')}" + (f" ({s['name']})" if s.get("name") else "")

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "description": self.description.settings(),
                           "config": self.config, "source": self.source,
                           "notes": [asdict(n) for n in self.notes]}, sort_keys=True)


def _comment(text: str) -> str:
    return "<!-- " + escape(text).replace("--", "- -") + " -->"


def twin_xml(twin: Twin) -> str:
    """The twin's platform file for its description's node count."""
    from hpceval.simulate.topology import HEADER, TOPOLOGIES
    d = twin.description
    head, rest = HEADER.split("<platform", 1)
    config = "".join(f"    <prop id={quoteattr(k)} value={quoteattr(v)}/>\n"
                     for k, v in twin.config.items() if k not in CFG_ONLY)
    notes = "".join(f"  {_comment(f'{n.what} = {n.value}: {n.source}')}\n" for n in twin.notes)
    cluster = TOPOLOGIES[d.topology](d).rstrip()
    assert cluster.endswith("/>")
    cluster = (cluster[:-2] + f">\n    <prop id={quoteattr(PROP)} value={quoteattr(twin.to_json())}/>"
               "\n  </cluster>\n")
    return (head + _comment(f"hpceval-twin {FORMAT}: a node kind calibrated from "
                            f"{twin.source_line()}; run it with 'hpceval run SUITE --platform "
                            "THIS --nodes N [--ppn K]'") + "\n<platform" + rest
            + '  <config id="General">\n' + config + "  </config>\n" + notes + cluster
            + "</platform>\n")


def _twin_prop(xml: str) -> Optional[str]:
    import xml.etree.ElementTree as ET
    for el in ET.fromstring(xml).iter("prop"):
        if el.get("id") == PROP:
            return el.get("value")
    return None


def read_twin(xml: str, what: str) -> Optional[Twin]:
    """The twin a platform file carries, None for a plain platform file; a twin of another
    format, or damaged, is one line (UsageError)."""
    m = _HEADER.search(xml[:4096])
    if not m:
        return None
    if m.group(1).rstrip(":") != str(FORMAT):
        raise UsageError(f"{what}: a twin of format {m.group(1).rstrip(':')}; this hpceval reads "
                         f"format {FORMAT} (make it again with 'hpceval twin')")
    try:
        doc = json.loads(_twin_prop(xml) or "")
        return Twin(Description(**doc["description"]), dict(doc["config"]), dict(doc["source"]),
                    [Note(**n) for n in doc["notes"]])
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{what}: a damaged twin (its '{PROP}' property: {exc})") from None


def config_cfg(config: Dict[str, str]) -> List[str]:
    """The twin's SMPI settings as smpirun's --cfg options."""
    return [f"--cfg={k}:{v}" for k, v in config.items()]
