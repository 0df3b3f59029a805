"""Seeded JSON values for the tests that compare a fast path with the repair pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random

LEAVES_BELOW = 5
"""Past this depth every value is a leaf."""


def random_value(rng: random.Random, depth: int, words: tuple[str, ...]) -> Any:
    """A seeded value: leaves, objects keyed by ``words``, arrays; nesting bounded."""
    roll = rng.random()
    if depth > LEAVES_BELOW or roll < 0.3:
        return rng.choice([1, -2.5e3, True, None, 10**20, rng.choice(words)])
    if roll < 0.65:
        return {
            f"{rng.choice(words)}{k}": random_value(rng, depth + 1, words)
            for k in range(rng.randrange(5))
        }
    return [random_value(rng, depth + 1, words) for _ in range(rng.randrange(5))]
