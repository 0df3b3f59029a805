"""Issue 21, families 13 and 16-18: what repair may not read one way.

Each row goes through every parser with ``repair=True`` (``parse``, ``invoke``,
the streaming path's final value) and, where it is a call's arguments, through
``recover_tool_calls``: the value the rule allows, or a typed error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

if TYPE_CHECKING:
    from collections.abc import Callable

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    recover_tool_calls,
)

ERROR = InvalidJsonError


class Item(BaseModel):
    a: int = 0


def _parsers(schema: Any = None) -> list[Any]:
    return [
        JsonFenceOutputParser(pydantic_object=schema, repair=True),
        TruncationRecoveringOutputParser(pydantic_object=schema, repair=True),
        RegexJsonOutputParser(pattern=r"(?s)(.*)", pydantic_object=schema, repair=True),
    ]


def _outcomes(parser: Any, reply: str) -> list[Any]:
    chunks = [AIMessageChunk(content=reply[i : i + 4]) for i in range(0, len(reply), 4)]
    calls: list[Callable[[], Any]] = [
        lambda: parser.parse(reply),
        lambda: parser.invoke(AIMessage(reply)),
        lambda: list(parser.transform(iter(chunks)))[-1],
    ]
    out: list[Any] = []
    for call in calls:
        try:
            out.append(call())
        except JsonRecoveryError as exc:
            out.append(type(exc) if isinstance(exc, InvalidJsonError) else exc)
    return out


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


# Family 16: a string whose invalid escapes show its backslashes are literal
# keeps every backslash (\b and \f too); at a cut, \n of \new is dropped; a
# quote after an escaped backslash is a doubled escape or an end: an error.
# Valid JSON (every escape valid) is read as it stands.
# Each row: the reply, the value (or error), the call arguments' outcome (a
# call read only by a guessed repair stays invalid: recover_tool_calls).
BACKSLASHES = [
    pytest.param(r'{"re": "\b\w+\d{2}\b"}', {"re": r"\b\w+\d{2}\b"}, ERROR, id="regex"),
    pytest.param(
        r'{"p": "C:\files\data\bin"}', {"p": r"C:\files\data\bin"}, ERROR, id="path"
    ),
    pytest.param(r'{"p": "C:\logs\n"}', {"p": "C:\\logs\n"}, ERROR, id="newline_kept"),
    pytest.param(
        r'{"t": "\frac{1}{2}"}',
        {"t": "\x0crac{1}{2}"},
        {"t": "\x0crac{1}{2}"},
        id="valid_json_read_as_it_stands",
    ),
    pytest.param(r'{"h": "<a href=\\"x\\">"}', ERROR, ERROR, id="doubled_escape"),
    pytest.param(r'{"h": "say \\"hi\\" now"}', ERROR, ERROR, id="doubled_escape_words"),
    pytest.param(r'{"v": "isn\'t"}', {"v": "isn't"}, {"v": "isn't"}, id="apostrophe"),
    pytest.param(
        r'{"v": "say \'hi\' now"}',
        {"v": "say 'hi' now"},
        {"v": "say 'hi' now"},
        id="quoted_word",
    ),
    # real-164: Python source whose backslash is meant, or an escaped quote?
    pytest.param(
        r"""{"c": "Q = r'\'[^\"]*\''"}""", ERROR, ERROR, id="code_backslash_quote"
    ),
]


@pytest.mark.parametrize(("reply", "expected", "tool"), BACKSLASHES)
def test_literal_backslashes(reply: str, expected: Any, tool: Any) -> None:
    for parser in _parsers():
        assert _outcomes(parser, reply) == [expected] * 3, parser
    assert _tool_args(reply) == tool


CUT_BACKSLASHES = [
    pytest.param(r'{"path": "C:\logs\f', {"path": r"C:\logs\f"}, id="form_feed"),
    pytest.param(r'{"path": "C:\logs\b', {"path": r"C:\logs\b"}, id="backspace"),
    pytest.param(r'{"path": "C:\logs\n', {"path": "C:\\logs"}, id="new_or_newline"),
    pytest.param(r'{"re": "\d+\s', {"re": r"\d+\s"}, id="regex_cut"),
]


@pytest.mark.parametrize(("reply", "expected"), CUT_BACKSLASHES)
def test_literal_backslashes_at_a_cut(reply: str, expected: Any) -> None:
    parser = TruncationRecoveringOutputParser(repair=True)
    assert _outcomes(parser, reply) == [expected] * 3


# Family 17: quotes with only whitespace between them are two tokens.
TWO_TOKENS = [
    pytest.param('{"name": "Grace" "Hopper"}', id="object"),
    pytest.param("['x' 'y', 'z']", id="single_quotes"),
    pytest.param('{"a": "x "y" "}', id="inner_pair"),
    pytest.param('{"name": "Grace"\n  "Hopper", "n": 1}', id="line_break"),
]


@pytest.mark.parametrize("reply", TWO_TOKENS)
def test_quotes_across_whitespace_are_two_tokens(reply: str) -> None:
    for parser in _parsers():
        assert _outcomes(parser, reply) == [ERROR] * 3, parser
    assert _tool_args(reply) == ERROR


def test_inner_quotes_in_words_are_still_read() -> None:
    reply = '{"q": "He said "hi" to me"}'
    for parser in _parsers():
        assert _outcomes(parser, reply) == [{"q": 'He said "hi" to me'}] * 3


# Family 18: a comment never eats data.
COMMENTS = [
    pytest.param('{"colors": [#fff, #000]}', ERROR, id="hash_values"),
    pytest.param('{"colors": [#fff, #000', ERROR, id="hash_values_cut"),
    pytest.param('{"a": 1, /* note\n "b": 2, "c": 3}', ERROR, id="unclosed_block"),
    pytest.param('{"a": 1, /* note\n "b": 2', ERROR, id="unclosed_block_cut"),
    pytest.param('{"a": 1, /* note */ "b": 2}', {"a": 1, "b": 2}, id="closed_block"),
    pytest.param("[1, # one\n 2]", [1, 2], id="hash_comment_with_space"),
    pytest.param('{"a": 1, # note\n "b": 2}', {"a": 1, "b": 2}, id="hash_after_member"),
]


@pytest.mark.parametrize(("reply", "expected"), COMMENTS)
def test_a_comment_never_eats_data(reply: str, expected: Any) -> None:
    for parser in _parsers():
        outcomes = _outcomes(parser, reply)
        if (
            isinstance(parser, TruncationRecoveringOutputParser)
            or expected is not ERROR
        ):
            assert outcomes == [expected] * 3, parser
        else:
            assert outcomes == [ERROR] * 3, parser


def test_a_cut_inside_a_block_comment_with_nothing_after() -> None:
    parser = TruncationRecoveringOutputParser(repair=True)
    assert parser.parse('{"a": 1, /* note that') == {"a": 1}


# Family 13: a stray closer or a lost opener; a schema may decide.
STRAY = [
    pytest.param(None, ERROR, id="no_schema"),
    pytest.param(Item, Item(a=1), id="object_schema_drops_it"),
    pytest.param(list[Item], [Item(a=1)], id="list_schema_opens_the_array"),
    pytest.param(dict[str, Any] | list[Any], ERROR, id="schema_takes_both"),
]


@pytest.mark.parametrize("reply", ['{"a": 1}\n]', 'Here:\n{"a": 1}\n]\nDone.'])
@pytest.mark.parametrize(("schema", "expected"), STRAY)
def test_a_stray_closer_or_a_lost_opener(
    reply: str, schema: Any, expected: Any
) -> None:
    for parser in _parsers(schema)[:2]:
        outcomes = _outcomes(parser, reply)
        if expected is ERROR:
            assert all(o is ERROR or isinstance(o, JsonRecoveryError) for o in outcomes)
        else:
            assert outcomes == [expected] * 3, parser
