"""Comparing decoded JSON values in tests, and the settings of property tests.

Python's ``==`` takes ``True`` for ``1`` and ``1.0`` for ``1``; a recovered
value that differs only so would pass a test that should fail. Each equality
here is stricter than ``==`` in its own way, and its name says which:

- :func:`same_value`: the same Python types all the way down (``1`` is not
  ``1.0``); key order is free.
- :func:`same_value_in_key_order`: as :func:`same_value`, and every object's
  keys in the same order (what a repair that must not reorder keys gives).

The peers' corpora compare as JSON texts would instead (a boolean is no
number, but ``1`` equals ``1.0``): ``_corpora.same_json``, which the
benchmark notebook imports from there.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Hypothesis settings for the property tests: enough examples to find a
counterexample, no per-example deadline on a loaded machine."""


def same_value(left: Any, right: Any) -> bool:
    """Equality that tells ``True`` from ``1`` and ``1.0`` from ``1``."""
    return _same_types(left, right, key_order=False)


def same_value_in_key_order(left: Any, right: Any) -> bool:
    """:func:`same_value`, with every object's keys in the same order too."""
    return _same_types(left, right, key_order=True)


def _same_types(left: Any, right: Any, *, key_order: bool) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        keys_match = (
            list(left) == list(right) if key_order else left.keys() == right.keys()
        )
        return keys_match and all(
            _same_types(item, right[key], key_order=key_order)
            for key, item in left.items()
        )
    if isinstance(left, list):
        return len(left) == len(right) and all(
            _same_types(a, b, key_order=key_order)
            for a, b in zip(left, right, strict=True)
        )
    return bool(left == right)
