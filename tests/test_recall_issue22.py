"""Issue 22, families 5, 8 and 2: envelopes and replies read through a schema.

Each row goes through every parser with ``repair=True`` (``parse``,
``invoke``, ``ainvoke``, the streaming path's final value), with the schema
the row names, and through the repairing ``extract`` for the repairs it names:
the value the rule allows, or a typed error.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import BaseModel
from test_repair_issue22 import ERROR, _outcomes, _parsers

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core.extract import Extraction, ReplyFailure, extract
from langchain_jsonrecover._core.schema.validate import Schema


class Calc(BaseModel):
    expression: str


def _schema_parsers(schema: Any) -> list[Any]:
    return [
        JsonFenceOutputParser(pydantic_object=schema, repair=True),
        TruncationRecoveringOutputParser(pydantic_object=schema, repair=True),
    ]


def _assert_rows(reply: str, schema: Any, expected: Any) -> None:
    """Every parser with ``schema`` (none: also the regex one) reads ``expected``."""
    for parser in _schema_parsers(schema) if schema is not None else _parsers():
        outcomes = _outcomes(parser, reply)
        if expected is ERROR:
            assert all(isinstance(o, type) for o in outcomes), (parser, outcomes)
        else:
            assert outcomes == [expected] * 4, parser


# Family 5: a JSON-RPC request (MCP's ``tools/call`` and kin) is an envelope
# kind of its own, its keys jsonrpc, method, id and params. ``params`` holds a
# call envelope (unwrapped when it holds a call's keys only) or, for another
# method, the method's arguments. A key beyond a level's kind stays an error.
RPC = '{{"jsonrpc": "2.0", "method": "{method}", {extra}"params": {params}}}'
CALL = '{"name": "calc", "arguments": {"expression": "1+2"}}'
ARGS = '{"expression": "1+2"}'
JSONRPC = [
    pytest.param(RPC.format(method="tools/call", extra="", params=CALL), "call"),
    pytest.param(RPC.format(method="tools/call", extra='"id": 7, ', params=CALL), "id"),
    pytest.param(RPC.format(method="eval", extra="", params=ARGS), "arguments"),
    pytest.param(
        "```json\n" + RPC.format(method="eval", extra="", params=ARGS) + "\n```",
        "fenced",
    ),
    pytest.param(
        RPC.format(
            method="tools/call",
            extra="",
            params='{"name": "calc", "arguments": "{\\"expression\\": \\"1+2\\"}"}',
        ),
        "string_arguments",
    ),
    pytest.param(RPC.format(method="tools/call", extra="", params=ARGS), "not_a_call"),
    pytest.param(
        RPC.format(method="eval", extra='"meta": {}, ', params=ARGS), "key_beyond"
    ),
    pytest.param(
        RPC.format(
            method="tools/call",
            extra="",
            params='{"name": "calc", "arguments": {"expression": "1"}, "format": "x"}',
        ),
        "call_key_beyond",
    ),
]
JSONRPC_RIGHT = {"call", "id", "arguments", "fenced", "string_arguments"}


@pytest.mark.parametrize(
    ("reply", "row"), JSONRPC, ids=[str(p.values[1]) for p in JSONRPC]
)
def test_a_jsonrpc_request_is_read_level_by_level(reply: str, row: str) -> None:
    expected = Calc(expression="1+2") if row in JSONRPC_RIGHT else ERROR
    _assert_rows(reply, Calc, expected)
    found = extract(reply, schema=Schema(Calc), repair=True)
    if row in JSONRPC_RIGHT:
        assert isinstance(found, Extraction)
        assert "jsonrpc_unwrapped" in found.repairs
    else:
        assert isinstance(found, ReplyFailure)


def test_without_a_schema_a_jsonrpc_request_is_the_value() -> None:
    reply = RPC.format(method="eval", extra="", params=ARGS)
    found = extract(reply, repair=True)
    assert isinstance(found, Extraction)
    assert found.value["params"] == {"expression": "1+2"}
    with pytest.raises(SchemaValidationError):
        JsonFenceOutputParser(pydantic_object=Calc).parse(
            RPC.format(method="tools/call", extra="", params=ARGS)
        )


class Weather(BaseModel):
    location: str


# A block tagged with another language (```xml, ```python) whose body is JSON
# is read only when the reply holds no other candidate, and only when it is the
# one such block: the tag is a slip, the body says what it is.
CALL_BODY = '{"name": "get_weather", "arguments": {"location": "Tucson"}}'
MISLABELLED = [
    pytest.param(f"Checking.\n\n```xml\n{CALL_BODY}\n```", True, id="xml"),
    pytest.param(
        f"```xml\n<function_call>\n{CALL_BODY}\n</function_call>\n```",
        True,
        id="xml_markup",
    ),
    pytest.param('```python\n{"location": "Tucson"}\n```', True, id="python"),
    pytest.param(
        '```xml\n{"location": "Tucson"}\n```\n```xml\n{"location": "Oslo"}\n```',
        False,
        id="two_blocks",
    ),
    pytest.param('```python\nprint({"location": 1})\n```', False, id="code"),
    pytest.param('```xml\n{"location": "Tu" "cson"}\n```', False, id="broken"),
]


@pytest.mark.parametrize(("reply", "read"), MISLABELLED)
def test_one_mislabelled_block_is_read_when_nothing_else_is(
    reply: str, *, read: bool
) -> None:
    expected = Weather(location="Tucson") if read else ERROR
    _assert_rows(reply, Weather, expected)
    found = extract(reply, repair=True)
    if read:
        assert isinstance(found, Extraction)
        assert "mislabelled_fence_read" in found.repairs
    else:
        assert isinstance(found, ReplyFailure)


def test_a_mislabelled_block_never_stands_beside_other_json() -> None:
    reply = '{"location": "Oslo"}\n```xml\n{"location": "Tucson"}\n```'
    assert JsonFenceOutputParser(pydantic_object=Weather).parse(reply) == Weather(
        location="Oslo"
    )
    found = extract('```json\n{"a": 1}\n```\n```xml\n{"b": 2}\n```')
    assert isinstance(found, Extraction)
    assert found.value == {"a": 1}


class Plan(BaseModel):
    summary: str
    steps: list[str]


PLAN = '{"summary": "Move the jobs", "steps": ["Add a table", "Port the export"]}'
PLAN_VALUE = Plan(summary="Move the jobs", steps=["Add a table", "Port the export"])


def _string(text: str) -> str:
    """``text`` as a JSON string literal."""
    return orjson.dumps(text).decode()


# Family 8: a string under a payload key (or in an agent's envelope) that holds
# a reply of its own is read as a reply: markup blanked, then the string is
# JSON, or one fence holding JSON with prose around it that holds no bracket.
# Each envelope is read only when it holds its own kind's keys and nothing
# else; a second fence, brackets in the prose, an error result, or a result
# whose two payloads differ stay errors.
FENCED = "Here it is:\n```json\n" + PLAN + "\n```\nAnything else?"
RESULT = '{{"type": "result", "subtype": "success", "is_error": false, {members}}}'
REPLY_STRINGS = [
    pytest.param(
        RESULT.format(members='"result": ' + _string("```json\n" + PLAN + "\n```")),
        "result_message_unwrapped",
        id="result_message",
    ),
    pytest.param(
        RESULT.format(
            members=f'"result": "Done.", "structured_output": {PLAN}, "num_turns": 2'
        ),
        "result_message_unwrapped",
        id="structured_output",
    ),
    pytest.param(
        '[{"type": "text", "text": ' + _string(FENCED) + ', "annotations": []}]',
        "content_block_read",
        id="content_block",
    ),
    pytest.param(
        '{"result": ' + _string(FENCED) + "}", "reply_string_read", id="prose"
    ),
    pytest.param(
        '{"json": ' + _string(PLAN + "\n</invoke>") + "}",
        "reply_string_read",
        id="markup_after",
    ),
    pytest.param('{"final": ' + _string(PLAN) + "}", "decoded_json_string", id="final"),
    pytest.param(
        RESULT.format(members='"result": ' + _string(FENCED)).replace("false", "true"),
        None,
        id="error_result",
    ),
    pytest.param(
        RESULT.format(members='"result": ' + _string(FENCED) + ', "extra": 1'),
        None,
        id="result_key_beyond",
    ),
    pytest.param(
        RESULT.format(
            members='"result": '
            + _string(FENCED)
            + ', "structured_output": {"summary": "x", "steps": []}'
        ),
        None,
        id="two_payloads_differ",
    ),
    pytest.param(
        '{"result": ' + _string(FENCED + "\n```json\n" + PLAN + "\n```") + "}",
        None,
        id="two_fences",
    ),
    pytest.param(
        '{"result": ' + _string("See [1].\n```json\n" + PLAN + "\n```") + "}",
        None,
        id="bracket_in_prose",
    ),
    pytest.param(
        '[{"type": "text", "text": '
        + _string(FENCED)
        + '}, {"type": "text", "text": "x"}]',
        None,
        id="two_blocks",
    ),
]


@pytest.mark.parametrize(("reply", "repair"), REPLY_STRINGS)
def test_a_string_holding_a_reply_is_read_as_one(
    reply: str, repair: str | None
) -> None:
    _assert_rows(reply, Plan, ERROR if repair is None else PLAN_VALUE)
    found = extract(reply, schema=Schema(Plan), repair=True)
    if repair is None:
        assert isinstance(found, ReplyFailure)
    else:
        assert isinstance(found, Extraction)
        assert repair in found.repairs


def test_without_a_schema_an_envelope_string_stays_a_string() -> None:
    reply = '{"result": ' + _string(FENCED) + "}"
    assert JsonFenceOutputParser().parse(reply) == {"result": FENCED}


# Family 2, several inner quotes: where the repair pass refuses a candidate
# and no single edit reads it (no quote dropped, added or moved, no comma or
# colon inserted), every quote that cannot close its string is text: beside a
# colon (a diagram's label), or doubled before the string's own closing quote.
# One inner quote (an inch mark) is one edit away from a stray quote dropped:
# two readings, an error. Two quotes with only spaces between them, a quote
# beside a lost one, and a cut stay errors.
INNER = [
    pytest.param(
        '{"t": "call it "Owl"", "n": 1}', {"t": 'call it "Owl"', "n": 1}, id="doubled"
    ),
    pytest.param('["say "hi"", "x"]', ['say "hi"', "x"], id="doubled_in_array"),
    pytest.param('{"t": "a "b""}', {"t": 'a "b"'}, id="doubled_at_the_end"),
    pytest.param(
        '{"d": "a : "has" b", "n": 1}', {"d": 'a : "has" b', "n": 1}, id="label"
    ),
    pytest.param(
        '{"d": "erDiagram\\n  a ||--o{ b : "has"\\n  b ||--|{ c : "pays"\\n"}',
        {"d": 'erDiagram\n  a ||--o{ b : "has"\n  b ||--|{ c : "pays"\n'},
        id="mermaid",
    ),
    pytest.param('{"t": "1/2" wrench"}', ERROR, id="inch_mark"),
    pytest.param('{"a": "he said "hi", "b": "c"}', ERROR, id="quote_or_lost_quote"),
    pytest.param('{"t": "a" "b"}', ERROR, id="two_tokens"),
    pytest.param('{"t": "call it "Owl""', ERROR, id="cut"),
]


@pytest.mark.parametrize(("reply", "expected"), INNER)
def test_inner_quotes_with_one_reading_are_text(reply: str, expected: Any) -> None:
    _assert_rows(reply, None, expected)
    found = extract(reply, repair=True)
    if expected is ERROR:
        assert isinstance(found, ReplyFailure)
    else:
        assert isinstance(found, Extraction)
        assert found.repairs == ("inner_quotes_escaped",)
    assert isinstance(extract(reply, repair=False), ReplyFailure)
    # One reading: the default level reads what repair=True reads.
    assert extract(reply) == found


# A list of one call envelope (``[TOOL_CALLS] [{…}]``) is the call's arguments
# where the schema wants an object; a call with a key beyond a call's, or two
# calls, stay errors.
CALL_LISTS = [
    pytest.param(f"[TOOL_CALLS] [{CALL}]", True, id="tool_calls_token"),
    pytest.param(f"[{CALL}]", True, id="bare"),
    pytest.param(
        '[{"name": "calc", "arguments": "{\\"expression\\": \\"1+2\\"}"}]',
        True,
        id="string_arguments",
    ),
    pytest.param(f"[{CALL}, {CALL}]", False, id="two_calls"),
    pytest.param(
        '[{"name": "calc", "arguments": {"expression": "1+2"}, "format": "x"}]',
        False,
        id="key_beyond",
    ),
]


@pytest.mark.parametrize(("reply", "read"), CALL_LISTS)
def test_a_list_of_one_call_is_its_arguments(reply: str, *, read: bool) -> None:
    _assert_rows(reply, Calc, Calc(expression="1+2") if read else ERROR)
    found = extract(reply, schema=Schema(Calc), repair=True)
    if read:
        assert isinstance(found, Extraction)
        assert "call_list_unwrapped" in found.repairs
    else:
        assert isinstance(found, ReplyFailure)


class Query(BaseModel):
    target: str
    message: str


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(
            '{"target": "kb", "message\\"": "Find \\"x\\"."}',
            Query(target="kb", message='Find "x".'),
            id="escaped_quote_residue",
        ),
        pytest.param(
            '{"target": "kb", "\'message\'": "hi"}',
            Query(target="kb", message="hi"),
            id="single_quoted_key",
        ),
        pytest.param(
            '{"target": "kb", "message": "a", "message\\"": "b"}',
            ERROR,
            id="two_keys_differ",
        ),
    ],
)
def test_quotes_at_the_ends_of_a_key_are_residue(reply: str, expected: Any) -> None:
    _assert_rows(reply, Query, expected)


class Fact(BaseModel):
    what: str


class Facts(BaseModel):
    facts: list[Fact]
    source: str = ""


class Pair(BaseModel):
    facts: list[Fact]
    tags: list[str]


# A bare array where the schema's only required field is its one array field
# is that field's value; with two array fields, an error.
@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        pytest.param(Facts, Facts(facts=[Fact(what="a"), Fact(what="b")]), id="one"),
        pytest.param(Pair, ERROR, id="two_array_fields"),
    ],
)
def test_a_bare_array_fills_the_one_array_field(schema: Any, expected: Any) -> None:
    reply = '[{"what": "a"}, {"what": "b"}]'
    _assert_rows(reply, schema, expected)
    found = extract(reply, schema=Schema(schema), repair=True)
    assert isinstance(found, Extraction) is (expected is not ERROR)


class Scores(BaseModel):
    scores: list[int]


def test_a_bare_array_of_scalars_is_no_field_value() -> None:
    # A citation ``[1]`` in prose is never read as the field's value.
    _assert_rows("No scores were found [1].", Scores, ERROR)


class Todos(BaseModel):
    todos: list[str]


KIMI = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.TodoWrite:1"
    "<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
)


# Arguments after a named call's marker may be encoded once more, as a JSON
# string (Kimi K2): with a schema, the string is read as the arguments.
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            _string('{"todos": ["a", "b"]}'), Todos(todos=["a", "b"]), id="encoded"
        ),
        pytest.param('{"todos": ["a", "b"]}', Todos(todos=["a", "b"]), id="plain"),
        pytest.param(_string('{"todos": ["a", "b"]'), ERROR, id="encoded_broken"),
    ],
)
def test_encoded_arguments_after_a_call_marker(args: str, expected: Any) -> None:
    _assert_rows(KIMI.format(args=args), Todos, expected)
