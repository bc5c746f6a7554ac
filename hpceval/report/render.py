"""View model -> HTML: every figure drawn as inline SVG (ids prefixed so that several share one
document), then the template filled in."""
from __future__ import annotations

from datetime import datetime, timezone
from importlib import resources

import jinja2
from markupsafe import Markup

from hpceval.views.plot import SVG_CSS, to_svg


def _template() -> jinja2.Template:
    # Read through importlib.resources so the template is found in an installed wheel too.
    text = resources.files(__package__).joinpath("templates/report.html.j2").read_text("utf-8")
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    return env.from_string(text)


def draw(figures: list[dict]) -> list[tuple]:
    """Give each figure view its "svg"; returns [(file stem, Figure)] in the same order."""
    for i, f in enumerate(figures):
        # The SVG is matplotlib's output with comments stripped and text drawn as paths, so no
        # string from the runs is in it as markup; it is safe to mark as such.
        f["svg"] = Markup(to_svg(f["figure"], id_prefix=f"f{i}-"))
    return [(f["stem"], f["figure"]) for f in figures]


def render(view: dict, figures: list[dict]) -> tuple[str, list[tuple]]:
    """(the HTML document, [(file stem, Figure)]) of a report view whose figures are `figures`
    (views.figures_of), drawn in that order."""
    made = draw(figures)
    html = _template().render(
        title=view["title"],
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        runs=view["runs"], comparison=view["comparison"], history=view["history"],
        svg_css=SVG_CSS,
    ).lstrip()  # the template's leading macro definitions leave blank lines
    return html, made
