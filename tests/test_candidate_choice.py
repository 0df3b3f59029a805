"""Candidate choice and masking (issue 21, families 11, 12, 14, 15).

Each family's rule through each entry point it concerns: the parsers (sync
and async), ``extract_json`` and ``recover_record`` (the batch and records
path). A row's ``expected`` is the value, or an error class.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest
from _models import ScriptedChatModel
from _modes import run
from pydantic import BaseModel

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
    extract_json,
    recover_record,
)
from langchain_jsonrecover.structured import structured_output

if TYPE_CHECKING:
    from collections.abc import Callable

Entry = tuple[str, "Callable[[str], Any]"]


def _entries(**options: Any) -> list[Entry]:
    """The entry points, each built with ``options``."""
    fence = JsonFenceOutputParser(**options)
    entries: list[Entry] = [
        ("parse", fence.parse),
        ("aparse", lambda text: asyncio.run(fence.aparse(text))),
        ("record", lambda text: _from_row(recover_record(text, fence))),
    ]
    if "prefer" not in options:
        trunc = TruncationRecoveringOutputParser(**options)
        entries.append(("truncation", trunc.parse))
        if options == {"repair": False}:
            entries.append(
                ("extract_json", lambda text: extract_json(text, repair=False).value)
            )
    return entries


class _RowError(JsonRecoveryError):
    """A failed row, raised again so rows are checked as the parsers are."""


def _from_row(row: dict[str, Any]) -> Any:
    if not row["ok"]:
        raise _RowError(row["error"]["message"], llm_output="")
    return row["value"]


def _check(entry: Callable[[str], Any], text: str, expected: Any) -> None:
    if isinstance(expected, type) and issubclass(expected, Exception):
        with pytest.raises((expected, _RowError)):
            entry(text)
    else:
        assert entry(text) == expected


OPTIONS = [  # strict (repair=False) and repairing, as the tables below list
    pytest.param({"repair": False}, id="strict"),
    pytest.param({"repair": True}, id="repair"),
    pytest.param({"prefer": "last", "repair": False}, id="last"),
    pytest.param({"prefer": "last", "repair": True}, id="last_repair"),
]


# ------------------------------------------------ 11: objects before arrays

CITATIONS = [
    ('Draft {"n": 1}. Final {"n": 2}. Sources: [4]', {"n": 1}, {"n": 2}),
    ('[2] The filing says {"revenue": 10}', {"revenue": 10}, {"revenue": 10}),
    ('[1][3] Answer: {"a": [1, 2]} Sources: [4], [5]', {"a": [1, 2]}, {"a": [1, 2]}),
    ('[1, 2] and {"a": 1}', {"a": 1}, {"a": 1}),
    ('{"a": 1} see [3]', {"a": 1}, {"a": 1}),
    ('See [3].\n{\n  "a": {"b": [1]}\n}\n[4]', {"a": {"b": [1]}}, {"a": {"b": [1]}}),
    ('[{"id": 1}, {"id": 2}]', [{"id": 1}, {"id": 2}], [{"id": 1}, {"id": 2}]),
    ("[1, 2] then [3]", [1, 2], [3]),
    ('Sources: [4] and {"n": 1} or {"n": 2}', {"n": 1}, {"n": 2}),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "first", "last"), CITATIONS)
def test_objects_come_before_arrays_in_every_order(
    options: dict[str, Any], text: str, first: Any, last: Any
) -> None:
    expected = last if options.get("prefer") == "last" else first
    for _, entry in _entries(**options):
        _check(entry, text, expected)


# ------------------------------------------------ 12: several values in one place

SEVERAL = [
    '{"a": 1}{"b": 2}',
    '{"a": 1} {"b": 2}',
    '{"a": 1}\n{"b": 2}\n',
    '{"a": 1}, {"b": 2}',
    'Here: {"a": 1}{"b": 2} ok',
    "[1, 2][3]",
    '```json\n{"a": 1}\n{"b": 2}\n```',
    'Rows:\n```json\n{"a": 1}\n{"a": 2}\n{"a": 3}\n```\nDone.',
    "```\n[1]\n[2]\n```",
    '{"city": "Oslo"}{"city": "Rome"}',
    "{'a': 1}\n{'b': 2}",
    '{"a": 1}[{"b": 2}]',
    '[{"a": 1}] {"b": 2}',
    '{"a": 1}\n["x", "y"]',
    '<think>{"draft": 0}</think>{"a": 1}\n{"b": 2}',
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("text", SEVERAL)
def test_several_values_in_one_place_are_an_error(
    options: dict[str, Any], text: str
) -> None:
    for _, entry in _entries(**options):
        _check(entry, text, InvalidJsonError)


def test_several_values_say_so() -> None:
    with pytest.raises(InvalidJsonError, match="several JSON values"):
        JsonFenceOutputParser().parse('{"a": 1}{"b": 2}')


class Item(BaseModel):
    a: int


LISTED = [
    ('{"a": 1}{"a": 2}', [Item(a=1), Item(a=2)]),
    ('{"a": 1}, {"a": 2}', [Item(a=1), Item(a=2)]),
    ('Rows: {"a": 1}\n{"a": 2}\nDone', [Item(a=1), Item(a=2)]),
    ('```json\n{"a": 1}\n{"a": 2}\n{"a": 3}\n```', [Item(a=1), Item(a=2), Item(a=3)]),
    ('```json\n{"a": 1}\n{"a": 2}\n``` and [7]', [Item(a=1), Item(a=2)]),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("text", "expected"), LISTED)
def test_several_values_are_the_list_a_list_schema_wants(
    text: str, expected: list[Item], repair: bool
) -> None:
    for parser in (
        JsonFenceOutputParser(pydantic_object=list[Item], repair=repair),
        TruncationRecoveringOutputParser(pydantic_object=list[Item], repair=repair),
    ):
        assert parser.parse(text) == expected
        assert asyncio.run(parser.aparse(text)) == expected


@pytest.mark.parametrize("text", [row[0] for row in LISTED])
def test_several_values_are_no_object_for_an_object_schema(text: str) -> None:
    with pytest.raises(JsonRecoveryError):
        JsonFenceOutputParser(pydantic_object=Item).parse(text)


VALUES_APART = [
    ('{"a": 1} and then {"b": 2}', {"a": 1}, {"b": 2}),
    ('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', {"a": 1}, {"b": 2}),
    ('```json\n{"a": 1}\n```\nNote: [1] is a citation', {"a": 1}, {"a": 1}),
    ('```json\n{"a": 1}\nnote: done\n```', {"a": 1}, {"a": 1}),
    ('{"a": 1} [4]', {"a": 1}, {"a": 1}),
    ('[4]\n{"a": 1}', {"a": 1}, {"a": 1}),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "first", "last"), VALUES_APART)
def test_values_apart_stay_separate_candidates(
    options: dict[str, Any], text: str, first: Any, last: Any
) -> None:
    expected = last if options.get("prefer") == "last" else first
    for _, entry in _entries(**options):
        _check(entry, text, expected)


# ------------------------------------- 14: JSON-like candidates in other quotes

NODES = {"nodes": ["a", "b"], "edges": [], "title": "x"}
OTHER_QUOTES = [
    # (text, strict answer, repaired answer); an error class where it raises.
    ("{“nodes”: [“a”, “b”], “edges”: [], “title”: “x”}", InvalidJsonError, NODES),
    # Swapped or fullwidth structural quotes, no straight quote: read by
    # repair (issue 22, family 3: swapped_quotes_replaced, fullwidth_...).
    ("{”nodes“: [“a”, “b”], “edges“: [], ”title”: “x”}", InvalidJsonError, NODES),
    ("{“nodes”: [“a”, “b”], “edges“: [], ”title”: “x”}", InvalidJsonError, NODES),
    (
        "{\uff02nodes\uff02: [\uff02a\uff02], \uff02edges\uff02: [], \uff02t\uff02: \uff02x\uff02}",
        InvalidJsonError,
        {"nodes": ["a"], "edges": [], "t": "x"},
    ),
    (
        "Graph: {“ids”: [1, 2], “name”: “g”} ok",
        InvalidJsonError,
        {"ids": [1, 2], "name": "g"},
    ),
    (
        "{“id“:7,“name“:“Ada“,“ids“:[1, 2]}",
        InvalidJsonError,
        {"id": 7, "name": "Ada", "ids": [1, 2]},
    ),
    ("{\n  «n5»: null,\n  «n9»: [5, 7]\n}", InvalidJsonError, None),
    ("{「k」: [1, 2]}", InvalidJsonError, None),
    ("[“a”, [1, 2], “b”]", InvalidJsonError, ["a", [1, 2], "b"]),
    ("{\u2018k\u2019: [1, 2]}", InvalidJsonError, None),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "strict", "repaired"), OTHER_QUOTES)
def test_a_value_inside_a_json_like_candidate_is_never_the_answer(
    options: dict[str, Any], text: str, strict: Any, repaired: Any
) -> None:
    for _, entry in _entries(**options):
        try:
            value = entry(text)
        except JsonRecoveryError:
            continue
        assert options.get("repair"), f"{text!r} gave {value!r} without repair"
        assert repaired is not None, f"{text!r} gave {value!r}"
        assert value == repaired


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{“a“: 1}", {"a": 1}),
        ("{“id“:7,“name“:“Ada“}", {"id": 7, "name": "Ada"}),
        ("{“a“b“: 1}", None),
        ('{“a"b“: 1}', None),
        ("{“a“: “x“y, “b“: 1", None),
        (
            "Hi {“id“:4665,“name“:“data-11“,“x“:[1]} Thanks.",
            {"id": 4665, "name": "data-11", "x": [1]},
        ),
        ("{'a\"b': 1}", {'a"b': 1}),
    ],
)
def test_repair_never_makes_a_quote_part_of_a_key(text: str, expected: Any) -> None:
    """The value (``None``: only an error), or an error; never a quote in a key."""
    for parser in (
        JsonFenceOutputParser(repair=True),
        TruncationRecoveringOutputParser(repair=True),
    ):
        try:
            value = parser.parse(text)
        except JsonRecoveryError:
            continue
        assert value == expected


def test_typographic_keys_are_repaired() -> None:
    parser = JsonFenceOutputParser(repair=True)
    assert parser.parse("{“a“: 1}") == {"a": 1}
    assert parser.parse("{“id“:7,“name“:“Ada“}") == {"id": 7, "name": "Ada"}


# ------------------------------------------- 15: tokens inside strings are data

HARMONY = "<|start|>assistant<|channel|>final<|message|>"
TOKENS_IN_STRINGS = [
    (HARMONY + 'Here you go: {"stop": ["<|end|>"]}', {"stop": ["<|end|>"]}),
    (HARMONY + 'Here you go: {"stop": ["<|end|>"]}<|return|>', {"stop": ["<|end|>"]}),
    (
        HARMONY + 'Sure! {"a": 1, "t": "<|return|>"}<|return|>',
        {"a": 1, "t": "<|return|>"},
    ),
    (HARMONY + 'Ok: {"t": "<|start|>x"} bye<|end|>', {"t": "<|start|>x"}),
    (HARMONY + '{"stop": ["<|end|>"]}', {"stop": ["<|end|>"]}),
    (
        "<|channel|>analysis<|message|>Draft {} [2]<|end|>"
        + HARMONY
        + 'Answer: {"stop": "<|end|>"}<|return|>',
        {"stop": "<|end|>"},
    ),
    ('{"text": "line1\n<think> b", "n": 1}', {"text": "line1\n<think> b", "n": 1}),
    ('{"t": "a\n</think>\nb", "n": 2}', {"t": "a\n</think>\nb", "n": 2}),
    ('Sure: {"t": "x </think> y", "n": 3}', {"t": "x </think> y", "n": 3}),
    (
        '```json\n{"t": "one\n<reasoning>two", "n": 4}\n```',
        {"t": "one\n<reasoning>two", "n": 4},
    ),
    ('<think>plan {"n": 0}</think>\n{"t": "a\n<think>b"}', {"t": "a\n<think>b"}),
    ('{"t": "<|im_end|>", "s": "<|eot_id|>"}', {"t": "<|im_end|>", "s": "<|eot_id|>"}),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "expected"), TOKENS_IN_STRINGS)
def test_tokens_inside_strings_of_the_answer_are_data(
    options: dict[str, Any], text: str, expected: Any
) -> None:
    for _, entry in _entries(**options):
        _check(entry, text, expected)


REASONING_STILL_HIDDEN = [
    ('<think>\nmaybe {"a": 0}\n</think>\n{"a": 1}', {"a": 1}),
    ('Prose "with a quote\n<think>\n{"a": 0}</think>{"a": 1}', {"a": 1}),
    ('[1] "x\n<think>{"a": 0}</think>\n{"a": 2}', {"a": 2}),
    ('{"a": 1}\n<think>{"a": 0}', {"a": 1}),
]


@pytest.mark.parametrize(("text", "expected"), REASONING_STILL_HIDDEN)
def test_reasoning_outside_json_strings_is_still_hidden(
    text: str, expected: Any
) -> None:
    for _, entry in _entries():
        _check(entry, text, expected)


# --------------------------------- found by an adversarial fuzz of this layer

FUZZ_FOUND = [
    # A citation opening the reply is no answer once the glued objects fail.
    ('[1] Based on [2]: {"a": 1}\n{"b": 2}', InvalidJsonError),
    # Objects apart by a comma in a fence, and glued across a cut fence.
    ('```\n{"a": 1}, {"b": 2}\n```', InvalidJsonError),
    ('```json\n{"a": "x\n``` y", "b": 1} ,\n{"c": 2}\n```', InvalidJsonError),
    # A json block cut by a ``` line in a string: never the [5] after it.
    ('Here:\n```json\n{"a": "line\n``` rest", "b": 2}\n```\n[5]', None),
    # A stray opener after the value in a fence is still a stray.
    ('```json\n{"a": 1}[\n```', {"a": 1}),
    # Tokens that start a line of a JSON string, or sit in a string written
    # with typographic or angle quotes, are data.
    ('```\n{"a": "line\n<|start|> rest", "b": "<|message|>\n y"}\n```', None),
    ("{“a”: “line\n</tool_call> rest”}\n\nSources: [1]", None),
    ('{"a": «</think>», "b": [1]}\n\n[2]', None),
    ('Here:\n```json\n{"a": «</think>\\n y»}\n```\n[5]', None),
    # An array glued to an object is several values, and no citation answers.
    ('Answer (see [3]): [\n  {"z": 1}\n]{"a": 1}', InvalidJsonError),
    ('Résumé — [[1, 2]], {\n  "a": [1, 1]\n} Thanks [4].', InvalidJsonError),
    # A block with a value, a note, then another value holds several.
    ('```json\n[[1, 2]] and {"a": 1}\n```\n[5]', InvalidJsonError),
    ('```\n[1]\n\nSee: {"a": 2.5}\n```', InvalidJsonError),
    ('```json\n{"a": 1}\nnote: see [3]\n```', {"a": 1}),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "expected"), FUZZ_FOUND)
def test_fuzz_findings(options: dict[str, Any], text: str, expected: Any) -> None:
    """The value, or an error (``None``: any typed error, or a value without
    blanked tokens or citations)."""
    for _, entry in _entries(**options):
        if expected is not None:
            _check(entry, text, expected)
            continue
        try:
            value = entry(text)
        except JsonRecoveryError:
            continue
        assert isinstance(value, dict), value
        assert all(str(v).strip() for v in value.values()), value


HARMONY_TYPOGRAPHIC = [
    (HARMONY + "{\n  “k”: “<|end|> x”\n}<|return|>", {"k": "<|end|> x"}),
    (HARMONY + "Here: {“a”: [1], “b”: “line <|end|> rest”}<|return|>", None),
]


@pytest.mark.parametrize(("text", "expected"), HARMONY_TYPOGRAPHIC)
def test_harmony_body_ends_after_typographic_strings(text: str, expected: Any) -> None:
    for parser in (
        JsonFenceOutputParser(repair=True),
        TruncationRecoveringOutputParser(repair=True),
    ):
        try:
            value = parser.parse(text)
        except JsonRecoveryError:
            continue
        if expected is not None:
            assert value == expected
        assert "<|end|>" in json.dumps(value), value


# ------------------------------------ through structured_output (sync and async)


class City(BaseModel):
    city: str


class Stop(BaseModel):
    stop: list[str]


@pytest.mark.parametrize(
    ("first_reply", "schema", "expected", "calls"),
    [
        # Two readings: the retry loop asks again, and the second reply answers.
        ('{"city": "Oslo"}{"city": "Rome"}', City, City(city="Paris"), 2),
        (
            '```json\n{"city": "Oslo"}\n{"city": "Rome"}\n```',
            City,
            City(city="Paris"),
            2,
        ),
        # One reading: answered at once (typographic quotes: by the default
        # repairs, where without repair the inner [1] stood beside the object).
        ("{“city”: “Oslo”, “x”: [1]}", City, City(city="Oslo"), 1),
        ('[2] The city is {"city": "Oslo"}', City, City(city="Oslo"), 1),
        (
            HARMONY + 'Here: {"stop": ["<|end|>"]}<|return|>',
            Stop,
            Stop(stop=["<|end|>"]),
            1,
        ),
        ('{"stop": ["a\n<think> b"]}', Stop, Stop(stop=["a\n<think> b"]), 1),
    ],
)
async def test_structured_output_asks_again_where_two_readings_stand(
    first_reply: str,
    schema: type[BaseModel],
    expected: BaseModel,
    calls: int,
    mode: str,
) -> None:
    model = ScriptedChatModel(script=[first_reply, '{"city": "Paris"}'])
    chain = structured_output(model, schema, strategy="json")
    assert await run(chain, "Where?", mode) == expected
    assert len(model.calls) == calls
