"""What a fit produces (:class:`FittedBlocks`) and the integral of MoM-KDE's median.

Layer 2 of the package (``docs/architecture.md``): above the numeric engine, below the
bandwidth rules and the estimators, which both build and read fitted blocks.
"""

from ._fitted import (
    FittedBlocks,
    block_labels,
    block_order,
    equal_weights,
    grid_median,
    median_of_blocks,
    shuffled_blocks,
)
from ._normalize import importance_price, log_integral

__all__ = [
    "FittedBlocks",
    "block_labels",
    "block_order",
    "equal_weights",
    "grid_median",
    "importance_price",
    "log_integral",
    "median_of_blocks",
    "shuffled_blocks",
]
