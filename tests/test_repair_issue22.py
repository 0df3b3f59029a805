"""Issue 22, families 2, 3, 6 and 7: quotes, a lost brace, a stray bracket.

Each row goes through every parser with ``repair=True`` (``parse``,
``invoke``, ``ainvoke``, the streaming path's final value), through
``recover_tool_calls`` where it is a call's arguments, and through the
repairing ``extract`` for the repairs it names: the value the rule allows, or a
typed error.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    recover_tool_calls,
)
from langchain_jsonrecover._core.extract import Extraction, ReplyFailure, extract

ERROR = InvalidJsonError
SWAPPED = "swapped_quotes_replaced"
FULLWIDTH = "fullwidth_quotes_replaced"


def _fw(text: str) -> str:
    """The text with its straight quotes written fullwidth (U+FF02)."""
    return text.replace('"', "\uff02")


def _parsers() -> list[Any]:
    return [
        JsonFenceOutputParser(repair=True),
        TruncationRecoveringOutputParser(repair=True),
        RegexJsonOutputParser(pattern=r"(?s)(.*)", repair=True),
    ]


def _outcome(call: Any) -> Any:
    try:
        return call()
    except JsonRecoveryError as exc:
        return type(exc)


def _outcomes(parser: Any, reply: str) -> list[Any]:
    chunks = [AIMessageChunk(content=reply[i : i + 4]) for i in range(0, len(reply), 4)]
    return [
        _outcome(lambda: parser.parse(reply)),
        _outcome(lambda: parser.invoke(AIMessage(reply))),
        _outcome(lambda: asyncio.run(parser.ainvoke(AIMessage(reply)))),
        _outcome(lambda: list(parser.transform(iter(chunks)))[-1]),
    ]


def _repaired(reply: str) -> Extraction | ReplyFailure:
    return extract(reply, max_chars=1 << 20, max_depth=200, repair=True)


def _tool_args(arguments: str) -> Any:
    message = AIMessage(
        "",
        invalid_tool_calls=[
            {
                "name": "f",
                "args": arguments,
                "id": "c1",
                "error": None,
                "type": "invalid_tool_call",
            }
        ],
    )
    fixed = recover_tool_calls(message)
    return fixed.tool_calls[0]["args"] if fixed.tool_calls else ERROR


# Family 3: with no straight quote in the candidate, every curly (either way
# round) and fullwidth quote is a structural quote, when that reading decodes
# whole with no guessed repair. A curly quote meant as text inside a string
# makes the reading fail: an error, never a value with the quote moved.
# Each row: the reply, the value (or error), the repairs extract_json names.
QUOTES = [
    pytest.param("{”name“: ”Ada“}", {"name": "Ada"}, (SWAPPED,), id="swapped"),
    pytest.param("[”a“, ”b“, ”c“]", ["a", "b", "c"], (SWAPPED,), id="swapped_array"),
    pytest.param(
        "{“name”: “Ada”, ”age“: 3, “city”: “Paris”}",
        {"name": "Ada", "age": 3, "city": "Paris"},
        (SWAPPED,),
        id="swapped_in_one_place",
    ),
    pytest.param(_fw('{"name": "Ada"}'), {"name": "Ada"}, (FULLWIDTH,), id="fullwidth"),
    pytest.param(
        _fw('{"a": "x", "b": [1, "y"]}'),
        {"a": "x", "b": [1, "y"]},
        (FULLWIDTH,),
        id="fullwidth_nested",
    ),
    pytest.param(
        "{”a“: ”it\u2019s“}", {"a": "it\u2019s"}, (SWAPPED,), id="apostrophe_is_text"
    ),
    pytest.param(
        "{”n“: ”Ada“, 'x': 1}",
        {"n": "Ada", "x": 1},
        (SWAPPED, "single_quotes_replaced"),
        id="with_single_quotes",
    ),
    pytest.param("{”q“: ”a “b” c“}", ERROR, (), id="inner_pair_is_two_readings"),
    pytest.param("{”q“: ”he said ”hi“ now“}", ERROR, (), id="inner_quotes_guessed"),
    pytest.param("{”n“: ”Grace“ ”Hopper“}", ERROR, (), id="two_tokens"),
    pytest.param(_fw('{"q": "15""}'), ERROR, (), id="fullwidth_inch_mark"),
    pytest.param('{”q“: "x"}', ERROR, (), id="straight_quote_mixed_in"),
    pytest.param("{”name“: ”Ada“", ERROR, (), id="cut"),
]


@pytest.mark.parametrize(("reply", "expected", "repairs"), QUOTES)
def test_swapped_or_fullwidth_structural_quotes(
    reply: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    for parser in _parsers():
        assert _outcomes(parser, reply) == [expected] * 4, parser
    if reply.startswith("{"):
        assert _tool_args(reply) == expected
    found = _repaired(reply)
    if expected is ERROR:
        assert isinstance(found, ReplyFailure)
    else:
        assert isinstance(found, Extraction)
        assert (found.value, found.repairs) == (expected, repairs)


def test_in_prose_the_candidate_alone_decides() -> None:
    found = _repaired("Sure: {”name“: ”Ada“} as asked")
    assert isinstance(found, Extraction)
    assert found.value == {"name": "Ada"}
    assert SWAPPED in found.repairs


def test_the_straight_curly_reading_is_unchanged() -> None:
    found = _repaired("{“name”: “Ada”}")
    assert isinstance(found, Extraction)
    assert found.value == {"name": "Ada"}
    assert found.repairs == ("typographic_quotes_replaced",)


# Family 6: a reply of members after a prefilled ``{`` (it starts with a key
# and its colon, ends with ``}``): the brace is added back, as one reading,
# when the ``}`` at the end closes it and the whole then decodes without a
# guess. Two closers, a member after the last ``}``, or prose where a value
# is due stay errors.
BRACE = [
    pytest.param('"name": "Ada",\n"age": 3\n}', {"name": "Ada", "age": 3}, id="lines"),
    pytest.param('  "a": 1,\n  "b": [1, 2]\n}\n', {"a": 1, "b": [1, 2]}, id="indented"),
    pytest.param('"a": 1, "b": {"c": 2}}', {"a": 1, "b": {"c": 2}}, id="nested"),
    pytest.param('"a": 1}', {"a": 1}, id="one_member"),
    pytest.param('"a": True, "b": 2,}', {"a": True, "b": 2}, id="with_repairs"),
    pytest.param('"a": 1}}', ERROR, id="two_closers"),
    pytest.param('"a": 1}, "b": 2', ERROR, id="member_after"),
    pytest.param('"Note": see below}', ERROR, id="prose_value"),
    pytest.param('"a": "x "y" z"}', ERROR, id="guessed_inner_quote"),
    pytest.param('"a": 1, "b": 2', ERROR, id="no_closer"),
    pytest.param('"{a": 1, "b": 2}', ERROR, id="stray_quote_or_lost_brace"),
]


@pytest.mark.parametrize(("reply", "expected"), BRACE)
def test_a_lost_opening_brace_after_a_prefill(reply: str, expected: Any) -> None:
    parser = TruncationRecoveringOutputParser(repair=True)
    outcomes = _outcomes(parser, reply)
    if expected is ERROR:
        assert all(o is ERROR or o is NoJsonFoundError for o in outcomes), outcomes
    else:
        assert outcomes == [expected] * 4
    found = _repaired(reply)
    if expected is ERROR:
        assert isinstance(found, ReplyFailure)
    else:
        assert isinstance(found, Extraction)
        assert "opening_brace_added" in found.repairs


# Family 2, typographic pairs: a ``„`` or ``“`` opened inside a straight-quoted
# string takes the next straight quote for its closer when what follows that
# quote cannot continue the structure. The pair is whole, so the string's
# own closing quote closes it; dropping the quote is no reading of the reply.
# Quotes beside structure, or two tokens, stay errors. A call's arguments read
# only by this guess stay invalid (recover_tool_calls takes no guessed repair).
PAIRS = [
    pytest.param(
        '[{"title":"Hauptbutton „Jetzt anmelden" im Header"}]',
        [{"title": 'Hauptbutton „Jetzt anmelden" im Header'}],
        id="german_low_quote",
    ),
    pytest.param(
        '{"t": "他答道\uff1a“三块两毛五。"他小声补充"}',
        {"t": '他答道\uff1a“三块两毛五。"他小声补充'},
        id="cjk_dialogue",
    ),
    pytest.param('{"t": "a “b" c"}', {"t": 'a “b" c'}, id="curly_open_straight_close"),
    pytest.param(
        '{"t": "„A" und „B" hier", "n": 1}',
        {"t": '„A" und „B" hier', "n": 1},
        id="two_pairs",
    ),
    pytest.param('{"t": "„A“ ok"}', {"t": "„A“ ok"}, id="german_pair_whole"),
    pytest.param('{"t": "a „b" , "c": 1, "d": 2"}', ERROR, id="quote_beside_structure"),
    pytest.param('{"t": "„Grace" "Hopper"}', ERROR, id="two_tokens"),
    pytest.param('{"t": "a b" c"}', ERROR, id="lone_straight_quote"),
]


@pytest.mark.parametrize(("reply", "expected"), PAIRS)
def test_a_typographic_opener_closed_straight(reply: str, expected: Any) -> None:
    for parser in _parsers():
        assert _outcomes(parser, reply) == [expected] * 4, parser
    found = _repaired(reply)
    if expected is ERROR:
        assert isinstance(found, ReplyFailure)
    else:
        assert isinstance(found, Extraction)
        guessed = "inner_quote_escaped_guessed" in found.repairs
        assert guessed is ("„A“ ok" not in reply)
        assert _tool_args(reply) == (ERROR if guessed else expected)


# Family 7: one ``]`` after a whole root object, nothing after it: the ``]`` is
# stray or the root's ``[`` was lost. A schema that takes one reading decides;
# with none (or one that takes both), an error. A long root, where the
# single-edit search finds several sites, is read the same way as a short one.
# A ``}`` there has one reading, read where a schema takes the root (round 3).
class Patch(BaseModel):
    input: str


LONG = '{"input":"' + "*** Begin Patch\\n-    old\\n+    new\\n" * 8 + '"}]'
STRAY = [
    pytest.param(LONG, None, ERROR, id="no_schema"),
    pytest.param(LONG, Patch, "object", id="object_schema_drops_it"),
    pytest.param(LONG, list[Patch], "list", id="list_schema_opens_the_array"),
    pytest.param(LONG, dict[str, Any] | list[Any], ERROR, id="schema_takes_both"),
    pytest.param(LONG + "\n]", Patch, ERROR, id="two_closers"),
    pytest.param(LONG[:-1] + "}", Patch, "object", id="stray_brace_dropped"),
    pytest.param(LONG[:-1] + "}", None, ERROR, id="stray_brace_no_schema"),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), STRAY)
def test_one_stray_bracket_after_a_long_root(
    reply: str, schema: Any, expected: Any
) -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=schema, repair=True)
    root = Patch(input=orjson.loads(LONG[:-1])["input"])
    want = {"object": root, "list": [root]}.get(expected, expected)
    assert _outcomes(parser, reply) == [want] * 4
