"""Self-contained HTML report of runs in the export format (docs/export.md).

    render_report(runs, title=None) -> str        the complete HTML document
    write_report(runs, path, figure_dir=None, pdf=False)
                                                  writes it; optionally each figure as SVG + PNG
                                                  (+ PDF)
    save_comparison_figures(runs, dir, pdf=False) overlay + normalised figures of a comparison
    save_history_figures(series, dir, pdf=False)  one figure per history series
    save_trace_figures(trace, label, dir, pdf=False)
                                                  Gantt chart and utilization counts of a trace

The machine card comes first in every run; with more than one run a comparison section and a
history section (the latest run's machine over the runs given) follow the contents.

The HTML has inline CSS and inline SVG figures only: no scripts and nothing fetched from
anywhere, so it can be mailed or opened on an air-gapped login node.

Each section is built in one pass: analysis -> a view model (views.py) -> rendering (figures as
SVG and the template, render.py); output.py holds the entry points, areas.py registers every
view (hpceval/views: the figures, tables and rows of every benchmark and area).
"""
from hpceval.views.plot import make_figure
from hpceval.views.registry import FigureSpec, Table, TableSpec, register_figure, register_table

from .areas import FIGURES, TABLES
from .output import (render_report, save_comparison_figures, save_history_figures,
                     save_trace_figures, write_report)

__all__ = ["render_report", "write_report", "save_comparison_figures", "save_history_figures",
           "save_trace_figures", "FIGURES", "FigureSpec", "make_figure", "register_figure",
           "TABLES", "Table", "TableSpec", "register_table"]
