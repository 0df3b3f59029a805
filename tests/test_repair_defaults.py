"""One ``repair`` default on every entry point, and what each level reads.

``repair="safe"`` is the default everywhere: the repairs with one reading are
made, so a reply with a trailing comma costs no re-ask on any entry point. A
repair that chooses among readings (a ``*_guessed`` repair, the single-edit
search, a ``#`` comment) is refused at the default and taken with
``repair=True``; ``repair=False`` repairs nothing.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import TYPE_CHECKING, Any

import pytest
from _models import ScriptedChatModel, ToolCallingChatModel
from _oracle import FIXED_SEED, generate
from _plain_models import Person
from langchain.agents import create_agent
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    extract_json,
    recover_record,
    recover_tool_calls,
    structured_output,
)
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.cli import main
from langchain_jsonrecover.cli.batch import ParserSpec
from langchain_jsonrecover.cli.extract import Reader
from langchain_jsonrecover.tools import arecover_tool_calls, recover

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


ADA = Person(name="Ada", age=36)
COMMA = '{"name": "Ada", "age": 36,}'
"""A trailing comma: one reading, so every default reads it."""


@tool
def find(name: str, age: int) -> str:
    """Find a person."""
    return f"{name}, {age}"


def _fake(reply: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(reply)]))


def _last_streamed(reply: str) -> Any:
    return list((_fake(reply) | JsonFenceOutputParser()).stream("hi"))[-1]


async def _last_astreamed(reply: str) -> Any:
    return [
        item async for item in (_fake(reply) | JsonFenceOutputParser()).astream("hi")
    ][-1]


def _structured_json(reply: str) -> Any:
    model = ScriptedChatModel(script=[reply])
    value = structured_output(model, Person, strategy="json", max_retries=0)
    return value.invoke("Who?"), len(model.calls)


def _structured_tools(reply: str) -> Any:
    bad = {"name": "Person", "args": reply, "id": "c1", "error": "x"}
    model = ToolCallingChatModel(script=[AIMessage("", invalid_tool_calls=[bad])])
    value = structured_output(model, Person, max_retries=0).invoke("Who?")
    return value, len(model.calls)


def _recovered_call(reply: str) -> Any:
    bad = {"name": "find", "args": reply, "id": "c1", "error": "x"}
    fixed = recover_tool_calls(AIMessage("", invalid_tool_calls=[bad]), [find])
    return fixed.tool_calls[0]["args"]


def _agent_call(reply: str) -> Any:
    bad = {"name": "find", "args": reply, "id": "c1", "error": "x"}
    model = ToolCallingChatModel(
        script=[AIMessage("", invalid_tool_calls=[bad]), "Done."]
    )
    agent = create_agent(model, tools=[find], middleware=[JsonRecoveryMiddleware()])
    payload: Any = {"messages": [("user", "Find Ada")]}
    messages = agent.invoke(payload)["messages"]
    return [m.content for m in messages if m.type == "tool"], len(model.calls)


def _agent_answer(reply: str) -> Any:
    model = ScriptedChatModel(script=[reply])
    middleware = JsonRecoveryMiddleware(response_format=Person)
    agent = create_agent(model, middleware=[middleware])
    payload: Any = {"messages": [("user", "Who?")]}
    state = agent.invoke(payload)
    return state["structured_response"], len(model.calls)


def _record(reply: str) -> Any:
    row = recover_record(reply)
    return row["value"], row["repairs"]


def _command_line(
    reply: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Any:
    path = tmp_path / "reply.txt"
    path.write_text(reply, encoding="utf-8")
    code = main([str(path)])
    return code, json.loads(capsys.readouterr().out)


ENTRY_POINTS: list[Any] = [
    pytest.param(JsonFenceOutputParser().parse, {"name": "Ada", "age": 36}, id="parse"),
    pytest.param(
        lambda reply: JsonFenceOutputParser().invoke(AIMessage(reply)),
        {"name": "Ada", "age": 36},
        id="invoke",
    ),
    pytest.param(
        lambda reply: asyncio.run(JsonFenceOutputParser().ainvoke(reply)),
        {"name": "Ada", "age": 36},
        id="ainvoke",
    ),
    pytest.param(_last_streamed, {"name": "Ada", "age": 36}, id="stream"),
    pytest.param(
        lambda reply: asyncio.run(_last_astreamed(reply)),
        {"name": "Ada", "age": 36},
        id="astream",
    ),
    pytest.param(
        JsonFenceOutputParser(pydantic_object=Person).parse, ADA, id="parse_with_schema"
    ),
    pytest.param(
        TruncationRecoveringOutputParser().parse,
        {"name": "Ada", "age": 36},
        id="truncation_parser",
    ),
    pytest.param(
        lambda reply: RegexJsonOutputParser(pattern=r"<j>(.*)</j>").parse(
            f"<j>{reply}</j>"
        ),
        {"name": "Ada", "age": 36},
        id="regex_parser",
    ),
    pytest.param(
        lambda reply: extract_json(reply).value,
        {"name": "Ada", "age": 36},
        id="extract_json",
    ),
    pytest.param(_structured_json, (ADA, 1), id="structured_output_json"),
    pytest.param(_structured_tools, (ADA, 1), id="structured_output_tools"),
    pytest.param(_recovered_call, {"name": "Ada", "age": 36}, id="recover_tool_calls"),
    pytest.param(_agent_call, (["Ada, 36"], 2), id="middleware_tool_arguments"),
    pytest.param(_agent_answer, (ADA, 1), id="middleware_answer"),
    pytest.param(
        _record,
        ({"name": "Ada", "age": 36}, ["trailing_comma_removed"]),
        id="recover_record",
    ),
]


@pytest.mark.parametrize(("entry", "expected"), ENTRY_POINTS)
def test_a_trailing_comma_is_read_by_every_default_with_no_reask(
    entry: Callable[[str], Any], expected: Any
) -> None:
    assert entry(COMMA) == expected


def test_the_command_line_default_reads_a_trailing_comma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _command_line(COMMA, tmp_path, capsys) == (0, {"name": "Ada", "age": 36})


def _default(function: Callable[..., Any]) -> Any:
    return inspect.signature(function).parameters["repair"].default


def test_every_entry_point_has_the_same_default() -> None:
    defaults = {
        "JsonFenceOutputParser": JsonFenceOutputParser.model_fields["repair"].default,
        "RegexJsonOutputParser": RegexJsonOutputParser.model_fields["repair"].default,
        "TruncationRecoveringOutputParser": (
            TruncationRecoveringOutputParser.model_fields["repair"].default
        ),
        "extract_json": _default(extract_json),
        "recover_tool_calls": _default(recover_tool_calls),
        "arecover_tool_calls": _default(arecover_tool_calls),
        "tools.recover": _default(recover),
        "JsonRecoveryMiddleware": _default(JsonRecoveryMiddleware.__init__),
        "jsonrecover (Reader.build)": _default(Reader.build),
        "jsonrecover batch (ParserSpec)": ParserSpec().repair,
    }
    assert set(defaults.values()) == {"safe"}, defaults


# ------------------------------------------------------------------ the levels

CHOOSING: list[Any] = [
    pytest.param('{"a": [1, 2}', {"a": [1, 2]}, "bracket_fixed_guessed", id="guessed"),
    pytest.param(
        '{"a": "x, "b": 1}', {"a": "x", "b": 1}, "character_inserted", id="single_edit"
    ),
    pytest.param('{"a": 1, # note\n}', {"a": 1}, "comment_removed", id="hash_comment"),
]


@pytest.mark.parametrize(("reply", "value", "repair"), CHOOSING)
def test_a_repair_that_chooses_is_taken_only_with_repair_true(
    reply: str, value: Any, repair: str
) -> None:
    found = JsonFenceOutputParser(repair=True).extract(reply)
    assert (found.value, repair in found.repairs) == (value, True)
    for level in (False, "safe"):
        with pytest.raises(InvalidJsonError) as caught:
            JsonFenceOutputParser(repair=level).parse(reply)
        # The default raises what repair=False raises: where decoding stopped.
        assert not caught.value.truncated
    with pytest.raises(InvalidJsonError):
        extract_json(reply)
    assert extract_json(reply, repair=True).value == value


def test_a_slash_comment_has_one_reading_and_a_hash_in_a_string_is_text() -> None:
    parser = JsonFenceOutputParser()
    assert parser.parse('{"a": 1, // note\n}') == {"a": 1}
    assert parser.parse('{"tag": "#1", "a": 1, // note # 2\n}') == {"tag": "#1", "a": 1}
    with pytest.raises(InvalidJsonError):
        parser.parse('{"tag": "#1", /* x */ "a": 1, # note\n}')


def test_repair_false_repairs_nothing() -> None:
    with pytest.raises(InvalidJsonError):
        JsonFenceOutputParser(repair=False).parse(COMMA)
    with pytest.raises(InvalidJsonError):
        extract_json(COMMA, repair=False)


@pytest.mark.parametrize(("reply", "value", "repair"), CHOOSING)
def test_a_tool_call_read_by_choosing_is_made_only_with_repair_true(
    reply: str, value: Any, repair: str
) -> None:
    bad = {"name": "f", "args": reply, "id": "c1", "error": "x"}
    message = AIMessage("", invalid_tool_calls=[bad])
    kept = recover_tool_calls(message)
    assert kept.tool_calls == []
    assert repair in str(kept.invalid_tool_calls[0]["error"])
    taken = recover_tool_calls(message, repair=True)
    if repair.endswith("_guessed"):  # never a call on a guessed repair
        assert taken.tool_calls == []
    else:
        assert taken.tool_calls[0]["args"] == value


@pytest.mark.parametrize("cut", [False, True], ids=["faulted", "cut"])
def test_the_default_answers_what_repair_true_answers_or_raises(cut: bool) -> None:
    # Its answers are a subset of repair=True's: it cannot add a wrong value.
    taken = 0
    for case in generate(FIXED_SEED, 150, cut=cut):
        answers = []
        for level in ("safe", True):
            parser = TruncationRecoveringOutputParser(repair=level)
            try:
                answers.append(parser.parse(case.reply))
            except JsonRecoveryError:
                answers.append(JsonRecoveryError)
        if answers[0] is not JsonRecoveryError:
            taken += 1
            assert answers[0] == answers[1], case.reply
    assert taken > 0
