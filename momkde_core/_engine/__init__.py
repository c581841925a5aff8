"""The numeric engine: weighted kernel sums per block, at points and on grids.

Layer 1 of the package (``docs/architecture.md``). Everything above reaches the engine
through the names below; the algorithms live in private modules, one per concern:

* ``_point_sums``: exact sums at points (log space, linear space, shifted);
* ``_grid_sums``: sums on a grid, dispatched by ``_costs`` (the backends' prices) to
  ``_fft`` (binning and FFT), ``_binned_product``, ``_separable``, ``_band`` or the exact
  sums, the far tails recomputed by ``_exact_tails``;
* ``_median_sums``: MoM-KDE's median of block sums at many points (scoring), and
  ``median``, the one median (numpy's, in linear or log space) of every layer;
* ``_gram``: the Gram products of RKDE and SPKDE;
* ``_memo``: the replay memo of kernel values;
* ``_scaling``: the frame in which no magnitude over- or underflows; ``_grid``: grids;
  ``_threads``: the kept worker pool; the compiled helpers ``_binning``, ``_axis_factors``,
  ``_disc_pairs``, ``_tail_windows``.
"""

from ._band import band_block_sums
from ._costs import backend_costs, band_pays_off, exact_price
from ._gram import GramOperator
from ._grid import Grid, grid_around, is_evenly_spaced
from ._grid_sums import block_grid_sums
from ._median_sums import median, median_log_sums
from ._memo import replay_limits
from ._point_sums import (
    CACHE_CHUNK_ELEMENTS,
    FAST_GAUSSIAN_PAIRS,
    LOG_SAFE_LINEAR,
    block_log_sums,
    block_shifted_sums,
    exact_block_sums,
    slot_layout,
)
from ._scaling import PEAK_LIMIT, PEAK_LIMIT_FLOAT32, Frame, selection_frame, working_frame

__all__ = [
    "CACHE_CHUNK_ELEMENTS",
    "FAST_GAUSSIAN_PAIRS",
    "LOG_SAFE_LINEAR",
    "PEAK_LIMIT",
    "PEAK_LIMIT_FLOAT32",
    "Frame",
    "GramOperator",
    "Grid",
    "backend_costs",
    "band_block_sums",
    "band_pays_off",
    "block_grid_sums",
    "block_log_sums",
    "block_shifted_sums",
    "exact_block_sums",
    "exact_price",
    "grid_around",
    "is_evenly_spaced",
    "median",
    "median_log_sums",
    "replay_limits",
    "selection_frame",
    "slot_layout",
    "working_frame",
]
