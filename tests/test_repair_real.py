"""Repairs for what real replies hold (issue 11): quoting, escaping, structure.

One table of repaired texts and one of refusals, each row named by what it
shows; the examples are our own, shaped after faults seen in public threads.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from langchain_jsonrecover._repair import repair

TYPO = ("typographic_quotes_replaced",)

REPAIRED: list[tuple[str, str, Any, tuple[str, ...]]] = [
    # Typographic quotes used as JSON's own.
    ("typographic_pairs", "{“name”: “Ada”}", {"name": "Ada"}, TYPO),
    (
        "typographic_pairs_with_a_number",
        "{“city”: “Lyon”, “rank”: 3}",
        {"city": "Lyon", "rank": 3},
        TYPO,
    ),
    ("typographic_items", "[“tea”, “milk”]", ["tea", "milk"], TYPO),
    (
        "one_typographic_closer_among_straight_quotes",
        '{"kind": "Tool”, "size": "small"}',
        {"kind": "Tool", "size": "small"},
        TYPO,
    ),
    (
        "typographic_closer_on_a_key",
        '{"items”: [{“n”: 1}, {“n”: 2}]}',
        {"items": [{"n": 1}, {"n": 2}]},
        TYPO,
    ),
    (
        "straight_closer_of_a_typographic_string",
        '{“a”: “one", “b”: 2}',
        {"a": "one", "b": 2},
        TYPO,
    ),
    (
        "typographic_quotes_inside_a_string_are_text",
        '{"say": "she wrote “yes”, then left" "n": 1}',
        {"say": "she wrote “yes”, then left", "n": 1},
        ("comma_inserted",),
    ),
    (
        "typographic_closer_that_closes_nothing_is_text",
        '{"say": "5” tall, or so" "n": 1}',
        {"say": "5” tall, or so", "n": 1},
        ("comma_inserted",),
    ),
    (
        "no_break_space_between_tokens",
        '{"a": [1, 2]\xa0}',
        {"a": [1, 2]},
        ("no_break_space_removed",),
    ),
]


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [pytest.param(*row[1:], id=row[0]) for row in REPAIRED],
)
def test_repair(text: str, expected: Any, repairs: tuple[str, ...]) -> None:
    result = repair(text)
    assert result is not None
    assert result.truncated is False
    assert orjson.loads(result.text) == expected, result.text
    assert result.repairs == repairs


REFUSED: list[tuple[str, str]] = [
    ("unquoted_value", "{status: ok}"),
    ("ellipsis_placeholder_in_an_array", '{"ids": [1, 2, ...]}'),
    ("unicode_ellipsis_placeholder", '["a", "b", …]'),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in REFUSED])
def test_refusal(text: str) -> None:
    assert repair(text) is None
