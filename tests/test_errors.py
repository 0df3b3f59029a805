"""Each error names its kind in one place: the class; events and errors agree."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.output_parsers import JsonOutputParser
from pydantic import BaseModel

import langchain_jsonrecover
from langchain_jsonrecover import retry
from langchain_jsonrecover._core.found import ReplyFailure
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    JsonRecoveryError,
    NoJsonFoundError,
    ReplyTooLargeError,
    RetryExhaustedError,
    SchemaValidationError,
    UnknownToolError,
    error_for,
)
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.retry.steps import Ask, Plan, Rejected, State, next_move


class Person(BaseModel):
    name: str
    age: int


KINDS: list[object] = [
    pytest.param(ReplyTooLargeError, "too_large", id="too_large"),
    pytest.param(NoJsonFoundError, "no_json", id="no_json"),
    pytest.param(InvalidJsonError, "invalid_json", id="invalid_json"),
    pytest.param(SchemaValidationError, "schema", id="schema"),
    pytest.param(RetryExhaustedError, "retry_exhausted", id="retry_exhausted"),
    pytest.param(UnknownToolError, "unknown_tool", id="unknown_tool"),
    pytest.param(JsonRecoveryError, "parse_error", id="base_class"),
]


@pytest.mark.parametrize(("error", "kind"), KINDS)
def test_each_error_class_names_its_kind(
    error: type[OutputParserException], kind: str
) -> None:
    assert error.kind == kind  # type: ignore[attr-defined]


# (reply, parser, error raised, kind the jsonrecover.retry event reports)
FAILURES: list[object] = [
    pytest.param(
        '{"name": "Ada", "age": 36}',
        JsonFenceOutputParser(max_chars=5),
        ReplyTooLargeError,
        "too_large",
        id="over_max_chars",
    ),
    pytest.param(
        "No JSON here.",
        JsonFenceOutputParser(),
        NoJsonFoundError,
        "no_json",
        id="prose",
    ),
    pytest.param(
        '{"a" 1}',
        JsonFenceOutputParser(repair=False),
        InvalidJsonError,
        "invalid_json",
        id="syntax",
    ),
    pytest.param(
        "[" * 5000,
        JsonFenceOutputParser(),
        InvalidJsonError,
        "invalid_json",
        id="too_deep",
    ),
    pytest.param(
        'Here: {"a": [1, 2',
        JsonFenceOutputParser(),
        InvalidJsonError,
        "truncated",
        id="cut_off",
    ),
    pytest.param(
        '{"name": "Ada"}',
        JsonFenceOutputParser(pydantic_object=Person),
        SchemaValidationError,
        "schema",
        id="schema",
    ),
]


@pytest.mark.parametrize(("reply", "parser", "error", "kind"), FAILURES)
def test_the_event_reports_the_kind_of_the_error_raised(
    reply: str,
    parser: JsonFenceOutputParser[Any],
    error: type[JsonRecoveryError],
    kind: str,
) -> None:
    with pytest.raises(JsonRecoveryError) as caught:
        parser.parse(reply)
    assert type(caught.value) is error
    plan = Plan(base=(HumanMessage("JSON, please"),))
    rejected = Rejected(caught.value, "feedback")
    move = next_move(plan, State(), AIMessage(reply), rejected)
    assert isinstance(move, Ask)
    assert move.event == {"attempt": 1, "error": kind, "feedback": "feedback"}
    cut_off = isinstance(caught.value, InvalidJsonError) and caught.value.truncated
    assert kind == ("truncated" if cut_off else error.kind)


def test_a_foreign_parser_error_is_a_parse_error() -> None:
    with pytest.raises(OutputParserException) as caught:
        JsonOutputParser().parse("no json")
    plan = Plan(base=(HumanMessage("JSON, please"),))
    move = next_move(plan, State(), AIMessage("no json"), Rejected(caught.value, "x"))
    assert isinstance(move, Ask)
    assert move.event is not None
    assert move.event["error"] == "parse_error"


def test_too_large_is_caught_as_a_recovery_error_and_pickles() -> None:
    parser = JsonFenceOutputParser(max_chars=5)
    with pytest.raises(JsonRecoveryError) as caught:
        parser.parse('{"a": 1}')
    error = caught.value
    assert isinstance(error, ReplyTooLargeError)
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert type(copy) is ReplyTooLargeError
    assert (str(copy), copy.llm_output, copy.observation, copy.send_to_llm) == (
        str(error),
        '{"a": 1}',
        error.observation,
        True,
    )


def test_retry_exhausted_error_is_one_class_in_three_places() -> None:
    assert retry.RetryExhaustedError is RetryExhaustedError
    assert langchain_jsonrecover.RetryExhaustedError is RetryExhaustedError
    assert not issubclass(RetryExhaustedError, JsonRecoveryError)
    assert issubclass(RetryExhaustedError, OutputParserException)


MESSAGES: list[object] = [
    pytest.param(
        JsonRecoveryError("Bad.", llm_output="x"), "Bad.", id="recovery_error"
    ),
    pytest.param(
        RetryExhaustedError("No usable reply.", llm_output="x"),
        "No usable reply.",
        id="retry_exhausted",
    ),
]


@pytest.mark.parametrize(("error", "message"), MESSAGES)
def test_messages_stay_as_written_without_a_troubleshooting_url(
    error: OutputParserException, message: str
) -> None:
    assert str(error) == message
    assert error.args == (message,)


_REQUIRES_A = {"type": "object", "required": ["a"]}


@pytest.mark.parametrize(
    ("schema", "reply"),
    [
        pytest.param(None, '{"a": 1 "b": 2}', id="syntax"),
        pytest.param(None, '{"a": {"b": 1}', id="cut-after-a-closer"),
        pytest.param(None, "no JSON here", id="no-json"),
        pytest.param(_REQUIRES_A, '{"b": 2}', id="schema"),
        pytest.param(_REQUIRES_A, '{"a": 1 "b": 2}', id="syntax-with-a-schema"),
    ],
)
def test_a_failed_parse_reads_no_private_attribute_through_getattr(
    monkeypatch: pytest.MonkeyPatch, schema: Any, reply: str
) -> None:
    # Pydantic's ``__getattr__`` raises and catches an exception for each read
    # of a private attribute (5 µs): the typed error is built without one.
    parser = langchain_jsonrecover.TruncationRecoveringOutputParser(
        pydantic_object=schema, repair=False
    )
    lookups = 0
    real = vars(BaseModel)["__getattr__"]

    def counted(self: BaseModel, name: str) -> Any:
        nonlocal lookups
        lookups += 1
        return real(self, name)

    monkeypatch.setattr(BaseModel, "__getattr__", counted)
    with pytest.raises(JsonRecoveryError) as raised:
        parser.parse(reply)
    assert lookups == 0
    failure = parser._find(reply)
    assert isinstance(failure, ReplyFailure)
    read = parser._schema_read()
    if read is not None and failure.kind == "schema":
        failure = dataclasses.replace(failure, detail=read.name)
    expected = error_for(failure, reply, parser._shape)  # the lookup, as before
    assert (type(raised.value), str(raised.value), raised.value.observation) == (
        type(expected),
        str(expected),
        expected.observation,
    )


@pytest.mark.parametrize(("error", "message"), MESSAGES)
def test_errors_hold_what_langchains_init_sets(
    error: OutputParserException, message: str
) -> None:
    """Ours set LangChain's attributes without its ``__init__``: the same ones.

    An attribute that a later langchain-core adds to ``OutputParserException``
    fails here (ours would lack it), as does one whose value differs.
    """
    theirs = OutputParserException(
        message,
        observation=error.observation,
        llm_output=error.llm_output,
        send_to_llm=error.send_to_llm,
    )
    ours = {k: v for k, v in vars(error).items() if k in vars(theirs)}
    assert ours == vars(theirs)
    assert set(vars(error)) - set(vars(theirs)) <= {"message", "attempts", "repeats"}
