"""What RKDE and SPKDE share: their solvers' parameters (``max_iter``, ``tol``), the
iterations logged with ``verbose``, and the fit as one weighted block."""

from __future__ import annotations

import logging

import numpy as np
from sklearn.base import BaseEstimator

from .._engine import GramOperator
from .._validation import Rule, is_int, is_number

LOGGER = logging.getLogger("momkde_core.estimators")  # one logger for the estimators


def _log_start(est: BaseEstimator, gram: GramOperator) -> None:
    """With ``verbose``, log the size of the fit and how its Gram products are computed."""
    if est.verbose:
        LOGGER.info(
            "%s: %d points in %d-D, Gram products by the %s path",
            type(est).__name__,
            *gram.X.shape,
            gram.method,
        )


def _iteration_logger(est: BaseEstimator, stage: str):
    """The solvers' ``progress`` callable: with ``verbose``, each iteration's objective is
    logged at INFO level on the ``momkde_core.estimators`` logger (shown once logging is
    configured, e.g. ``logging.basicConfig(level=logging.INFO)``); None (no cost) otherwise."""
    if not est.verbose:
        return None
    name = type(est).__name__

    def progress(n_iter: int, objective: float) -> None:
        LOGGER.info(
            "%s %s: iteration %d (max_iter %d), objective %.10g",
            name,
            stage,
            n_iter,
            est.max_iter,
            objective,
        )

    return progress


#: The constraints of the iterative solvers' parameters (RKDE, SPKDE).
_ITERATIONS = {
    "max_iter": Rule(
        lambda value, _: is_int(value) and value >= 1,
        "max_iter must be a positive integer, got {value!r}",
    ),
    "tol": Rule(
        lambda value, _: is_number(value) and value > 0,
        "tol must be a positive number, got {value!r}",
    ),
}


def _one_block(X: np.ndarray, weights: np.ndarray):
    """One block holding every point, with log and linear weights (zero weight: -inf)."""
    with np.errstate(divide="ignore"):
        return X, np.array([0, len(X)]), np.log(weights), weights
