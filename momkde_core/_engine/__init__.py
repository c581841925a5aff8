"""The numeric engine: weighted kernel sums per block, at points and on grids.

Layer 1 of the package (``docs/architecture.md``). Everything above reaches the engine
through the names below; the backends live in private modules (``_sums`` dispatches a grid
to the binned FFT, the binned product, the band, the separable product or the exact sums;
``_scaling`` holds the frame in which no magnitude over- or underflows).
"""

from ._grid import Grid, grid_around
from ._scaling import PEAK_LIMIT, PEAK_LIMIT_FLOAT32, Frame, selection_frame, working_frame
from ._sums import (
    CACHE_CHUNK_ELEMENTS,
    LOG_SAFE_LINEAR,
    GramOperator,
    backend_costs,
    band_block_sums,
    band_pays_off,
    block_grid_sums,
    block_log_sums,
    block_shifted_sums,
    exact_block_sums,
    exact_price,
    is_evenly_spaced,
    replay_limits,
    slot_layout,
    with_callers_replay_limits,
)

__all__ = [
    "CACHE_CHUNK_ELEMENTS",
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
    "replay_limits",
    "selection_frame",
    "slot_layout",
    "with_callers_replay_limits",
    "working_frame",
]
