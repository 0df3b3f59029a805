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
    # A value that lost only its opening quote.
    (
        "value_missing_its_opening_quote_then_a_key",
        '{"id": 4, "note": Sent to the printer today.", "ok": true}',
        {"id": 4, "note": "Sent to the printer today.", "ok": True},
        ("opening_quote_guessed",),
    ),
    (
        "value_missing_its_opening_quote_at_the_end",
        '{"note": Back on Monday, after the audit."}',
        {"note": "Back on Monday, after the audit."},
        ("opening_quote_guessed",),
    ),
    (
        "value_missing_its_opening_quote_across_lines",
        '[\n  {\n    "title": Draft two",\n    "pages": 9\n  }\n]',
        [{"title": "Draft two", "pages": 9}],
        ("opening_quote_guessed",),
    ),
    # Python triple-quoted strings.
    (
        "triple_quoted_value",
        '{"doc": """First line.\nSays "hi".\n""", "n": 1}',
        {"doc": 'First line.\nSays "hi".\n', "n": 1},
        ("triple_quotes_replaced",),
    ),
    (
        "triple_single_quoted_item",
        "['''a\nb''', 2]",
        ["a\nb", 2],
        ("triple_quotes_replaced",),
    ),
    # Quotes escaped once too often among plain JSON.
    (
        "over_escaped_value",
        '{"query": \\"rain in Bergen\\"}',
        {"query": "rain in Bergen"},
        ("escaped_quotes_replaced",),
    ),
    (
        "over_escaped_key_and_value",
        '{"a": 1, \\"b\\": \\"two\\"}',
        {"a": 1, "b": "two"},
        ("escaped_quotes_replaced",),
    ),
    (
        "over_escaped_item",
        '["x", \\"y\\"]',
        ["x", "y"],
        ("escaped_quotes_replaced",),
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
    ("unquoted_value_then_a_quoted_key", '{"status": ok, "code": "7"}'),
    ("unquoted_value_before_an_object", '{"a": see below {"b": "c"}, "d": 1}'),
    ("unquoted_value_holding_a_colon", '{"a": at 10:30", "b": 1}'),
    ("unquoted_value_quote_then_prose", '{"a": yes" and more, "b": 1}'),
    ("unquoted_value_with_a_backslash", '{"a": C\\temp", "b": 1}'),
    ("triple_quote_never_closed", '{"doc": """open'),
    ("triple_quote_with_escapes", '{"doc": """a\\nb""", "n": 1}'),
    ("triple_quote_then_garbage", '{"doc": """a""" b, "n": 1}'),
    ("over_escaped_value_never_closed", '{"q": \\"rain}'),
    ("over_escaped_key_without_colon", '{\\"q\\" 1}'),
    ("ellipsis_placeholder_in_an_array", '{"ids": [1, 2, ...]}'),
    ("unicode_ellipsis_placeholder", '["a", "b", …]'),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in REFUSED])
def test_refusal(text: str) -> None:
    assert repair(text) is None
