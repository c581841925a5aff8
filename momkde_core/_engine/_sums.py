"""Transitional aliases of the engine's former single module (issue #24).

The engine's sums now live in one module per concern (``_point_sums``, ``_memo``,
``_costs``, ``_fft``, ``_exact_tails``, ``_band``, ``_separable``, ``_gram``,
``_grid_sums``). This module only re-exports the few names that code outside the engine's
own tests still imports from here; it goes once those imports point at the new modules.
Read through it, never patch through it: a ``monkeypatch.setattr`` on this module changes
nothing the engine reads.
"""

from ._gram import GramOperator
from ._grid_sums import block_grid_sums
from ._memo import _MEMO, _limits, replay_limits
from ._point_sums import block_log_sums

__all__ = ["_MEMO", "GramOperator", "_limits", "block_grid_sums", "block_log_sums", "replay_limits"]
