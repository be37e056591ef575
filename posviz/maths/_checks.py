"""Input checks shared by the core: each says what was expected and what arrived."""

from __future__ import annotations

import math
import numbers

import numpy as np


class NotAnIntegerError(ValueError, TypeError):
    """A real number where a whole number belongs (both a ValueError and a TypeError)."""


def integer(name: str, value: object, *, minimum: int = 0) -> int:
    """Return `value` as an int >= `minimum`, or raise a clear error."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be an integer, got the boolean {value!r}")
    if isinstance(value, numbers.Integral):
        result = int(value)
    elif isinstance(value, numbers.Real):
        raise NotAnIntegerError(f"{name} must be a whole number, got {value!r}")
    else:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if result < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {result}")
    return result


def even_width(name: str, value: object, *, why: str = "sin/cos pairs") -> int:
    """Return a positive even width (d, or a head's d_k), or raise a clear error."""
    d = integer(name, value, minimum=1)
    if d % 2:
        raise ValueError(f"{name} must be even ({why}), got {d}")
    return d


def positive_real(name: str, value: object) -> float:
    """Return a finite real number > 0, or raise a clear error."""
    result = finite_real(name, value)
    if result <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {result}")
    return result


def finite_real(name: str, value: object) -> float:
    """Return a finite real number, or raise a clear error."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, got {result}")
    return result


def array(name: str, value: object, *, min_ndim: int = 1) -> np.ndarray:
    """Return `value` as a finite float64 array with at least `min_ndim` axes."""
    try:
        result = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__}") from error
    if result.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {result.shape}")
    if not np.isfinite(result).all():
        raise ValueError(f"{name} must be finite, got {np.count_nonzero(~np.isfinite(result))} NaN/inf values")
    return result


def permutation(value: object, T: int) -> np.ndarray:
    """Return `value` as an int array holding each of 0..T-1 exactly once."""
    try:
        perm = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"perm must be a sequence of integers, got {type(value).__name__}") from error
    if perm.ndim != 1 or perm.shape[0] != T:
        raise ValueError(f"perm must have shape ({T},), got {perm.shape}")
    if T and not np.issubdtype(perm.dtype, np.integer):
        raise TypeError(f"perm must hold integers, got dtype {perm.dtype}")
    if not np.array_equal(np.sort(perm), np.arange(T)):
        raise ValueError(f"perm must hold each of 0..{T - 1} exactly once, got {perm.tolist()}")
    return perm.astype(np.intp)
