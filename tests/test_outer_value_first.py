"""A value inside a broken outer value is never the answer; a closer in its string is data.

Each table runs through the parsers it concerns and every entry point
(``parse``, ``invoke``, ``ainvoke``, the last streamed item).

- An array whose first item lost its opening quote (``[Ada", {"id": 1}]``)
  or holds a swapped one (``[t"rue", [1, 2]]``) is broken JSON: without
  repair an ``InvalidJsonError`` carrying the raw reply, with repair the
  whole array; never an item nested in it.
- A reasoning closer (``</think>``) inside a single-quoted string of a value
  that opens the reply is data, as in a ``"``-string: the reply is read
  whole, never the value after the tag alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from _entry_points import ENTRY_POINTS, read_through

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)

KINDS = [
    pytest.param(JsonFenceOutputParser, id="fence"),
    pytest.param(TruncationRecoveringOutputParser, id="truncation"),
]
NOT_REPAIRING = [pytest.param(False, id="strict"), pytest.param("safe", id="safe")]


def _read(parser: Any, reply: str, entry: str) -> Any:
    return read_through(parser, reply, entry, seed=5)


# --- an array whose first item lost its opening quote ------------------------------

HALF_QUOTED_FIRST_ITEM = [
    '[Ada", {"id": 1}]',
    '[Ada Lovelace", {"id": 1}]',
    '[Paris", "Rome", ["x"]]',
    '[t"rue", [1, 2]]',
    'x [a"b", [1]]',
    'Cities: [Paris", "Rome"] and ["Oslo"]',
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("level", NOT_REPAIRING)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reply", HALF_QUOTED_FIRST_ITEM)
def test_an_item_of_a_half_quoted_array_is_never_the_answer(
    reply: str, kind: Any, level: Any, entry: str
) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        _read(kind(repair=level), reply, entry)
    assert caught.value.llm_output == reply


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('[Ada", {"id": 1}]', ["Ada", {"id": 1}]),
        ('[Paris", "Rome", ["x"]]', ["Paris", "Rome", ["x"]]),
        ('[t"rue", [1, 2]]', ["true", [1, 2]]),
    ],
)
def test_repair_reads_the_half_quoted_array_whole(
    reply: str, value: Any, kind: Any, entry: str
) -> None:
    assert _read(kind(repair=True), reply, entry) == value


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        # A quote later in a bracket of prose: the bracket stays prose.
        ('Note [he said "hi", ok] Answer: {"a": 1}', {"a": 1}),
        ('See [the "x" note] and ["y"]', ["y"]),
    ],
)
@pytest.mark.parametrize("level", NOT_REPAIRING)
@pytest.mark.parametrize("kind", KINDS)
def test_a_bracket_of_prose_is_still_prose(
    reply: str, value: Any, kind: Any, level: Any
) -> None:
    assert kind(repair=level).parse(reply) == value


# --- a reasoning closer inside a single-quoted string --------------------------------

CLOSER_IN_SINGLE_QUOTES = [
    (
        "{'msg': 'done</think>', 'data': {\"x\": 1}}",
        {"msg": "done</think>", "data": {"x": 1}},
    ),
    ("{msg: '</think>', data: [1, 2]}", {"msg": "</think>", "data": [1, 2]}),
    ("{'a': 'x </think> y'}", {"a": "x </think> y"}),
    ("[{'tag': '</think>'}, [3]]", [{"tag": "</think>"}, [3]]),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("level", [True, "safe"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("reply", "value"), CLOSER_IN_SINGLE_QUOTES)
def test_a_closer_in_a_single_quoted_string_is_data(
    reply: str, value: Any, kind: Any, level: Any, entry: str
) -> None:
    assert _read(kind(repair=level), reply, entry) == value


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("reply", "_value"), CLOSER_IN_SINGLE_QUOTES)
def test_without_repair_the_single_quoted_reply_is_an_error(
    reply: str, _value: Any, kind: Any, entry: str
) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        _read(kind(repair=False), reply, entry)
    assert caught.value.llm_output == reply


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        # Reasoning in prose, an apostrophe in it: the closer ends it.
        ('I\'m done</think>{"a": 2}', {"a": 2}),
        # A draft closed before the closer: reasoning, as before.
        ("{'a': 1} hmm, it's wrong</think>{\"a\": 2}", {"a": 2}),
        # A quoted closer in a draft, then the real one.
        ("{'a': 'x</think>', 'b': 2}\n</think>{\"c\": 1}", {"c": 1}),
    ],
)
@pytest.mark.parametrize("level", [True, "safe", False])
@pytest.mark.parametrize("kind", KINDS)
def test_a_closer_outside_a_single_quoted_value_still_ends_reasoning(
    reply: str, value: Any, kind: Any, level: Any
) -> None:
    assert kind(repair=level).parse(reply) == value
