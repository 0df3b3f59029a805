"""Replies the repair read one way where a second reading is as plausible.

Each table runs through every parser with ``repair=True`` and through every
entry point (``parse``, ``invoke``, ``ainvoke``, the last streamed item):
the reply is an ``InvalidJsonError`` carrying the raw reply where two
readings are plausible, and the intended value where there is one.
"""

from __future__ import annotations

from typing import Any

import pytest
from _entry_points import ENTRY_POINTS, read_through

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
)

PARSERS = [
    pytest.param(lambda: JsonFenceOutputParser(repair=True), id="fence"),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(repair=True), id="truncation"
    ),
]


def _read(parser: Any, reply: str, entry: str) -> Any:
    return read_through(parser, reply, entry)


def _assert_refused(parser: Any, reply: str, entry: str) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        _read(parser, reply, entry)
    assert caught.value.llm_output == reply


# --- a string that is only a comma, before a lost comma ----------------------------

COMMA_IN_STRING = [
    # ``"",`` with the quote and the comma swapped reads as well.
    '{"a": "," "b": 1}',
    '["," "b"]',
    '{"a": ",", "b": "," "c": 1}',
    '[",", "," 2]',
    "{'a': ',' 'b': 1}",
    "{'a': 'x,' 'b': 1}",
    '{"a": ",",\n "b": ","\n "c": 1}',
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"a": "," , "b": 1}', {"a": ",", "b": 1}),
        ('[",", "b",]', [",", "b"]),
        ('{"a": "x" "b": 1}', {"a": "x", "b": 1}),
        ("{'a': ',', 'b': 1,}", {"a": ",", "b": 1}),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_a_string_that_is_only_a_comma_is_still_data(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- a colon glued to a string's quote, where no colon is due ------------------------

COLON_BY_QUOTE = [
    # A value ``":"``, ``":x"`` or ``"x:"`` with a quote and the colon
    # swapped reads as well as a stray colon dropped.
    '[1, :""]',
    '{"a": :""}',
    '["":, true]',
    '[1, "":]',
    '{"a": "x":}',
    '[:"x"]',
    '{"emoji": ":smile":}',
    "['a':, 1]",
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{: "a": 1}', {"a": 1}),
        ('{"a":: 1}', {"a": 1}),
        ("[1:, 2]", [1, 2]),
        ('[1, : "x"]', [1, "x"]),
        ('["x" :, 2]', ["x", 2]),
        # Before a key: a key that starts with a colon is no reading.
        ('{"a": 1, :"b": 2}', {"a": 1, "b": 2}),
        ('{:"a": 1}', {"a": 1}),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_a_colon_apart_from_any_quote_is_still_dropped(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- a token inside a single-quoted string ------------------------------------------

TOKEN_IN_SINGLE_QUOTES = [
    # The markup scan tracks ``"`` strings only: blanked as markup, the token
    # would leave spaces in the value; read as data, it stays. Two readings.
    "{'a': 'say <|eot_id|> now'}",
    "Sure: {'msg': 'end with <|im_end|>'}",
    "{'a': 'x <tool_call> y'}",
    "{a: 'x [TOOL_CALLS] y'}",
    "{\"a\": \"x\", 'b': '<|im_end|>'}",
    "Here: ```json\n{'a': 'x </tool_call>'}\n```",
]


def _regex() -> RegexJsonOutputParser[Any]:
    return RegexJsonOutputParser(pattern=r"<json>(.*?)</json>", repair=True)


REGEX = pytest.param(_regex, id="regex")


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize(
    "reply",
    [
        "<json>{'a': 'say <|eot_id|> now'} <|eot_id|></json>",
        "<json>{'a': 'x <|im_end|>'} <|im_end|></json><|im_end|>",
    ],
)
def test_the_regex_parser_refuses_a_token_in_a_single_quoted_string(
    reply: str, entry: str
) -> None:
    _assert_refused(_regex(), reply, entry)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("{'a': 1}<|im_end|>", {"a": 1}),
        ("<|python_tag|>{'a': 'x',}<|eot_id|>", {"a": "x"}),
        ('{"a": "say <|eot_id|> now",}', {"a": "say <|eot_id|> now"}),
        ("<tool_call>{'q': 'rain'}</tool_call>", {"q": "rain"}),
    ],
)
@pytest.mark.parametrize("make", [*PARSERS, REGEX])
def test_markup_outside_single_quoted_strings_is_still_blanked(
    reply: str, value: Any, make: Any
) -> None:
    parser = make()
    if isinstance(parser, RegexJsonOutputParser):
        reply = f"<json>{reply}</json>"
    assert parser.parse(reply) == value


def test_the_regex_parser_reads_a_token_its_capture_holds_as_data() -> None:
    # The capture as written reads whole: the token is data in its string.
    parser = _regex()
    reply = "<json>{'a': 'x <tool_call> y',}</json><|im_end|>"
    assert parser.parse(reply) == {"a": "x <tool_call> y"}


# --- a typographic pair where a straight quote was lost -----------------------------

HALF_PAIR = [
    # ``“q”`` is a pair: its straight opening quote may be lost beside it
    # (``"“q” and more"``), or its ``“`` may stand for that quote.
    '{"a": “q” and more"}',
    '{"a": “q”"}',
    '{"a": “q”" , "b": 1}',
    '[“q”"]',
    '{"a": “q”“}',
    '{"a": “q” and more”}',
    '{"a": „q“ and more"}',
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"a": “q”, "b": 1}', {"a": "q", "b": 1}),
        ("{“a”: “b”}", {"a": "b"}),
        ("{“a”: “He said “hi” ok”}", {"a": "He said “hi” ok"}),
        ('{"a": “q"}', {"a": "q"}),
        ('{"a": "q”, "b": 1}', {"a": "q", "b": 1}),
        ('{"a": "„Start“ x”, "b": 1}', {"a": "„Start“ x", "b": 1}),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_typographic_quotes_as_structure_are_still_read(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- fullwidth and curly quotes in one candidate ------------------------------------

FW = "\uff02"  # the fullwidth quote, written ``#`` in the tables below
MIXED_QUOTE_KINDS = [
    # Which kind is structure and which is text in a string is a guess.
    reply.replace("#", FW)
    for reply in [
        "[#a#, #x”, “y#]",
        "Here: [#”, “x, y#]",
        "{”k“: [null, ”#, #“]}",
        "{#a#: “b”}",
    ]
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("{#name#: #Ada#}".replace("#", FW), {"name": "Ada"}),
        ("{”name“: ”Ada“}", {"name": "Ada"}),
        ("[#a#, #b#]".replace("#", FW), ["a", "b"]),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_one_kind_of_quote_as_structure_is_still_read(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- two strings on one line in an array --------------------------------------------

TWO_STRINGS = [
    # A lost comma, or one string with its inner quotes?
    '{"names": ["Ada", "Grace" "Hopper"]}',
    '["x" "y", "z"]',
    "[“a”, “b” “c”, “d”]",
    '["a",  "b"  "c"]',
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('[\n  "a"\n  "b"\n]', ["a", "b"]),
        ('[1 "a"]', [1, "a"]),
        ('{"a": "x" "b": 1}', {"a": "x", "b": 1}),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_a_lost_comma_between_lines_or_beside_a_number_is_still_read(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- members after a prefilled ``{``, the first key bare ----------------------------

BARE_KEY_FIRST = [
    # A stray ``}``, or the closer of an object whose ``{`` the prompt held?
    'tags: ["a", "b"]}',
    "data: [1, 2]}",
    'result: {"a": 1}}',
    'id:{"a": 1}}',
]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('Here is the result: {"a": 1}}', {"a": 1}),
        ("[1, 2]}", [1, 2]),
        ('"tags": ["a"]}', {"tags": ["a"]}),
    ],
)
@pytest.mark.parametrize("make", PARSERS)
def test_a_stray_brace_after_prose_or_a_quoted_key_is_still_read(
    reply: str, value: Any, make: Any
) -> None:
    assert make().parse(reply) == value


# --- every table of two readings, through every parser and entry point --------------

REFUSED = [
    pytest.param(reply, id=f"{table}-{i}")
    for table, replies in [
        ("comma_in_string", COMMA_IN_STRING),
        ("colon_by_quote", COLON_BY_QUOTE),
        ("token_in_single_quotes", TOKEN_IN_SINGLE_QUOTES),
        ("half_pair", HALF_PAIR),
        ("mixed_quote_kinds", MIXED_QUOTE_KINDS),
        ("two_strings", TWO_STRINGS),
        ("bare_key_first", BARE_KEY_FIRST),
    ]
    for i, reply in enumerate(replies)
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", REFUSED)
def test_a_reply_with_two_readings_is_an_error(
    reply: str, make: Any, entry: str
) -> None:
    _assert_refused(make(), reply, entry)
