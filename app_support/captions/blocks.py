"""What the S control says under itself: how S auto was computed (2⌈εn⌉+1, or n), and
whether S meets the guide S > 2|O|."""

from __future__ import annotations

import math


def auto_formula(blocks: int, eps: float, n: int) -> str:
    """How S auto was computed: 2⌈εn⌉+1, or that value capped at n (one row per block).

    Examples
    --------
    >>> auto_formula(21, 0.1, 100), auto_formula(2, 0.1, 2)
    (' = 2⌈εn⌉+1 with ε = 0.1, n = 100', ' = n = 2 (2⌈εn⌉+1 = 3 with ε = 0.1, capped at one row per block)')
    """
    formula = 2 * math.ceil(eps * n - 1e-9) + 1
    if blocks == formula:
        return f" = 2⌈εn⌉+1 with ε = {eps:g}, n = {n}"
    return f" = n = {n} (2⌈εn⌉+1 = {formula} with ε = {eps:g}, capped at one row per block)"


def guide_note(n_blocks: int, n_outliers: int | None) -> str:
    """Whether S meets the guide S > 2|O|, worded as what the guide is: a guarantee, whatever
    the split, not what a split did.

    Examples
    --------
    >>> guide_note(25, 12)
    '; meets the guide S > 2|O| = 24: fewer than half of the blocks hold an outlier, whatever the split.'
    >>> guide_note(21, 12)
    '; below the guide S > 2|O| = 24 (a guarantee whatever the split): here the split decides.'
    """
    if not n_outliers:
        return "."
    guide = f"the guide S > 2|O| = {2 * n_outliers}"
    if n_blocks > 2 * n_outliers:
        return (
            f"; meets {guide}: fewer than half of the blocks hold an outlier, whatever the split."
        )
    return f"; below {guide} (a guarantee whatever the split): here the split decides."
