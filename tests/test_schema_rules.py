"""Issue 21, families 6-10: what the schema-aligned reading reads, and refuses.

Each row is a reply and either the value it says or the error it must raise
(``Raises``: the error's paths, and a word its messages hold). Each family's
rows go through every entry point that reads a value against a schema: the
fence parser (with and without ``repair``, sync and async), the truncation
parser, ``structured_output`` over a scripted model (one attempt), a logged
record (``recover_record``), the agent middleware and, for tool arguments,
``recover_tool_calls``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from _models import ScriptedChatModel
from langchain.agents import create_agent
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from pydantic import BaseModel, ConfigDict

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    RetryExhaustedError,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    recover_record,
    recover_tool_calls,
    structured_output,
)
from langchain_jsonrecover._core.schema.keys import (
    PAYLOAD_KEYS,
    UNIT_SUFFIXES,
    unit_stem,
)
from langchain_jsonrecover.agents import JsonRecoveryMiddleware


class Filter(BaseModel):
    city: str | None = None
    max_price: int | None = None


class Person(BaseModel):
    name: str
    age: int


class Trip(BaseModel):
    city: str
    days: int = 1


class Itinerary(BaseModel):
    owner: str
    trip: Trip


class GetWeather(BaseModel):
    city: str


class Review(BaseModel):
    sentiment: Literal["positive", "negative", "neutral"]
    summary: str


class Config(BaseModel):
    retries: int
    timeout: int = 30


class Service(BaseModel):
    name: str
    config: Config


class Limit(BaseModel):
    max_price: int


class Item(BaseModel):
    name: str
    id: int = 0


class Call(BaseModel):
    name: str
    priority: int


class ChatReply(BaseModel):
    message: str


@dataclass(frozen=True)
class Raises:
    """The reply must raise: a schema error at these paths, saying ``says``."""

    paths: tuple[str, ...]
    says: str


def _fence(target: Any, reply: str, **options: Any) -> Any:
    return JsonFenceOutputParser(pydantic_object=target, **options).parse(reply)


def _fence_async(target: Any, reply: str, **options: Any) -> Any:
    parser = JsonFenceOutputParser(pydantic_object=target, **options)
    return asyncio.run(parser.aparse(reply))


def _repair(target: Any, reply: str, **options: Any) -> Any:
    return _fence(target, reply, repair=True, **options)


def _truncation(target: Any, reply: str, **options: Any) -> Any:
    parser = TruncationRecoveringOutputParser(pydantic_object=target, **options)
    return parser.parse(reply)


def _structured(target: Any, reply: str, **options: Any) -> Any:
    if options:
        pytest.skip("structured_output takes no parser options here")
    model = GenericFakeChatModel(messages=iter([reply]))
    try:
        return structured_output(model, target, max_retries=0).invoke("Answer.")
    except RetryExhaustedError as exc:
        cause = exc.__cause__
        raise cause if isinstance(cause, SchemaValidationError) else exc from exc


def _record(target: Any, reply: str, **options: Any) -> Any:
    parser = JsonFenceOutputParser(pydantic_object=target, **options)
    row = recover_record({"reply": reply}, parser, field="reply")
    if not row["ok"]:
        raise SchemaValidationError(row["error"]["message"], errors=[])
    return target.model_validate(row["value"])


ENTRY_POINTS = {
    "fence": _fence,
    "fence_async": _fence_async,
    "fence_repair": _repair,
    "truncation": _truncation,
    "structured_output": _structured,
    "record": _record,
}


def _check(entry: str, target: Any, reply: str, expected: Any, **options: Any) -> None:
    run = ENTRY_POINTS[entry]
    if not isinstance(expected, Raises):
        assert run(target, reply, **options) == expected
        return
    with pytest.raises(SchemaValidationError) as caught:
        run(target, reply, **options)
    assert expected.says in str(caught.value)
    if entry != "record":  # a row carries the message, not the errors
        assert tuple(e["path"] for e in caught.value.errors) == expected.paths


def _rows(rows: list[tuple[str, Any, str, Any]]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        ("target", "reply", "expected"),
        [row[1:] for row in rows],
        ids=[row[0] for row in rows],
    )


every_entry = pytest.mark.parametrize("entry", list(ENTRY_POINTS))


# Family 6: only a key that names the payload is unwrapped.

WRAPPERS: list[tuple[str, Any, str, Any]] = [
    (
        "exclude_is_not_the_filter",
        Filter,
        '{"exclude": {"city": "Paris"}}',
        Raises(("",), "'exclude'"),
    ),
    (
        "previous_is_not_the_answer",
        Person,
        'Here: {"previous": {"name": "Ada", "age": 36}}',
        Raises(("",), "'previous'"),
    ),
    (
        "example_is_not_the_answer",
        Person,
        '```json\n{"example": {"name": "Ada", "age": 36}}\n```',
        Raises(("",), "'example'"),
    ),
    (
        "a_nested_wrapper_of_another_name",
        Itinerary,
        '{"owner": "Ada", "trip": {"journey": {"city": "Oslo"}}}',
        Raises(("",), "'journey'"),
    ),
    (
        "a_wrapper_under_the_schema_title",
        Person,
        '{"PERSON": {"name": "Ada", "age": 36}}',
        Person(name="Ada", age=36),
    ),
    (
        "a_wrapper_under_the_tool_name_in_snake_case",
        GetWeather,
        '{"get_weather": {"city": "Oslo"}}',
        GetWeather(city="Oslo"),
    ),
    (
        "a_nested_wrapper_under_the_nested_title",
        Itinerary,
        '{"owner": "Ada", "trip": {"Trip": {"city": "Oslo"}}}',
        Itinerary(owner="Ada", trip=Trip(city="Oslo")),
    ),
]


@every_entry
@_rows(WRAPPERS)
def test_a_wrapper_is_unwrapped_only_where_its_key_names_the_payload(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


@pytest.mark.parametrize("key", sorted(PAYLOAD_KEYS))
@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation"])
def test_every_payload_key_is_unwrapped(entry: str, key: str) -> None:
    reply = f'{{"{key.title()}": {{"name": "Ada", "age": 36}}}}'
    _check(entry, Person, reply, Person(name="Ada", age=36))


@pytest.mark.parametrize(
    ("target", "reply", "key"),
    [
        (list[str], '{"errors": ["no input given"]}', "errors"),
        (list[Trip], '{"excluded": [{"city": "Oslo"}]}', "excluded"),
        (list[Trip], '{"previous": "[{\\"city\\": \\"Oslo\\"}]"}', "previous"),
    ],
    ids=["errors_are_not_the_list", "excluded_trips", "previous_as_a_json_string"],
)
@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation"])
def test_a_wrapper_around_a_list_names_the_payload_or_raises(
    entry: str, target: Any, reply: str, key: str
) -> None:
    with pytest.raises(SchemaValidationError) as caught:
        ENTRY_POINTS[entry](target, reply)
    assert [e["value"] for e in caught.value.errors] == [key]


@pytest.mark.parametrize(
    ("args", "ok"),
    [
        ('{"exclude": {"city": "Paris"},}', False),
        ('{"arguments": {"city": "Paris"},}', True),
    ],
    ids=["exclude", "arguments"],
)
def test_tool_arguments_in_a_wrapper_of_another_name_stay_invalid(
    args: str, *, ok: bool
) -> None:
    message = AIMessage(
        "",
        invalid_tool_calls=[
            {"name": "Filter", "args": args, "id": "c1", "error": "bad json"}
        ],
    )
    fixed = recover_tool_calls(message, [Filter])
    assert bool(fixed.tool_calls) is ok
    assert bool(fixed.invalid_tool_calls) is not ok
    if ok:
        assert fixed.tool_calls[0]["args"] == {"city": "Paris"}


# Family 7: a value read through the schema (or repaired) beside another that
# validates as it stands is two readings.

READINGS: list[tuple[str, Any, str, Any]] = [
    (
        "aligned_answer_then_a_strict_placeholder",
        Review,
        (
            'Verdict: {"sentiment": "Positive", "summary": "Great"} '
            '(format: {"sentiment": "neutral", "summary": "..."})'
        ),
        Raises(("",), "two readings"),
    ),
    (
        "aligned_format_then_a_strict_answer",
        Review,
        (
            'Format: {"Sentiment": "neutral", "summary": "..."}. '
            'Answer: {"sentiment": "positive", "summary": "Great"}'
        ),
        Raises(("",), "two readings"),
    ),
    (
        "strict_answer_then_an_aligned_example",
        Person,
        'Answer: {"name": "Ada", "age": 36}. Example: {"Name": "Bob", "age": 1}',
        Raises(("",), "two readings"),
    ),
    (
        "aligned_and_strict_of_the_same_value",
        Review,
        (
            'Draft: {"sentiment": "Positive", "summary": "Great"} '
            'Final: {"sentiment": "positive", "summary": "Great"}'
        ),
        Review(sentiment="positive", summary="Great"),
    ),
    (
        "two_aligned_keep_the_first",
        Review,
        (
            '{"Sentiment": "positive", "summary": "a"} then '
            '{"Sentiment": "negative", "summary": "b"}'
        ),
        Review(sentiment="positive", summary="a"),
    ),
    (
        "a_second_read_value_unlike_the_strict_one",
        Review,
        (
            # Prose between the first two: glued, they would be several
            # values in one place (an error of its own).
            '{"sentiment": "positive", "summary": "a"} or '
            '{"Sentiment": "positive", "summary": "a"} '
            '(format: {"sentiment": "Negative", "summary": "b"})'
        ),
        Raises(("",), "two readings"),
    ),
    (
        "two_strict_keep_the_first",
        Review,
        (
            '{"sentiment": "positive", "summary": "a"} then '
            '{"sentiment": "negative", "summary": "b"}'
        ),
        Review(sentiment="positive", summary="a"),
    ),
]


@every_entry
@_rows(READINGS)
def test_a_reading_beside_a_value_as_it_stands_is_two_readings(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


REPAIRED: list[tuple[str, Any, str, Any]] = [
    (
        "repaired_answer_then_a_strict_sample",
        Review,
        (
            'Answer: {"sentiment": "positive", "summary": "Great",} and a sample: '
            '{"sentiment": "neutral", "summary": "x"}'
        ),
        Raises(("",), "two readings"),
    ),
    (
        "strict_sample_then_a_repaired_answer",
        Review,
        (
            'Sample: {"sentiment": "neutral", "summary": "x"}. '
            "Answer: {'sentiment': 'positive', 'summary': 'Great'}"
        ),
        Raises(("",), "two readings"),
    ),
    (
        "repaired_and_strict_of_the_same_value",
        Review,
        (
            'Answer: {"sentiment": "positive", "summary": "Great",} again: '
            '{"sentiment": "positive", "summary": "Great"}'
        ),
        Review(sentiment="positive", summary="Great"),
    ),
    (
        "two_readings_are_final_however_a_repair_reads",
        Review,
        (
            '{"sentiment": "positive", "summary": "a",} or '
            '{"sentiment": "Neutral", "summary": "a"} or '
            '{"sentiment": "neutral", "summary": "b"}'
        ),
        Raises(("",), "two readings"),
    ),
    (
        "a_second_repaired_value_unlike_the_strict_one",
        Review,
        (
            '{"sentiment": "negative", "summary": "a",} then '
            '{"sentiment": "neutral", "summary": "b",} then '
            '{"sentiment": "negative", "summary": "a"}'
        ),
        Raises(("",), "two readings"),
    ),
]


@pytest.mark.parametrize("prefer", ["first", "last"])
@_rows(REPAIRED)
def test_a_repaired_value_beside_a_strict_one_is_two_readings(
    target: Any, reply: str, expected: Any, prefer: str
) -> None:
    _check("fence_repair", target, reply, expected, prefer=prefer)


@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation"])
def test_prefer_last_with_an_earlier_aligned_value_is_two_readings(entry: str) -> None:
    reply = (
        'Answer: {"sentiment": "Positive", "summary": "Great"} '
        'Example: {"sentiment": "neutral", "summary": "x"}'
    )
    _check(entry, Review, reply, Raises(("",), "two readings"), prefer="last")


# Family 8: a unit-suffixed key for a missing field is an error, not a default.

UNITS: list[tuple[str, Any, str, Any]] = [
    (
        "snake_suffix",
        Config,
        '{"retries": 3, "timeout_ms": 500}',
        Raises(("timeout",), "did you mean 'timeout'"),
    ),
    (
        "camel_suffix",
        Config,
        '{"retries": 3, "timeoutMs": 500}',
        Raises(("timeout",), "did you mean 'timeout'"),
    ),
    (
        "seconds",
        Config,
        '{"retries": 3, "timeout_seconds": 5}',
        Raises(("timeout",), "'timeout_seconds'"),
    ),
    (
        "required_field_says_why",
        Limit,
        '{"max_price_usd": 30}',
        Raises(("max_price",), "did you mean 'max_price'"),
    ),
    (
        "at_depth",
        Service,
        '{"name": "api", "config": {"retries": 1, "timeoutSec": 9}}',
        Raises(("timeout",), "did you mean 'timeout'"),
    ),
    (
        "field_present_beside_a_suffixed_key",
        Config,
        '{"retries": 3, "timeout": 5, "timeout_ms": 5000}',
        Config(retries=3, timeout=5),
    ),
    (
        "suffixed_key_of_no_field",
        Config,
        '{"retries": 3, "latency_ms": 20}',
        Config(retries=3),
    ),
    (
        "customer_id_beside_id",
        Item,
        '{"name": "x", "customer_id": 7}',
        Item(name="x"),
    ),
]


@every_entry
@_rows(UNITS)
def test_a_unit_suffixed_key_never_leaves_its_field_to_the_default(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


@pytest.mark.parametrize(
    ("key", "stem"),
    [
        *((f"timeout{s}", "timeout") for s in UNIT_SUFFIXES),
        *((f"timeout{s[1:].capitalize()}", "timeout") for s in UNIT_SUFFIXES),
        ("customer_id", None),
        ("items", None),
        ("status", None),
        ("IDS", None),
        ("_ms", None),
    ],
)
def test_unit_suffixes_are_the_documented_list(key: str, stem: str | None) -> None:
    assert unit_stem(key) == stem


# Family 9: two keys for one field, with different values, is two readings.

TWO_KEYS: list[tuple[str, Any, str, Any]] = [
    (
        "field_and_a_near_spelling",
        Config,
        '{"retries": 3, "Retries": 4}',
        Raises(("retries",), "'retries' and 'Retries'"),
    ),
    (
        "two_near_spellings_of_a_missing_field",
        Config,
        '{"retries": 1, "Timeout": 5, "TIMEOUT": 6}',
        Raises(("timeout",), "'Timeout' and 'TIMEOUT'"),
    ),
    (
        "same_value_twice_is_one_reading",
        Config,
        '{"retries": 3, "Retries": 3}',
        Config(retries=3),
    ),
]


@every_entry
@_rows(TWO_KEYS)
def test_two_keys_for_one_field_raise(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


ALIASES = {"text": "message", "reply": "message"}
ALIASED: list[tuple[str, Any, str, Any]] = [
    (
        "two_aliases",
        ChatReply,
        '{"text": "hi", "reply": "bye"}',
        Raises(("message",), "'text' and 'reply'"),
    ),
    (
        "alias_beside_the_field",
        ChatReply,
        '{"message": "hi", "text": "bye"}',
        Raises(("message",), "'message' and 'text'"),
    ),
    ("one_alias", ChatReply, '{"reply": "hi"}', ChatReply(message="hi")),
    (
        "two_aliases_of_one_value",
        ChatReply,
        '{"text": "hi", "reply": "hi"}',
        ChatReply(message="hi"),
    ),
]


@pytest.mark.parametrize(
    "entry", ["fence", "fence_async", "fence_repair", "truncation"]
)
@_rows(ALIASED)
def test_two_aliases_of_one_field_raise(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected, field_aliases=ALIASES)


# Family 10: an outer value holding our fields reports its own errors.

OUTER: list[tuple[str, Any, str, Any]] = [
    (
        "name_and_parameters_beside_an_invalid_field",
        Call,
        (
            '{"name": "deploy", "priority": "high", '
            '"parameters": {"name": "x", "priority": 1}}'
        ),
        Raises(("priority",), "priority"),
    ),
    (
        "arguments_beside_an_invalid_field",
        Person,
        '{"name": "Ada", "age": "old", "arguments": {"name": "Bob", "age": 3}}',
        Raises(("age",), "age"),
    ),
    (
        "a_call_envelope_whose_name_is_a_field_still_unwraps",
        Person,
        '{"name": "person", "parameters": {"name": "Ada", "age": 36}}',
        Person(name="Ada", age=36),
    ),
    (
        "a_call_envelope_missing_the_fields_still_unwraps",
        Call,
        '{"arguments": {"name": "deploy", "priority": 2}}',
        Call(name="deploy", priority=2),
    ),
]


@every_entry
@_rows(OUTER)
def test_an_outer_value_with_an_invalid_field_reports_its_errors(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


# Found by an adversarial fuzz (unions, extra keys, prose after the answer).


class Book(BaseModel):
    title: str
    pages: int = 0


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    city: str | None = None
    timeout: int = 30


class Shelf(BaseModel):
    item: Trip | Book
    more: list[Trip | Book] = []


FUZZED: list[tuple[str, Any, str, Any]] = [
    (
        "near_key_in_a_union_branch",
        Trip | Book,
        '{"city": "Oslo", "DAYS": 8}',
        Trip(city="Oslo", days=8),
    ),
    (
        "near_key_in_a_nested_union",
        Shelf,
        '{"item": {"title": "Emma", " pages ": 4}}',
        Shelf(item=Book(title="Emma", pages=4)),
    ),
    (
        "unit_key_in_a_union",
        Shelf,
        '{"item": {"city": "Oslo", "daysUsd": 9}}',
        Raises(("days",), "did you mean 'days'"),
    ),
    (
        "two_keys_in_a_list_of_unions",
        Shelf,
        '{"item": {"title": "a"}, "more": [{"title": "b", "pages": 7, "Title": "c"}]}',
        Raises(("title",), "'title' and 'Title'"),
    ),
    (
        "payload_wrapper_around_a_union",
        Trip | Book,
        '{"result": {"title": "Emma", "pages": 8}}',
        Book(title="Emma", pages=8),
    ),
    (
        "opposite_wrapper_around_a_union",
        Trip | Book,
        '{"schema": {"title": "Emma", "pages": 8}}',
        Raises(("",), "'schema'"),
    ),
    (
        "any_wrapper_where_other_keys_are_data",
        Open,
        '{"result": {"city": "Oslo", "timeout": 40}}',
        Raises(("",), "also takes as data"),
    ),
    (
        "a_refused_answer_then_a_format_note",
        Filter,
        '{"exclude": {"city": "Paris"}}\n\nNote: fields are {"city": "string"}',
        Raises(("",), "'exclude'"),
    ),
    (
        "a_unit_key_then_an_example",
        Config,
        '{"retries": 3, "timeout_ms": 500}. For example: {"retries": 1}',
        Raises(("timeout",), "did you mean 'timeout'"),
    ),
    (
        "an_answer_then_a_refused_example_keeps_the_answer",
        Filter,
        '{"city": "Paris"} and not {"exclude": {"city": "Rome"}}',
        Filter(city="Paris"),
    ),
]


@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation", "record"])
@_rows(FUZZED)
def test_what_the_fuzz_found(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    if entry == "record" and not isinstance(target, type):
        pytest.skip("the record entry point validates a model")
    _check(entry, target, reply, expected)


@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation"])
def test_a_read_value_unlike_the_strict_one_after_one_like_it(entry: str) -> None:
    # From the end: a read value like the strict one, then one unlike it.
    reply = (
        '{"sentiment": "negative", "summary": "a"} '
        'Example: {"sentiment": "Negative", "summary": "b"} '
        '(format: {"answer": {"sentiment": "negative", "summary": "a"}})'
    )
    _check(entry, Review, reply, Raises(("",), "two readings"), prefer="last")


# The agent middleware: a refused reading is asked again, never answered.

MIDDLEWARE = [
    ('{"exclude": {"retries": 3}}', "'exclude'"),
    ('{"retries": 3, "timeout_ms": 500}', "did you mean 'timeout'"),
    ('{"retries": 3, "Retries": 4}', "'retries' and 'Retries'"),
    (
        'Verdict: {"retries": 3, "Timeout": 9} (format: {"retries": 1, "timeout": 5})',
        "two readings",
    ),
]


@pytest.mark.parametrize(("first", "says"), MIDDLEWARE)
async def test_the_middleware_asks_again_after_a_refused_reading(
    mode: str, first: str, says: str
) -> None:
    model = ScriptedChatModel(script=[first, '{"retries": 2, "timeout": 7}'])
    agent: Any = create_agent(
        model, middleware=[JsonRecoveryMiddleware(response_format=Config)]
    )
    payload = {"messages": [("user", "Settings?")]}
    result: dict[str, Any]
    if mode == "sync":
        result = agent.invoke(payload)
    else:
        result = await agent.ainvoke(payload)
    assert result["structured_response"] == Config(retries=2, timeout=7)
    assert len(model.calls) == 2
    assert says in str(model.calls[1][-1].content)


# A JSON-schema dict (validated with jsonschema) follows the same rules.

CALL_SCHEMA: dict[str, Any] = {
    "title": "Call",
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "priority": {"type": "integer"},
        "timeout": {"type": "integer", "default": 30},
    },
    "required": ["name", "priority"],
}
CALL = {"name": "x", "priority": 1}
DICT_ROWS: list[tuple[str, str, Any]] = [
    ("wrapper_under_the_title", '{"call": {"name": "x", "priority": 1}}', CALL),
    (
        "wrapper_of_another_name",
        '{"exclude": {"name": "x", "priority": 1}}',
        Raises(("",), "'exclude'"),
    ),
    (
        "unit_key",
        '{"name": "x", "priority": 1, "timeout_ms": 5}',
        Raises(("timeout",), "did you mean 'timeout'"),
    ),
    (
        "two_keys",
        '{"name": "x", "priority": 1, "Name": "y"}',
        Raises(("name",), "'name' and 'Name'"),
    ),
    (
        "outer_invalid",
        (
            '{"name": "deploy", "priority": "high", '
            '"parameters": {"name": "x", "priority": 1}}'
        ),
        Raises(("priority",), "priority"),
    ),
]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [row[1:] for row in DICT_ROWS],
    ids=[row[0] for row in DICT_ROWS],
)
@pytest.mark.parametrize("entry", ["fence", "fence_repair", "truncation"])
def test_a_json_schema_dict_follows_the_same_rules(
    entry: str, reply: str, expected: Any
) -> None:
    _check(entry, CALL_SCHEMA, reply, expected)
