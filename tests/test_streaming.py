"""Streaming through ``model | parser``: partial values, the final parse, events, cost."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonpatch
import pydantic_core
import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import Generation
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from typing_extensions import TypedDict

import langchain_jsonrecover._core.extract as extract_module
from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    NoJsonFoundError,
    RegexJsonOutputParser,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover.parsers.events import RECOVERY_EVENT
from langchain_jsonrecover.parsers.streaming import plain
from langchain_jsonrecover.partial_models import partial_model

if TYPE_CHECKING:
    from collections.abc import Iterator


class Person(BaseModel):
    name: str
    age: int


def model(reply: str, **metadata: Any) -> GenericFakeChatModel:
    """A fake chat model streaming ``reply`` word by word."""
    return GenericFakeChatModel(
        messages=iter([AIMessage(reply, response_metadata=metadata)])
    )


def chunks_of(text: str, size: int) -> Iterator[str]:
    return (text[i : i + size] for i in range(0, len(text), size))


def stream_text(parser: Any, text: str, size: int = 1) -> list[Any]:
    """Stream text chunks straight into a parser (an LLM's output)."""
    return list(parser.transform(chunks_of(text, size)))


REPLY = '<think>maybe {"name": "Eve"}</think>\nSure! ```json\n{"name": "Ada", "age": 36}\n``` Bye'


def test_stream_yields_growing_values_then_the_final() -> None:
    values = list((model(REPLY) | JsonFenceOutputParser()).stream("hi"))
    assert values[-1] == {"name": "Ada", "age": 36}
    assert {"name": "Ada"} in values
    assert all("Eve" not in json.dumps(v) for v in values)


async def test_astream_matches_stream() -> None:
    sync = list((model(REPLY) | JsonFenceOutputParser()).stream("hi"))
    values = [v async for v in (model(REPLY) | JsonFenceOutputParser()).astream("hi")]
    assert values == sync


def test_nothing_inside_reasoning_is_ever_yielded() -> None:
    text = '<think>{"draft": 1, "more": [1, 2, 3]}</think>{"final": true}'
    values = stream_text(JsonFenceOutputParser(), text)
    assert values == [{}, {"final": True}]


def test_prose_without_json_before_a_fence_yields_nothing() -> None:
    text = "Here is the answer you asked for:\n```json\n[1]\n```"
    values = stream_text(JsonFenceOutputParser(), text)
    assert values == [[], [1]]


@pytest.mark.parametrize("size", [1, 3, 7])
def test_numbers_are_never_yielded_while_they_may_grow(size: int) -> None:
    values = stream_text(JsonFenceOutputParser(), '{"age": 42, "n": [1234, 5]}', size)
    for value in values[:-1]:
        assert value.get("age") in {None, 42}
        assert all(n in {1234, 5} for n in value.get("n", []))
    assert values[-1] == {"age": 42, "n": [1234, 5]}


def test_strings_may_grow() -> None:
    values = stream_text(JsonFenceOutputParser(), '{"text": "Hello world"}', 2)
    texts = [v["text"] for v in values if "text" in v]
    assert texts[0] != texts[-1] == "Hello world"
    assert all("Hello world".startswith(t) for t in texts)


def test_final_number_kept_per_truncation_rules() -> None:
    values = stream_text(TruncationRecoveringOutputParser(), '{"a": [1, 2 ', 1)
    assert values[-1] == {"a": [1, 2]}
    assert [1, 2] not in [v.get("a") for v in values[:-1]]


def test_schema_partials_are_typed_final_is_the_model() -> None:
    values: list[Any] = list(
        (
            model('{"name": "Ada", "age": 36}')
            | JsonFenceOutputParser(pydantic_object=Person)
        ).stream("hi")
    )
    assert all(type(v) is partial_model(Person) for v in values[:-1])
    assert type(values[-1]) is Person
    assert values[-1] == Person(name="Ada", age=36)


async def test_schema_async() -> None:
    chain = model('{"name": "Ada", "age": 36}') | JsonFenceOutputParser(
        pydantic_object=Person
    )
    values = [v async for v in chain.astream("hi")]
    assert values[-1] == Person(name="Ada", age=36)


def test_invalid_reply_raises_the_invoke_error_when_the_stream_ends() -> None:
    chain = model('Sure: {"name": "Ada" "age": 36}') | JsonFenceOutputParser(
        repair=False
    )
    with pytest.raises(InvalidJsonError) as caught:
        list(chain.stream("hi"))
    assert caught.value.llm_output == 'Sure: {"name": "Ada" "age": 36}'


def test_schema_failure_raises_when_the_stream_ends() -> None:
    chain = model('{"name": "Ada"}') | JsonFenceOutputParser(pydantic_object=Person)
    with pytest.raises(SchemaValidationError):
        list(chain.stream("hi"))


async def test_no_json_raises_async() -> None:
    chain = model("No JSON here.") | JsonFenceOutputParser()
    with pytest.raises(NoJsonFoundError):
        _ = [v async for v in chain.astream("hi")]


def test_stop_reason_reaches_the_final_parse() -> None:
    chunks = [
        AIMessageChunk(content='{"name": "Ada", '),
        AIMessageChunk(
            content='"bio": "Born in', response_metadata={"finish_reason": "length"}
        ),
    ]
    with pytest.raises(InvalidJsonError, match="cut off at the token limit"):
        list(JsonFenceOutputParser().transform(iter(chunks)))


def test_refusal_in_a_stream_raises() -> None:
    from langchain_core.exceptions import ModelRefusalError  # noqa: PLC0415

    chunks = [AIMessageChunk(content=[{"type": "refusal", "refusal": "No."}])]
    with pytest.raises(ModelRefusalError):
        list(JsonFenceOutputParser().transform(iter(chunks)))


def test_regex_parser_streams_once_the_pattern_matches() -> None:
    values = stream_text(
        RegexJsonOutputParser(r"<json>(.*?)</json>"), 'ok <json>{"a": [1, 2]}</json>', 3
    )
    assert values == [{"a": [1, 2]}]


def test_diff_yields_json_patch() -> None:
    values = stream_text(JsonFenceOutputParser(diff=True), '{"a": 1, "b": [true]}', 4)
    doc: Any = None
    for patch in values:
        doc = jsonpatch.apply_patch(doc, patch)
    assert doc == {"a": 1, "b": [True]}
    assert values[0] == [{"op": "replace", "path": "", "value": {}}]


def test_diff_with_schema_patches_the_models_json() -> None:
    chain = model('{"name": "Ada", "age": 36}') | JsonFenceOutputParser(
        pydantic_object=Person, diff=True
    )
    doc: Any = None
    patches: list[Any] = list(chain.stream("hi"))
    for patch in patches:
        doc = jsonpatch.apply_patch(doc, patch)
    assert doc == {"name": "Ada", "age": 36}


def test_invoke_equals_last_streamed_value() -> None:
    for text in [REPLY, '{"a": [1, {"b": "c"}]}', "[1, 2, 3]"]:
        assert stream_text(JsonFenceOutputParser(), text, 2)[
            -1
        ] == JsonFenceOutputParser().parse(text)


def test_partial_parse_result() -> None:
    parser = JsonFenceOutputParser()
    assert parser.parse_result(
        [Generation(text='{"a": "x", "b": 12')], partial=True
    ) == {"a": "x"}
    assert parser.parse_result([Generation(text="Hmm, let me")], partial=True) is None


# The cost: re-parses grow with the log of the reply, their total work linearly.


def _count_partial_work(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    seen: list[int] = []
    real = extract_module.extract_partial

    def counting(text: str, **kwargs: Any) -> Any:
        seen.append(len(text))
        return real(text, **kwargs)

    monkeypatch.setattr("langchain_jsonrecover.parsers.base.extract_partial", counting)
    stream_text(JsonFenceOutputParser(), text, 4)
    return sum(seen)


def _document(items: int) -> str:
    return json.dumps(
        {
            "items": [
                {"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(items)
            ]
        }
    )


def test_streaming_work_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    small = _count_partial_work(monkeypatch, _document(200))
    large = _count_partial_work(monkeypatch, _document(400))
    assert large <= 2.5 * small
    assert small <= 40 * len(_document(200))


# Recovery events.


async def test_recovery_event_in_astream_events() -> None:
    chain = model('{"items": [1, 2, ') | TruncationRecoveringOutputParser()
    events = [
        e
        async for e in chain.astream_events("hi", version="v2")
        if e["event"] == "on_custom_event"
    ]
    assert [e["name"] for e in events] == [RECOVERY_EVENT]
    assert events[0]["data"] == {
        "repairs": ["truncation_closed"],
        "bytes_before": len('{"items": [1, 2, '),
        "bytes_after": len('{"items":[1,2]}'),
        "cut_off": False,
    }


def test_recovery_event_sync_callbacks() -> None:
    from langchain_core.callbacks import BaseCallbackHandler  # noqa: PLC0415

    seen: list[tuple[str, Any]] = []

    class Listener(BaseCallbackHandler):
        def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
            seen.append((name, data))

    parser = JsonFenceOutputParser(pydantic_object=Person)
    parser.invoke(
        '{"arguments": {"name": "Ada", "age": 36}}', config={"callbacks": [Listener()]}
    )
    assert seen == [
        (
            RECOVERY_EVENT,
            {
                "repairs": ["unwrapped_arguments"],
                "bytes_before": 41,
                "bytes_after": len('{"name":"Ada","age":36}'),
                "cut_off": False,
            },
        )
    ]


async def test_partial_parses_emit_nothing_and_clean_replies_emit_nothing() -> None:
    chain = model('Sure: ```json\n{"a": 1}\n```') | JsonFenceOutputParser()
    events = [
        e
        async for e in chain.astream_events("hi", version="v2")
        if e["event"] == "on_custom_event"
    ]
    assert events == []


def test_outside_a_run_no_event_and_no_error() -> None:
    assert TruncationRecoveringOutputParser().parse('{"a": [1, ') == {"a": [1]}


def test_recovery_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="langchain_jsonrecover"):
        TruncationRecoveringOutputParser().parse('{"a": [1, ')
    assert [r.getMessage() for r in caplog.records] == [
        "jsonrecover.recovery {'repairs': ['truncation_closed'], 'bytes_before': 10, 'bytes_after': 9, 'cut_off': False}"
    ]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_in_a_graph_the_event_reaches_callbacks_and_stream_once(
    mode: str,
) -> None:
    graph = pytest.importorskip("langgraph.graph")
    from langchain_core.callbacks import BaseCallbackHandler  # noqa: PLC0415

    seen: list[str] = []

    class Listener(BaseCallbackHandler):
        def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
            seen.append(name)

    parser = TruncationRecoveringOutputParser()

    class State(TypedDict, total=False):
        reply: str
        value: Any

    def parse(state: State) -> State:
        return {"value": parser.invoke(state["reply"])}

    async def aparse(state: State) -> State:
        return {"value": await parser.ainvoke(state["reply"])}

    builder = graph.StateGraph(State)
    builder.add_node("parse", parse if mode == "sync" else aparse)
    builder.add_edge(graph.START, "parse")
    builder.add_edge("parse", graph.END)
    app = builder.compile()
    config: Any = {"callbacks": [Listener()]}
    state: Any = {"reply": '{"a": [1 '}
    if mode == "sync":
        chunks = list(app.stream(state, config, stream_mode="custom"))
    else:
        chunks = [c async for c in app.astream(state, config, stream_mode="custom")]
    assert chunks == [
        {
            "event": RECOVERY_EVENT,
            "data": {
                "repairs": ["truncation_closed"],
                "bytes_before": 9,
                "bytes_after": 9,
                "cut_off": False,
            },
        }
    ]
    assert seen == [RECOVERY_EVENT]


def test_payload_not_built_when_nobody_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> None:
        raise AssertionError

    monkeypatch.setattr("langchain_jsonrecover.parsers.events.recovery_payload", fail)
    assert TruncationRecoveringOutputParser().parse('{"a": [1, ') == {"a": [1]}
    assert RunnableLambda(lambda x: x).invoke(1) == 1


# langchain-core's streaming cases (the shared corpus): our partial values.

CORPORA = Path(
    os.environ.get(
        "JSONRECOVER_CORPORA",
        Path(__file__).resolve().parents[2] / "shared" / "corpora",
    )
)
STREAMING_NOTES = (
    "test_partial_text_json_output_parser",
    "test_partial_json_output_key_parser_first_only",
    "test_parse_partial_json",
)
# A number at the cut may still grow: we leave it out where langchain-core shows it.
GROWING_NUMBER = {
    "langchain-105",
    "langchain-106",
    "langchain-107",
    "langchain-108",
    "langchain-126",
}
# pydantic-core's rule: an unfinished "1." is dropped; langchain-core keeps 1.
UNFINISHED_DECIMAL = {"langchain-32"}
# A bare word where a value is due is a syntax error, not a cut: no partial
# value (langchain-core drops the word and streams what came before).
NOT_A_PREFIX = {"langchain-31", "langchain-34"}


def _streaming_cases() -> list[Any]:
    path = CORPORA / "langchain.jsonl"
    if not path.exists():
        return []
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        pytest.param(c, id=c["id"])
        for c in cases
        if c["kind"] == "truncated" and c["note"].startswith(STREAMING_NOTES)
    ]


STREAMING_CASES = _streaming_cases()


@pytest.mark.skipif(
    not STREAMING_CASES and os.environ.get("JSONRECOVER_REQUIRE_CORPORA") != "1",
    reason=f"conformance corpora not found at {CORPORA}",
)
def test_streaming_corpus_present() -> None:
    assert len(STREAMING_CASES) >= 90


@pytest.mark.parametrize("case", STREAMING_CASES)
def test_streaming_corpus_case(case: dict[str, Any]) -> None:
    got = JsonFenceOutputParser().parse_result(
        [Generation(text=case["input"])], partial=True
    )
    expected: Any = case["expected"] if case["expect"] == "value" else None
    if case["id"] in GROWING_NUMBER:
        assert got != expected
        assert got is not None
        assert all(
            got.get(k) == v
            for k, v in expected.items()
            if not isinstance(v, int | dict)
        )
    elif case["id"] in UNFINISHED_DECIMAL:
        assert (got, expected) == ({}, {"foo": 1})
    elif case["id"] in NOT_A_PREFIX:
        assert (got, expected) == (None, {"foo": [1, 2]})
    else:
        assert got == expected


def test_prefer_last_streams_the_last_candidate() -> None:
    text = 'Example: {"name": "Bob", "age": 1}. Answer: {"name": "Ada", "age": 36}'
    values = stream_text(JsonFenceOutputParser(prefer="last"), text, 4)
    assert values[-1] == {"name": "Ada", "age": 36}
    assert {"name": "Bob", "age": 1} not in values[len(values) // 2 :]


async def test_recovery_event_with_big_integers() -> None:
    chain = (
        model('{"id": 123456789012345678901, "tags": ["a"')
        | TruncationRecoveringOutputParser()
    )
    events = [
        e
        async for e in chain.astream_events("hi", version="v2")
        if e["event"] == "on_custom_event"
    ]
    data: Any = events[0]["data"]
    assert data["bytes_after"] == len('{"id":123456789012345678901,"tags":["a"]}')


def test_regex_parser_streams_the_last_match_with_prefer_last() -> None:
    values = stream_text(
        RegexJsonOutputParser(r"<j>(.*?)</j>", prefer="last"),
        "<j>[1]</j> <j>[2]</j>",
        4,
    )
    assert values[-1] == [2]
    assert all(v == [2] for v in values[values.index([2]) :])


def test_dict_schema_final_value_not_yielded_twice() -> None:
    parser = JsonFenceOutputParser(pydantic_object={"type": "object"})
    values = stream_text(parser, '{"a": 1}', 2)
    assert values.count({"a": 1}) == 1


# The last item is what invoke returns, types included (issue 15, items 1 and 5).


class Flags(TypedDict):
    flag: bool
    score: float


class Aliased(BaseModel):
    full_name: str = Field(alias="fullName")
    age: int


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel)
    home_town: str
    zip_codes: list[int]


CONVERTING = [
    pytest.param(Flags, '{"flag": 1, "score": 2}', id="typeddict-bool-float"),
    pytest.param(list[bool], "[1, 0, 1]", id="list-of-bool"),
    pytest.param(list[float], "[1, 2]", id="list-of-float"),
    pytest.param(dict[str, bool], '{"a": 0}', id="dict-of-bool"),
    pytest.param(Person, '{"name": "Ada", "age": 36}', id="model"),
    pytest.param(Aliased, '{"fullName": "Ada Lovelace", "age": 36}', id="alias"),
]


async def streamed(parser: Any, reply: str, how: str) -> list[Any]:
    chain = model(reply) | parser
    if how == "sync":
        return list(chain.stream("hi"))
    return [v async for v in chain.astream("hi")]


def typed(value: Any) -> str:
    """The value's JSON with its Python types: 1, 1.0 and True all differ."""
    return repr(value) + json.dumps(plain(value), sort_keys=True)


@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize(("schema", "reply"), CONVERTING)
async def test_last_streamed_item_is_the_validated_value_types_included(
    schema: Any, reply: str, how: str
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=schema)
    values = await streamed(parser, reply, how)
    assert typed(values[-1]) == typed(parser.invoke(reply))


@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize(("schema", "reply"), CONVERTING)
async def test_diff_patches_end_at_the_validated_json_types_included(
    schema: Any, reply: str, how: str
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=schema, diff=True)
    doc: Any = None
    for patch in await streamed(parser, reply, how):
        doc = jsonpatch.apply_patch(doc, patch)
    validated = JsonFenceOutputParser(pydantic_object=schema).invoke(reply)
    assert pydantic_core.to_json(doc) == pydantic_core.to_json(validated, by_alias=True)


@pytest.mark.parametrize(
    ("schema", "reply", "keys"),
    [
        (Aliased, '{"fullName": "Ada Lovelace", "age": 36}', {"fullName", "age"}),
        (Camel, '{"homeTown": "London", "zipCodes": [1, 2]}', {"homeTown", "zipCodes"}),
    ],
    ids=["field-alias", "alias-generator"],
)
def test_diff_patches_of_aliased_models_use_the_aliases_throughout(
    schema: type[BaseModel], reply: str, keys: set[str]
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=schema, diff=True)
    patches: list[Any] = list((model(reply) | parser).stream("hi"))
    doc: Any = None
    for patch in patches:
        doc = jsonpatch.apply_patch(doc, patch)
    assert set(doc) == keys
    assert schema.model_validate(doc) == parser.invoke(reply)
    paths = {op["path"] for patch in patches for op in patch}
    assert {path.split("/")[1] for path in paths - {""}} <= keys


@pytest.mark.parametrize(
    "reply",
    ['{"a": 1, "b": [true, 2.5]}', "[1, 2, 3]", 'Sure: ```json\n{"a": "x"}\n```'],
)
def test_without_schema_the_final_value_is_not_repeated(reply: str) -> None:
    values = stream_text(JsonFenceOutputParser(), reply, 1)
    assert len(values) == len({json.dumps(v) for v in values})
    assert values[-1] == JsonFenceOutputParser().parse(reply)


@pytest.mark.parametrize("how", ["sync", "async"])
async def test_json_in_prose_streams_then_is_withdrawn_when_the_fence_arrives(
    how: str,
) -> None:
    reply = 'Not like {"name": "Bob"} but:\n```json\n{"name": "Ada"}\n```'
    values = await streamed(JsonFenceOutputParser(), reply, how)
    assert values == [{}, {"name": "Bob"}, {}, {"name": "Ada"}]
    assert values[-1] == JsonFenceOutputParser().invoke(reply)
