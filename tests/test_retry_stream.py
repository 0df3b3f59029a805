"""Streaming through the retry chains: each attempt's partials as the model streams.

A model streaming seeded chunks of 1 to 7 characters (``_chunked_models``)
goes through ``JsonRetryChain`` and ``structured_output`` (JSON and tools),
sync and async: the items' types, the last item against ``invoke``'s value on
the same script, the attempt numbers, the ``jsonrecover.retry`` event between
attempts in ``astream_events``, and one item per attempt from a model that
cannot stream.
"""

from __future__ import annotations

import copy
import itertools
from typing import TYPE_CHECKING, Any

import pytest
from _chunked_chat import split
from _chunked_models import ChunkedChatModel, ChunkedToolModel
from _models import ScriptedChatModel, TagRecorder
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate
from pydantic import BaseModel

from langchain_jsonrecover.errors import RetryExhaustedError
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.partial_models import partial_model
from langchain_jsonrecover.retry import RETRY_EVENT, JsonRetryChain
from langchain_jsonrecover.retry.stream import AttemptStream, split_native
from langchain_jsonrecover.structured import structured_output

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable, RunnableConfig

SEEDS = range(6)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


ADA = Person(name="Ada", age=36)
BAD_TEXT = 'Here: {"name": "Ada", "age": "old", "city": "London"}'
GOOD_TEXT = 'Sure:\n```json\n{"name": "Ada", "age": 36}\n```'


def call(args: dict[str, Any]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "Person", "args": args, "id": "c1"}])


BAD_CALL = call({"name": "Ada", "age": "old"})
GOOD_CALL = call({"name": "Ada", "age": 36})


def retry_text(seed: int, *, include_raw: bool) -> Runnable[Any, Any]:
    model = ChunkedChatModel(script=[BAD_TEXT, GOOD_TEXT], seed=seed)
    parser = JsonFenceOutputParser(pydantic_object=Person)
    return JsonRetryChain(model=model, parser=parser, include_raw=include_raw)


def retry_tools(seed: int, *, include_raw: bool) -> Runnable[Any, Any]:
    model = ChunkedToolModel(script=[BAD_CALL, GOOD_CALL], seed=seed)
    parser = JsonFenceOutputParser(pydantic_object=Person)
    return JsonRetryChain(
        model=model.bind_tools([Person]), parser=parser, include_raw=include_raw
    )


def structured_json(seed: int, *, include_raw: bool) -> Runnable[Any, Any]:
    model = ChunkedChatModel(script=[BAD_TEXT, GOOD_TEXT], seed=seed)
    if include_raw:
        return structured_output(model, Person, strategy="json", include_raw=True)
    return structured_output(model, Person, strategy="json")


def structured_tools(seed: int, *, include_raw: bool) -> Runnable[Any, Any]:
    model = ChunkedToolModel(script=[BAD_CALL, GOOD_CALL], seed=seed)
    if include_raw:
        return structured_output(model, Person, include_raw=True)
    return structured_output(model, Person)


CHAINS = {
    "retry_text": retry_text,
    "retry_tools": retry_tools,
    "structured_json": structured_json,
    "structured_tools": structured_tools,
}


async def collect(
    chain: Runnable[Any, Any],
    value: Any,
    mode: str,
    config: RunnableConfig | None = None,
) -> list[Any]:
    if mode == "sync":
        return list(chain.stream(value, config))
    return [item async for item in chain.astream(value, config)]


async def drain(
    chain: Runnable[Any, Any],
    value: Any,
    mode: str,
    config: RunnableConfig,
    items: list[Any],
) -> None:
    """Stream into ``items``, keeping what came before an error."""
    if mode == "sync":
        for item in chain.stream(value, config):
            items.append(item)  # noqa: PERF402 - kept up to the error
    else:
        async for item in chain.astream(value, config):
            items.append(item)  # noqa: PERF401 - kept up to the error


async def invoked(chain: Runnable[Any, Any], value: Any, mode: str) -> Any:
    if mode == "sync":
        return chain.invoke(value)
    return await chain.ainvoke(value)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(CHAINS))
async def test_partials_then_the_value_invoke_returns(
    name: str, seed: int, mode: str
) -> None:
    build = CHAINS[name]
    items = await collect(build(seed, include_raw=False), "Who?", mode)
    expected = await invoked(build(seed, include_raw=False), "Who?", mode)
    assert expected == ADA
    assert items[-1] == expected
    assert type(items[-1]) is Person
    partials = items[:-1]
    assert len(partials) >= 4
    # A pydantic model's partials are typed, as the parsers stream them.
    assert all(type(item) is partial_model(Person) for item in partials)
    empty = partial_model(Person)()
    assert partials[0] == empty  # the second attempt starts over: empty again
    assert partials.count(empty) == 2


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(CHAINS))
async def test_include_raw_items_are_snapshots_numbered_by_attempt(
    name: str, seed: int, mode: str
) -> None:
    build = CHAINS[name]
    items = await collect(build(seed, include_raw=True), "Who?", mode)
    expected = await invoked(build(seed, include_raw=True), "Who?", mode)
    assert all(type(item) is dict for item in items)
    assert all({"parsed", "raw", "attempt"} <= item.keys() for item in items)
    assert all(isinstance(item["raw"], AIMessage) for item in items)
    attempts = [item["attempt"] for item in items]
    assert attempts == sorted(attempts)
    assert attempts[0] == 1
    assert set(attempts) == {1, 2}
    last = items[-1]
    assert expected["attempt"] == last["attempt"] == 2
    assert last["parsed"] == expected["parsed"] == ADA
    assert last["raw"].content == expected["raw"].content
    assert last["raw"].tool_calls == expected["raw"].tool_calls
    assert [a["reply"].content for a in last["attempts"]] == [
        a["reply"].content for a in expected["attempts"]
    ]
    # raw is the message so far: each snapshot's text or arguments grow.
    for before, after in itertools.pairwise(items[:-1]):
        if before["attempt"] == after["attempt"]:
            assert str(after["raw"].content).startswith(str(before["raw"].content))
            assert len(repr(after["raw"].tool_calls)) >= len(
                repr(before["raw"].tool_calls)
            )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(CHAINS))
async def test_no_partial_of_the_last_attempt_shows_a_value_the_final_changes(
    name: str, seed: int, mode: str
) -> None:
    items = await collect(CHAINS[name](seed, include_raw=True), "Who?", mode)
    final = items[-1]["parsed"].model_dump()
    for item in items[:-1]:
        if item["attempt"] != 2:
            continue
        parsed = item["parsed"]
        for key, value in parsed.model_dump(exclude_none=True).items():
            if isinstance(value, str):
                assert final[key].startswith(value)
            else:
                assert value == final[key]


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name", sorted(CHAINS))
async def test_astream_events_show_the_retry_event_between_attempts(
    name: str, seed: int
) -> None:
    chain = CHAINS[name](seed, include_raw=True)
    marks: list[Any] = []
    async for event in chain.astream_events("Who?", version="v2"):
        data: Any = event["data"]
        if event["event"] == "on_custom_event" and event["name"] == RETRY_EVENT:
            marks.append(("retry", data["attempt"], event["tags"]))
        elif event["event"] == "on_chain_stream" and not event["parent_ids"]:
            marks.append(("item", data["chunk"]["attempt"]))
    retry = next(i for i, mark in enumerate(marks) if mark[0] == "retry")
    assert marks[retry][1] == 1
    assert "jsonrecover:attempt:1" in marks[retry][2]
    assert {m[1] for m in marks[:retry]} == {1}
    assert {m[1] for m in marks[retry + 1 :]} == {2}
    assert len(marks[:retry]) >= 2
    # The chat model's own token events stream too.
    tokens = [
        e
        async for e in CHAINS[name](seed, include_raw=False).astream_events(
            "Who?", version="v2"
        )
        if e["event"] == "on_chat_model_stream"
    ]
    assert len(tokens) > 2


SINGLE = [
    ("retry_text", [BAD_TEXT, GOOD_TEXT]),
    ("retry_tools", [BAD_CALL, GOOD_CALL]),
]


@pytest.mark.parametrize(("name", "script"), SINGLE)
async def test_a_model_that_cannot_stream_gives_one_item_per_attempt(
    name: str, script: list[Any], mode: str
) -> None:
    # ScriptedChatModel has no _stream: LangChain yields the whole reply once.
    model: Any = ScriptedChatModel(script=script)
    if name == "retry_tools":
        model = model.bind(tools=[{"type": "function"}])
    parser = JsonFenceOutputParser(pydantic_object=Person)
    chain = JsonRetryChain(model=model, parser=parser, include_raw=True)
    items = await collect(chain, "Who?", mode)
    assert [item["attempt"] for item in items] == [1, 2, 2]
    # The failed attempt's partial is typed: its invalid age is not shown.
    assert items[0]["parsed"] == partial_model(Person)(name="Ada")
    assert items[-1]["parsed"] == ADA
    plain = JsonRetryChain(model=model, parser=parser)
    assert (await collect(plain, "Who?", mode))[-1] == ADA


CUT = '{"name": "Ada", "city": "Lon'
REST = 'don", "age": 36}'


async def test_a_continuation_extends_the_same_partial(mode: str) -> None:
    cut = AIMessage(CUT, response_metadata={"finish_reason": "length"})
    model = ChunkedChatModel(script=[cut, REST], seed=3)
    parser = JsonFenceOutputParser()
    chain = JsonRetryChain(
        model=model, parser=parser, include_raw=True, on_truncation="continue"
    )
    items = await collect(chain, "Who?", mode)
    expected = await invoked(
        JsonRetryChain(
            model=ChunkedChatModel(script=[cut, REST], seed=3),
            parser=parser,
            include_raw=True,
            on_truncation="continue",
        ),
        "Who?",
        mode,
    )
    assert items[-1]["parsed"] == expected["parsed"]
    assert expected["parsed"] == {"name": "Ada", "city": "London", "age": 36}
    first = [i["parsed"] for i in items if i["attempt"] == 1]
    second = [i["parsed"] for i in items if i["attempt"] == 2]
    assert first[-1] == {"name": "Ada", "city": "Lon"}
    # The continuation's partials extend what the cut reply had: its first
    # already holds the name and a city that starts as the cut one did.
    for partial in second:
        assert partial["name"] == "Ada"
        assert partial["city"].startswith("Lon")
    assert second[-1] == expected["parsed"]


async def test_the_loop_guard_and_the_callers_messages_hold(mode: str) -> None:
    messages = [HumanMessage("Who?")]
    kept = copy.deepcopy(messages)
    model = ChunkedChatModel(script=[BAD_TEXT], seed=1)
    recorder = TagRecorder()
    chain = JsonRetryChain(
        model=model, parser=JsonFenceOutputParser(pydantic_object=Person)
    )
    items: list[Any] = []
    config: RunnableConfig = {"callbacks": [recorder]}
    with pytest.raises(RetryExhaustedError) as caught:
        await drain(chain, messages, mode, config, items)
    assert caught.value.repeats == 1
    assert len(model.calls) == 2
    assert messages == kept
    assert items  # the partials came before the error
    assert [tags for kind, _, tags in recorder.seen if kind == "model"] == [
        ["jsonrecover:attempt:1"],
        ["jsonrecover:attempt:2"],
    ]
    assert [(kind, n) for kind, n, _ in recorder.seen if kind == RETRY_EVENT] == [
        (RETRY_EVENT, 1)
    ]


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        (['{"a": 1', ', "b": 2}'], [{}, {"a": 1, "b": 2}]),
        (["no json ", "yet"], []),
        (["", '{"a": "x'], [{"a": "x"}]),
    ],
)
def test_an_attempt_stream_yields_new_partials_only(
    chunks: list[str], expected: list[Any]
) -> None:
    stream = AttemptStream(JsonFenceOutputParser(), attempt=1)
    assert [item for chunk in chunks for item in stream.feed(chunk)] == expected


def test_split_pieces_are_1_to_7_characters() -> None:
    import random  # noqa: PLC0415

    pieces = split("x" * 500, random.Random(0))  # noqa: S311 - a test
    assert "".join(pieces) == "x" * 500
    assert {len(p) for p in pieces} <= set(range(1, 8))
    assert len({len(p) for p in pieces}) > 3


def test_split_native_reads_langchains_structured_runnable() -> None:
    model = ChunkedToolModel(script=[GOOD_CALL])
    native = model.with_structured_output(Person, include_raw=True)
    parts = split_native(native)
    assert parts is not None
    assert parts[0].invoke("Who?").tool_calls[0]["args"] == {"name": "Ada", "age": 36}


async def test_a_prompt_before_the_chain_streams_through_it(mode: str) -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    chain = prompt | retry_text(1, include_raw=True)
    items = await collect(chain, {"q": "Who?"}, mode)
    attempts = [item["attempt"] for item in items]
    assert attempts == sorted(attempts)
    assert set(attempts) == {1, 2}
    assert items[-1]["parsed"] == ADA


@pytest.mark.parametrize(
    ("reply", "parsed", "failed"),
    [(GOOD_CALL, ADA, False), (BAD_CALL, None, True)],
)
async def test_the_native_strategy_streams_its_one_call(
    reply: AIMessage, parsed: Person | None, *, failed: bool, mode: str
) -> None:
    model = ChunkedToolModel(script=[reply], seed=2)
    chain = structured_output(model, Person, strategy="native", include_raw=True)
    items = await collect(chain, "Who?", mode)
    assert {item["attempt"] for item in items} == {1}
    assert len(items) > 2
    assert items[-1]["parsed"] == parsed
    assert (items[-1]["parsing_error"] is not None) is failed


@pytest.mark.parametrize(
    ("chunks", "merged"),
    [
        (["{}"], AIMessage("{}")),
        ([{"raw": 1}], {"raw": 1}),
    ],
)
def test_an_attempt_stream_merges_its_pieces(chunks: list[Any], merged: Any) -> None:
    stream = AttemptStream(JsonFenceOutputParser(), attempt=1)
    for chunk in chunks:
        stream.feed(chunk)
    result = stream.merge(chunks)
    assert type(result) is type(merged)
    assert result == merged if isinstance(merged, dict) else result.content == "{}"
