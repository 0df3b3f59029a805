"""Issue 10's contract, family by family: the intended value or a typed error.

Each table holds replies of one family of the trust issue (our own examples)
and what every parser must do with them. A wrong value (an inner or partial
value, a value read through a guess that has a second reading) is the worst
outcome: it passes validation and nobody asks again. The fault-injection
oracle (``tests/test_oracle.py``) measures the same contract on generated
replies; these tables pin the mechanisms, and the README's promises.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
)

STRICT_PARSERS = [
    JsonFenceOutputParser(repair=False),
    TruncationRecoveringOutputParser(repair=False),
]
ALL_PARSERS = [  # every repair level: strict, the default ("safe"), every repair
    *STRICT_PARSERS,
    JsonFenceOutputParser(),
    TruncationRecoveringOutputParser(),
    JsonFenceOutputParser(repair=True),
    TruncationRecoveringOutputParser(repair=True),
]

# 1. A broken outer value never yields an inner or partial one.
BROKEN_OUTER = [
    (
        "stray_closer_then_more_members",
        '{"steps": [{"id": 1}]], "final": {"answer": 42}}',
        {"answer": 42},
    ),
    ("stray_closer_in_an_array", '[{"a": 1}}, {"b": 2}]', {"b": 2}),
    ("root_closed_too_early", '{"a": {"b": 1}}, "c": 2}', {"a": {"b": 1}}),
    (
        "opens_with_a_comment",
        '{\n  // settings\n  "user": {"name": "Ada"},\n  "debug": 1\n}',
        {"name": "Ada"},
    ),
    ("opens_with_a_python_literal", '[True, {"a": 1}]', {"a": 1}),
    ("opens_with_nan", '[NaN, {"a": 1}]', {"a": 1}),
    ("opens_with_a_bare_decimal", '[.5, {"a": 1}]', {"a": 1}),
    ("closer_that_matches_nothing", '[{"sku": "A"}]},\n{"sku": "B"}]', [{"sku": "A"}]),
    ("missing_root_opener", 'Result: "n": 1, "items": [1, 2]}', [1, 2]),
    (
        "key_before_the_value",
        'Here: "user": {"name": "Ada"}, "ok": true',
        {"name": "Ada"},
    ),
    (
        "value_in_a_fence_goes_on",
        '```json\n{"a": {"b": 1}}, "c": 2}\n```',
        {"a": {"b": 1}},
    ),
    ("string_key_in_a_fence", '```json\n"{sku": "A-1", "n": 2}\n```', "{sku"),
]


@pytest.mark.parametrize(
    ("text", "inner"), [r[1:] for r in BROKEN_OUTER], ids=[r[0] for r in BROKEN_OUTER]
)
def test_a_broken_outer_value_never_yields_an_inner_one(text: str, inner: Any) -> None:
    for parser in STRICT_PARSERS:
        with pytest.raises(InvalidJsonError):
            parser.parse(text)
    for parser in ALL_PARSERS:
        try:
            value = parser.parse(text)
        except JsonRecoveryError:
            continue
        assert value != inner


SEPARATE = [
    ("in_parentheses", '(see {"a": 1}) and [1]', {"a": 1}),
    ("apart_by_prose", 'One: {"a": 1}; or else {"b": 2}', {"a": 1}),
    # Apart only by a comma they are several values in one place (issue 21):
    # an error, not the first of them.
    ("objects_in_prose", 'Two: {"a": 1}, {"b": 2}', InvalidJsonError),
    ("arrays", "[1, 2], [3, 4]", InvalidJsonError),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in SEPARATE], ids=[r[0] for r in SEPARATE]
)
def test_values_apart_in_prose_stay_separate_candidates(
    text: str, expected: Any
) -> None:
    for parser in ALL_PARSERS:
        if expected is InvalidJsonError:
            with pytest.raises(InvalidJsonError, match="several JSON values"):
                parser.parse(text)
        else:
            assert parser.parse(text) == expected


# 2-5. What repair refuses because two readings are plausible.
REPAIR_REFUSES = [
    (
        "repair_starts_only_at_an_opener",
        '{"note": "call f({\\"id\\": 7})", "status": ok}',
    ),
    ("unquoted_value", "{status: ok}"),
    ("nan", '{"a": NaN}'),
    ("infinity", "[Infinity]"),
    ("odd_inner_quote", '{"a": "x"y", "b": 1}'),
    ("numbers_apart_on_one_line", "[1 500]"),
    ("comma_moved_into_a_string", '{"a": "x," "b": 1}'),
    ("one_item_array_left_open", '{"id": [7, "name": "x"}'),
    ("elided_list", '{"cities": ["Lima", "Quito", ..., "Bogota"]}'),
    ("quote_after_a_brace_in_a_string", '{"template": "Hello {"name"}!", "n": 1}'),
    ("doubled_comma_in_an_array_may_be_a_lost_item", "[1,, 2]"),
    ("colon_swapped_into_the_key", '{"name:" "Ada"}'),
    ("semicolon_swapped_out_of_a_string", '{"a": 1, "b": "x";}'),
    ("colon_after_a_value_may_be_a_lost_comma", '{"a": "b": 1}'),
    # A stray ``]``, or a lost ``[`` before the 1: {"a": [[1, 2]], "b": 3}.
    ("stray_closer_or_lost_opener", '{"a": [1, 2]], "b": 3}'),
    ("stray_closer_or_lost_opener_at_the_top", '{"a": 1}]'),
]


@pytest.mark.parametrize(
    "text", [r[1] for r in REPAIR_REFUSES], ids=[r[0] for r in REPAIR_REFUSES]
)
def test_repair_raises_where_two_readings_are_plausible(text: str) -> None:
    for parser in ALL_PARSERS:
        with pytest.raises(JsonRecoveryError):
            parser.parse(text)


REPAIR_READS = [
    (
        "inner_quotes_in_pairs",
        '{"html": "<h3 id="title">Hi</h3>", "n": 1}',
        {"html": '<h3 id="title">Hi</h3>', "n": 1},
    ),
    ("regex_backslashes", '{"re": "\\d+\\s*ms"}', {"re": "\\d+\\s*ms"}),
    ("windows_path", '{"p": "C:\\logs\\new"}', {"p": "C:\\logs\\new"}),
    ("latex", '{"m": "\\(\\frac{1}{2}\\)"}', {"m": "\\(\\frac{1}{2}\\)"}),
    ("markdown_escapes", '{"m": "\\_x \\* y"}', {"m": "_x * y"}),
    ("numbers_on_lines", "[1\n500]", [1, 500]),
    ("semicolon_between_members", '{"a": 1; "b": 2}', {"a": 1, "b": 2}),
    ("lost_colon_after_a_quoted_key", '{"a" 1}', {"a": 1}),
    ("doubled_comma_in_an_object", '{"a": 1,, "b": 2}', {"a": 1, "b": 2}),
    # One edit reads each (the single-edit search); every other reading
    # needs two slips (a lost quote and a lost comma; a lost ``}`` and a
    # ``[`` for ``{``; a ``,`` for ``:`` and a lost ``}``).
    ("lost_quote_beside_a_key", '{"a": "x, "b": "y"}', {"a": "x", "b": "y"}),
    ("array_closer_lost_before_the_root_closer", '{"a": [}', {"a": []}),
    ("stray_brace_before_items", '["x", { "y", "z"]', ["x", "y", "z"]),
    ("stray_closer_after_a_record", '[{"id": 1}, {"id": 2}}]', [{"id": 1}, {"id": 2}]),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [r[1:] for r in REPAIR_READS],
    ids=[r[0] for r in REPAIR_READS],
)
def test_repair_reads_what_has_one_reading(text: str, expected: Any) -> None:
    assert JsonFenceOutputParser(repair=True).parse(text) == expected


# 6. Only a prefix of valid JSON is a cut (see also tests/test_truncation.py).
NOT_A_CUT = [
    ("nan_at_the_end", '{"a": 1, "b": NaN'),
    ("date", '{"date": 2024-01-15'),
    ("finished_but_nested_unclosed", '```json\n{"a": {"b": 1}, "c": 2\n```'),
    ("string_over_the_closing_line", '{"a": [1], "tz": "Europe/Paris\n} Let me know.'),
]


@pytest.mark.parametrize(
    "text", [r[1] for r in NOT_A_CUT], ids=[r[0] for r in NOT_A_CUT]
)
def test_closing_never_hides_a_syntax_error(text: str) -> None:
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser().parse(text)


def test_a_flat_value_the_model_left_unclosed_is_closed() -> None:
    text = '```\n{"foo": "bar"\n\n```\nThis should work'
    assert TruncationRecoveringOutputParser().parse(text) == {"foo": "bar"}


def test_half_a_character_at_a_cut_is_dropped() -> None:
    parser = TruncationRecoveringOutputParser()
    assert parser.parse('{"a": "caf\ud83d') == {"a": "caf"}
    with pytest.raises(InvalidJsonError, match="lone surrogate"):
        parser.parse('{"a": "caf\ud83d!"}')
    with pytest.raises(InvalidJsonError, match="cut off"):
        JsonFenceOutputParser().parse('{"a": "caf\ud83d')


@pytest.mark.parametrize("repair", [True, "safe"])
@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{a: b\ud800", "k": 1}', id="bare_value"),
        pytest.param('{"a": """x\ud800"""}', id="triple_quoted"),
    ],
)
def test_half_a_character_in_a_repaired_value_is_a_typed_error(
    text: str, repair: bool | str
) -> None:
    # The repair writes such a value as a JSON string, which orjson cannot
    # for half of a character: it raised TypeError; the reading is refused.
    with pytest.raises(InvalidJsonError, match="lone surrogate"):
        JsonFenceOutputParser(repair=repair).parse(text)


# 8. Candidate choice.
def test_a_repaired_candidate_before_a_strict_one_with_another_value_raises() -> None:
    # Issue 21 (F21): the earlier one repaired and the later one as it stands
    # give two values; no order decides between them.
    text = "Example: {'a': 1}. Answer: {\"a\": 2}"
    with pytest.raises(InvalidJsonError, match="two readings"):
        JsonFenceOutputParser(repair=True).parse(text)


def test_prefer_last_takes_the_last_candidate_strict_or_repaired() -> None:
    text = "Example: {\"a\": 1}. Answer: {'a': 2}"
    assert JsonFenceOutputParser(repair=True, prefer="last").parse(text) == {"a": 2}
    assert JsonFenceOutputParser(repair=True).parse(text) == {"a": 1}


def test_objects_before_arrays() -> None:
    assert JsonFenceOutputParser().parse('See [1, 2] and then {"a": 1}') == {"a": 1}


BROKEN_OBJECT_BESIDE_AN_ARRAY = [
    (
        "citation_after",
        'Here is the data: {"name": "Ada", "age": 36,} as reported in [1].',
        {"name": "Ada", "age": 36},
    ),
    (
        "citation_before",
        'According to the filing [2], the answer is {"revenue": 12.5 "year": 2023}.',
        {"revenue": 12.5, "year": 2023},
    ),
    ("scale_after", 'Result: {"a": 1 "b": 2} (scale [0, 1]).', {"a": 1, "b": 2}),
]


# JSON in a string that lost the backslash of its last quote: the string
# closes there and the object's ``}`` closed the root early; the rest of the
# reply is not prose to ignore.
CLOSER_INSIDE_A_STRING = [
    ("tool_arguments", '{"args": "{\\"city\\": \\"Paris"}", "n": 1}'),
    ("last_member", '{"n": 1, "args": "{\\"city\\": \\"Paris"}"}'),
]


@pytest.mark.parametrize(
    "text",
    [r[1] for r in CLOSER_INSIDE_A_STRING],
    ids=[r[0] for r in CLOSER_INSIDE_A_STRING],
)
def test_a_root_closed_inside_a_string_is_no_value(text: str) -> None:
    for parser in ALL_PARSERS:
        with pytest.raises(InvalidJsonError):
            parser.parse(text)


@pytest.mark.parametrize(
    ("text", "repaired"),
    [r[1:] for r in BROKEN_OBJECT_BESIDE_AN_ARRAY],
    ids=[r[0] for r in BROKEN_OBJECT_BESIDE_AN_ARRAY],
)
def test_a_broken_object_is_never_replaced_by_an_array_beside_it(
    text: str, repaired: Any
) -> None:
    for parser in STRICT_PARSERS:
        with pytest.raises(InvalidJsonError):
            parser.parse(text)
    assert JsonFenceOutputParser(repair=True).parse(text) == repaired


# 9. Reasoning is never the answer.
def test_reasoning_is_never_the_answer() -> None:
    parser = JsonFenceOutputParser()
    assert parser.parse('<think>{"a": 0}</think>{"a": 1}') == {"a": 1}
    with pytest.raises(NoJsonFoundError):
        parser.parse('<think>maybe {"a": 0}</think>')


# 10. The regex parser reads the whole capture.
def test_regex_capture_with_text_after_the_value_is_an_error() -> None:
    parser = RegexJsonOutputParser(pattern=r"<json>(.*?)</json>", repair=True)
    with pytest.raises(InvalidJsonError):
        parser.parse("<json>{'a': 1} trailing junk</json>")
    assert parser.parse("<json>{'a': 1}</json>") == {"a": 1}


@pytest.mark.parametrize("levels", [3, 10, 23])
def test_max_depth_counts_alternating_brackets(levels: int) -> None:
    text = "1"
    for _ in range(levels):
        text = '{"a": [' + text + "]}"
    depth = 2 * levels
    assert JsonFenceOutputParser(max_depth=depth).parse(text)
    with pytest.raises(InvalidJsonError, match=r"nest|deep|level"):
        JsonFenceOutputParser(max_depth=depth - 1).parse(text)


def test_arguments_of_key_value_markup_are_a_candidate() -> None:
    reply = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n"
        "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>3</arg_value>\n</tool_call>"
    )
    found = JsonFenceOutputParser().extract(reply)
    assert found.value == {"city": "Paris", "days": 3}
    assert "tool_call_read" in found.repairs
    # A value alone, blanked with its markup, is never the answer.
    assert JsonFenceOutputParser().parse(reply) != 3


@pytest.mark.parametrize(
    "text",
    [
        'Here:\n[\n  ,{"sku": "X-1", "n": 1},\n  {"sku": "X-2", "n": 2}\n]',
        'Done:\n[\n  :{"id": 1, "name": "Paris"}\n]',
        'Result: {entities": [{"text": "Tokyo", "start": 5}], "ok": true}',
    ],
    ids=["comma_first", "colon_first", "first_key_lost_its_quote"],
)
def test_a_container_broken_at_its_start_is_still_one_candidate(text: str) -> None:
    with pytest.raises(InvalidJsonError):
        JsonFenceOutputParser(repair=False).parse(text)  # never an inner item
