"""The estimators' ``sample``: independent draws from the estimate, exact for MoM-KDE's
median too (rejection from the mean of its block densities)."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import InvalidParameterError, is_int
from ._mixed import mixed_draws

MAX_SAMPLE_ROUNDS = 100  # sample() gives up after this many rounds without an accepted draw


class _SampleMethods:
    """``sample`` of every estimator (a mixin of
    :class:`~momkde_core.estimators._base._BaseKDE`): it reads the fit held in ``_fitted``
    (:class:`~momkde_core._blocks.FittedBlocks`), its frame ``_frame``, ``_mixed`` and
    ``n_features_in_``."""

    def sample(
        self,
        n_samples: int = 1,
        random_state: int | np.random.RandomState | np.random.Generator | None = None,
    ) -> np.ndarray:
        """Independent draws from the estimated density.

        Exact for every estimator: MoM-KDE's draws follow its median divided by its integral
        (Notes), as KDE's, RKDE's and SPKDE's follow their weighted sums.

        Parameters
        ----------
        n_samples : int, default 1
            The number of draws (0 gives an empty array).
        random_state : int, RandomState, numpy Generator or None, default None
            The source of randomness; None: numpy's global state.

        Returns
        -------
        draws : ndarray of shape (n_samples, d)
            The draws, in the data's units.

        Raises
        ------
        momkde_core.InvalidParameterError
            ``n_samples`` is not a non-negative integer.
        ValueError
            No draw was accepted in ``MAX_SAMPLE_ROUNDS`` (100) rounds (the median of the
            block KDEs is almost 0 where they hold their mass: use fewer blocks or a larger
            bandwidth), or draws fall beyond float64's range (data within a few bandwidths of
            it: rescale the data).

        See Also
        --------
        pdf : the density the draws follow.

        Notes
        -----
        A draw picks a block uniformly (KDE, RKDE, SPKDE: their one block), a row of it with
        probability its weight in the block, and adds h times a draw from the kernel: a
        uniform direction times a radius from the kernel's radial law
        (:meth:`Kernel.sample_radius`; for the Gaussian, a standard normal vector, as
        scikit-learn's ``KernelDensity.sample``). That samples q = (1/S) sum_s f_s, the
        mean of the block densities f_s: the estimate itself when S = 1.

        MoM-KDE (S > 1) keeps a draw x with probability median_s f_s(x) / (M q(x)),
        M = S / (floor(S/2) + 1) < 2 (rejection sampling): the kept draws follow the median
        divided by its integral *exactly* (with ``normalize=False`` too: the integral never
        enters), because median <= M q everywhere. Proof: sort the S values
        f_(1) <= ... <= f_(S) at x and let k = floor(S/2) + 1. S odd: the median is f_(k)
        and the k values f_(k), ..., f_(S) are each at least f_(k), so
        sum_s f_s >= k median. S even (k = S/2 + 1 >= 2): the median is
        (f_(k-1) + f_(k)) / 2 and sum_s f_s >= f_(k-1) + (k - 1) f_(k)
        = k (f_(k-1) + f_(k)) / 2 + (k/2 - 1)(f_(k) - f_(k-1)) >= k median. So
        median <= sum_s f_s / k = M q. A draw is kept with probability (integral of the
        median) / M, about 1/2 or more.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE, MoMKDE
        >>> X = np.random.default_rng(0).standard_normal((300, 2))
        >>> KDE(bandwidth=0.5).fit(X).sample(4, random_state=0).shape
        (4, 2)
        >>> mom = MoMKDE(n_blocks=5, bandwidth=0.5, random_state=0).fit(X)
        >>> draws = mom.sample(500, random_state=np.random.default_rng(0))
        >>> draws.shape, bool(np.isfinite(draws).all())
        ((500, 2), True)
        """
        check_is_fitted(self, "bandwidth_")
        if not is_int(n_samples) or n_samples < 0:
            raise InvalidParameterError(
                f"n_samples must be a non-negative integer, got {n_samples!r}"
            )
        rng = (
            random_state
            if isinstance(random_state, np.random.Generator)
            else np.random.default_rng(check_random_state(random_state).randint(2**31))
        )
        fitted = self._fitted
        S = fitted.n_blocks
        log_bound = np.log(S / (S // 2 + 1))
        kept, missing, idle = [], n_samples, 0
        while missing:
            size = missing if S == 1 else 2 * missing + 16
            if self._mixed is None:
                draws = fitted.sample_block_mean(size, rng)
            else:
                draws = mixed_draws(fitted, self._mixed, self._frame, size, rng)
            if S > 1:
                logs = fitted.block_log_sums(draws)
                with np.errstate(invalid="ignore"):  # -inf - -inf where q is 0: rejected
                    log_accept = (
                        fitted.combine_log(logs) - logsumexp(logs, axis=0) + np.log(S) - log_bound
                    )
                draws = draws[np.log(rng.random(len(draws))) < log_accept][:missing]
            idle = 0 if len(draws) else idle + 1
            if idle == MAX_SAMPLE_ROUNDS:
                raise ValueError(
                    "no draw was accepted in 100 rounds: the median of the block "
                    "KDEs is almost 0 where they hold their mass; use fewer blocks "
                    "or a larger bandwidth"
                )
            kept.append(draws)
            missing -= len(draws)
        if self._mixed is not None:
            return self._mixed.rows_of(self._frame.outer(np.concatenate(kept)), n_samples)
        draws = (
            self._frame.outer(np.concatenate(kept)) if kept else np.empty((0, self.n_features_in_))
        )
        if not np.isfinite(draws).all():
            raise ValueError(
                "some draws fall beyond float64's range (~1.8e308): the data sit "
                "within a few bandwidths of it; rescale the data"
            )
        return draws
