"""Parameter checks: the library's :class:`InvalidParameterError` and declared constraints.

An estimator declares the constraints of its parameters once, as a class attribute mapping
each parameter's name to a :class:`Rule` (or a tuple of rules, checked in order), and one
function, :func:`check_parameters`, checks a whole table in its order before any costly
work. A rule tests a value, with the other parameters and the number of rows at hand, and
carries the message that says what to pass instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or value (``bandwidth=True``, ``n_blocks=3.0``).

    Both a ValueError and a TypeError, as scikit-learn's own error for parameters, so that
    code catching either sees it. The message names the parameter, what it may be and what
    it got.

    Examples
    --------
    >>> from momkde_core import KDE, InvalidParameterError
    >>> try:
    ...     KDE(kernel="box").fit([[0.0], [1.0]])
    ... except InvalidParameterError as err:
    ...     print(err)
    unknown kernel 'box'; allowed: cosine, epanechnikov, exponential, gaussian, ...
    >>> issubclass(InvalidParameterError, ValueError), issubclass(InvalidParameterError, TypeError)
    (True, True)
    """

    __module__ = "momkde_core"  # (shown in tracebacks, and pickled, under its public path)


@dataclass(frozen=True)
class Rule:
    """One constraint on a parameter: ``allows(value, context)``, else the message.

    ``context`` maps the estimator's parameters, and ``n`` (the rows the fit sees), to their
    values; ``message`` is formatted with ``value`` and the context's entries.
    """

    allows: Callable[[Any, Mapping[str, Any]], bool]
    message: str

    def check(self, value: Any, context: Mapping[str, Any]) -> None:
        """Raise InvalidParameterError with the message unless the rule allows ``value``."""
        if not self.allows(value, context):
            raise InvalidParameterError(self.message.format(value=value, **context))


def check_parameters(
    constraints: Mapping[str, Rule | tuple[Rule, ...]], context: Mapping[str, Any]
) -> None:
    """Check each parameter named in ``constraints`` against its rules, in the table's order.

    Parameters
    ----------
    constraints : mapping of str to Rule or tuple of Rule
        The table: a parameter's name, its rule or rules.
    context : mapping of str to object
        Every parameter's value (and ``n``, the number of rows, when a rule needs it).

    Raises
    ------
    InvalidParameterError
        The message of the first rule that does not allow its parameter's value.

    Examples
    --------
    >>> table = {"tol": Rule(lambda v, _: is_number(v) and v > 0, "tol must be > 0, got {value!r}")}
    >>> check_parameters(table, {"tol": 1e-8})
    >>> check_parameters(table, {"tol": "1e-8"})
    Traceback (most recent call last):
        ...
    momkde_core.InvalidParameterError: tol must be > 0, got '1e-8'
    """
    for name, rules in constraints.items():
        for rule in rules if isinstance(rules, tuple) else (rules,):
            rule.check(context[name], context)


def is_int(value) -> bool:
    """An integer, not a bool (True is an Integral in Python, but no count)."""
    return isinstance(value, Integral) and not is_bool(value)


def is_number(value) -> bool:
    """A real number, not a bool."""
    return isinstance(value, Real) and not is_bool(value)


def is_bool(value) -> bool:
    """True or False (Python's or numpy's)."""
    return isinstance(value, (bool, np.bool_))


def is_auto(value) -> bool:
    """The string "auto"."""
    return isinstance(value, str) and value == "auto"
