"""Plotly figure builders shared by the Streamlit app and the command line.

Every figure of the project is built here so that the app, the CLI and the tests draw the
same thing. Nothing here imports streamlit: a builder takes arrays or tidy tables and
returns a ``plotly.graph_objects.Figure``. Each method keeps one colour in every figure
(``METHOD_COLORS``) so that a reader can match curves across pages at a glance.

The modules: ``_style`` (colours, names, legend order, layout, the log axis' floor),
``_density_1d`` (densities on one axis over a rug), ``_density_2d`` (one heatmap per method),
``_sweep`` (a metric against the outlier ratio) and ``_learn`` (the error against S, the cost
against n). A line that would hide another is dashed: :func:`twin_lines` finds them
(:func:`sweep_twin_lines`, :func:`density_twin_curves` on each figure's axis),
:func:`twin_dashes` styles them.
"""

from ._density_1d import density_1d_figure, density_twin_curves
from ._density_2d import density_2d_figure, shared_colour_cap
from ._learn import error_vs_blocks_figure, timing_figure, timing_slopes
from ._style import (
    BLOCK_COLOR,
    CHANCE_AUC,
    COINCIDE,
    COLOUR_DECADES,
    DASHES,
    FLAG_COLOR,
    METHOD_COLORS,
    METRIC_LABELS,
    STANDALONE_TEMPLATE,
    SVG_MARKERS,
    TRUTH_LABEL,
    legend_order,
    log_density_floor,
    method_color,
    method_label,
    twin_dashes,
    twin_lines,
)
from ._sweep import metric_vs_ratio_figure, sweep_twin_lines

__all__ = [
    "BLOCK_COLOR",
    "CHANCE_AUC",
    "COINCIDE",
    "COLOUR_DECADES",
    "DASHES",
    "FLAG_COLOR",
    "METHOD_COLORS",
    "METRIC_LABELS",
    "STANDALONE_TEMPLATE",
    "SVG_MARKERS",
    "TRUTH_LABEL",
    "density_1d_figure",
    "density_2d_figure",
    "density_twin_curves",
    "error_vs_blocks_figure",
    "legend_order",
    "log_density_floor",
    "method_color",
    "method_label",
    "metric_vs_ratio_figure",
    "shared_colour_cap",
    "sweep_twin_lines",
    "timing_figure",
    "timing_slopes",
    "twin_dashes",
    "twin_lines",
]
