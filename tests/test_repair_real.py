"""Repairs for what real replies hold (issue 11): quoting, escaping, structure.

One table of repaired texts and one of refusals, each row named by what it
shows; the examples are our own, shaped after faults seen in public threads.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from langchain_jsonrecover._core.repair.syntax import repair

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
        "typographic_pair_inside_a_typographic_string",
        '{"say": “He said “hi” to me”, "n": 1}',
        {"say": "He said “hi” to me", "n": 1},
        TYPO,
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
        '[1, \\"y\\"]',
        [1, "y"],
        ("escaped_quotes_replaced",),
    ),
    # Braces doubled by a prompt template.
    (
        "template_braces_doubled",
        '{{"unit": "kg", "sizes": [{{"w": 2}}]}}',
        {"unit": "kg", "sizes": [{"w": 2}]},
        ("template_braces_undoubled",),
    ),
    (
        "template_braces_in_an_array_with_more_repairs",
        "[{{'a': True}}, {{'b': None}}]",
        [{"a": True}, {"b": None}],
        (
            "template_braces_undoubled",
            "single_quotes_replaced",
            "python_literal_replaced",
        ),
    ),
    (
        "template_braces_around_braces_in_strings",
        '{{"fmt": "{x}", "n": 1}} then prose',
        {"fmt": "{x}", "n": 1},
        ("template_braces_undoubled",),
    ),
    # A false start: the object restarted inside itself.
    (
        "false_start_at_a_key",
        '{"{"plot": "A storm", "year": 1921}',
        {"plot": "A storm", "year": 1921},
        ("false_start_dropped",),
    ),
    (
        "false_start_in_a_value",
        '{"town": "{"town": "Bree"}',
        {"town": "Bree"},
        ("false_start_dropped",),
    ),
    (
        "false_start_cut_inside_a_value",
        '{"town":"Bre{"town":"Bree"}',
        {"town": "Bree"},
        ("false_start_dropped",),
    ),
    (
        "false_start_after_a_member",
        '{"tool": "find",{"tool": "find", "args": {"q": "owl"}}}',
        {"tool": "find", "args": {"q": "owl"}},
        ("false_start_dropped",),
    ),
    # Closers where the structure shows the intent.
    (
        "array_closed_with_a_brace_then_the_object",
        '{"tags": ["red", "blue", "green" }}',
        {"tags": ["red", "blue", "green"]},
        ("bracket_fixed_guessed",),
    ),
    (
        "array_closed_with_a_brace_inside_an_object",
        '{"a": {"b": [1, 2 }}, "c": 3}',
        {"a": {"b": [1, 2]}, "c": 3},
        ("bracket_fixed_guessed",),
    ),
    (
        "two_closers_swapped",
        '[{"visit": {"rooms": [{"n": 1}}]}, {"ok": true}]',
        [{"visit": {"rooms": [{"n": 1}]}}, {"ok": True}],
        ("bracket_fixed_guessed",),
    ),
    (
        "two_closers_swapped_the_other_way",
        '[{"a": 1]}',
        [{"a": 1}],
        ("bracket_fixed_guessed",),
    ),
    # A container written as markdown inline code.
    (
        "object_value_in_backticks",
        '{"action": "plot",\n "input": `{\n  "x": 1\n}`\n}',
        {"action": "plot", "input": {"x": 1}},
        ("backticks_removed",),
    ),
    (
        "array_and_object_values_in_backticks",
        '{"a": `[1, 2]`, "b": `{"c": [3]}`}',
        {"a": [1, 2], "b": {"c": [3]}},
        ("backticks_removed",),
    ),
    (
        "item_in_backticks",
        '[`{"b": 1}`, 2]',
        [{"b": 1}, 2],
        ("backticks_removed",),
    ),
    # A comma before the first key or item.
    (
        "comma_before_the_first_item",
        '{"steps": [\n,{\n"do": "wait"\n}]}',
        {"steps": [{"do": "wait"}]},
        ("leading_comma_removed",),
    ),
    (
        "comma_before_the_first_key",
        '{, "a": 1}',
        {"a": 1},
        ("leading_comma_removed",),
    ),
    # A missing comma between a string and the next key, across lines.
    (
        "missing_comma_between_a_string_and_a_key_across_lines",
        '{\n  "name": "Ada"\n  "born": 1815\n}',
        {"name": "Ada", "born": 1815},
        ("comma_inserted",),
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
    ("over_escaped_key_then_a_bare_word", '{\\"q\\" ok}'),
    ("template_brace_single_somewhere", '{{"a": {"b": 1}}}'),
    ("template_braces_unbalanced", '{{"a": 1}'),
    ("false_start_not_a_prefix", '{"a": "{"b": 1}'),
    ("false_start_then_more_members", '{"a": "{"a": 1}, "b": 2}'),
    ("false_start_restart_incomplete", '{"{"a": 1'),
    ("false_start_without_members", '{ {"a": 1}'),
    # An escaped key after a string is no sign that the string ended: in
    # ``"was {\"a\": \"b\"", \"c\": 1}."`` the stray quote is inside it.
    (
        "escaped_key_after_a_quote_is_no_next_key",
        '{"s": "x {\\"a\\"", \\"c\\": 1}.", "n": 1}',
    ),
    ("stray_closer_is_no_swap", '{"days": [{"d": 1}}], "n": 1}'),
    ("backtick_never_closed", '{"a": `{"b": 1}, "c": 2}'),
    ("backtick_around_a_word", '{"a": `yes`}'),
    ("typographic_text_then_a_cut", '{"note": "Use ”a”, ok: 1'),
    ("typographic_pair_inside_then_a_cut", '{"note": “He said “hi”, ok: 1'),
    ("comma_alone_in_an_object", "{,}"),
    ("comma_alone_in_an_array", "[,]"),
    ("two_commas_before_the_first_item", "[,,1]"),
    ("ellipsis_placeholder_in_an_array", '{"ids": [1, 2, ...]}'),
    ("unicode_ellipsis_placeholder", '["a", "b", …]'),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in REFUSED])
def test_refusal(text: str) -> None:
    assert repair(text) is None


ENTITIES: list[tuple[str, str, Any]] = [
    (
        "quotes_as_entities",
        "{ &quot;url&quot;: &quot;https://a.test/v1&quot;, &quot;ms&quot;: 500 }",
        {"url": "https://a.test/v1", "ms": 500},
    ),
    (
        "entities_in_an_array_of_objects",
        "[{&quot;k&quot;: &quot;a &amp; b&quot;}]",
        [{"k": "a & b"}],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [pytest.param(*row[1:], id=row[0]) for row in ENTITIES]
)
def test_html_entities_in_a_fence(text: str, expected: Any) -> None:
    result = repair(text, entities=True)
    assert result is not None
    assert orjson.loads(result.text) == expected
    assert result.repairs == ("html_entities_replaced",)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(ENTITIES[0][1], id="not_in_a_fence"),
        pytest.param('{"a": "&quot;x&quot;", b: 1}', id="entity_inside_a_string"),
    ],
)
def test_html_entities_outside_a_fence_or_a_string_stay(text: str) -> None:
    result = repair(text)
    assert result is None or "html_entities_replaced" not in result.repairs
    if result is not None:
        assert "&quot;" in orjson.loads(result.text)["a"]
