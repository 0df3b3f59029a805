"""``structured_output`` over tool calls, ``parser=``, pickling, constructor checks.

Also the retry chain's continuation rule and its events in LangGraph's custom
stream. Every test that calls a model runs through ``invoke`` and ``ainvoke``.
"""

from __future__ import annotations

import pickle
from typing import Any, TypedDict

import pytest
from _models import ScriptedChatModel, ToolCallingChatModel
from _modes import run
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRetryChain,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    structured_output,
)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


ADA = Person(name="Ada", age=36)
GOOD = '{"name": "Ada", "age": 36}'


def bad_call(args: str, name: str = "Person", call_id: str = "c1") -> AIMessage:
    return AIMessage(
        "",
        invalid_tool_calls=[{"name": name, "args": args, "id": call_id, "error": "x"}],
    )


BROKEN_ARGUMENTS = [
    '{"name": "Ada", "age": 36,}',
    '{"name": "Ada", "age": 36, "retired": True}',
    "{'name': 'Ada', 'age': 36}",
]


@pytest.mark.parametrize("repair", [None, True], ids=["default", "repair"])
@pytest.mark.parametrize(
    "args", BROKEN_ARGUMENTS, ids=["trailing_comma", "python_true", "single_quotes"]
)
async def test_invalid_call_arguments_are_repaired_by_the_parser(
    args: str, repair: bool | None, mode: str
) -> None:
    # By default as with repair=True: a repair with one reading, no re-ask.
    model = ToolCallingChatModel(script=[bad_call(args)])
    parser = None if repair is None else JsonFenceOutputParser(repair=repair)
    runnable = structured_output(model, Person, parser=parser)
    assert await run(runnable, "Who?", mode) == ADA
    assert len(model.calls) == 1


@pytest.mark.parametrize(
    "args",
    [*BROKEN_ARGUMENTS, '{"name": "Ada", "ag'],
    ids=["trailing_comma", "python_true", "single_quotes", "cut_off"],
)
async def test_without_repair_the_reask_shows_the_arguments_sent(
    args: str, mode: str
) -> None:
    model = ToolCallingChatModel(script=[bad_call(args), GOOD])
    strict = JsonFenceOutputParser(repair=False)
    runnable = structured_output(model, Person, parser=strict)
    assert await run(runnable, "Who?", mode) == ADA
    turn, feedback = model.calls[1][-2], model.calls[1][-1]
    assert isinstance(turn, AIMessage)
    assert turn.content == args  # never an empty turn
    assert isinstance(feedback, HumanMessage)
    assert "contains no JSON" not in str(feedback.content)


async def test_text_plus_a_failing_call_keeps_the_arguments(mode: str) -> None:
    reply = AIMessage(
        "Here is the person.",
        tool_calls=[{"name": "Person", "args": {"name": "Ada"}, "id": "c1"}],
    )
    model = ToolCallingChatModel(script=[reply, GOOD])
    assert await run(structured_output(model, Person), "Who?", mode) == ADA
    turn, feedback = model.calls[1][-2], model.calls[1][-1]
    assert turn.content == 'Here is the person.\n\n{"name": "Ada"}'
    assert "age" in str(feedback.content)
    assert "no JSON" not in str(feedback.content)


async def test_the_call_named_after_the_schema_is_read(mode: str) -> None:
    reply = AIMessage(
        "",
        tool_calls=[
            {"name": "search", "args": {"query": "Ada"}, "id": "c1"},
            {"name": "Person", "args": {"name": "Ada", "age": 36}, "id": "c2"},
        ],
    )
    model = ToolCallingChatModel(script=[reply])
    assert await run(structured_output(model, Person), "Who?", mode) == ADA
    assert len(model.calls) == 1


async def test_truncation_parser_options_are_kept(mode: str) -> None:
    model = ScriptedChatModel(script=['{"name": "Ada", "age": 36, "note": "lo'])
    runnable = structured_output(
        model, Person, strategy="json", parser=TruncationRecoveringOutputParser()
    )
    assert await run(runnable, "Who?", mode) == ADA


def test_parser_options_reach_the_chain() -> None:
    runnable: Any = structured_output(
        ScriptedChatModel(script=["{}"]),
        Person,
        parser=JsonFenceOutputParser(repair=True, prefer="last"),
    )
    parser = runnable.chain.parser
    assert (parser.repair, parser.prefer, parser.pydantic_object) == (
        True,
        "last",
        Person,
    )


async def test_a_regex_parser_keeps_its_pattern(mode: str) -> None:
    model = ScriptedChatModel(script=[f"Answer: <json>{GOOD}</json>"])
    runnable = structured_output(
        model,
        Person,
        strategy="json",
        parser=RegexJsonOutputParser(r"<json>(.*?)</json>"),
    )
    assert await run(runnable, "Who?", mode) == ADA


@pytest.mark.parametrize("strategy", ["auto", "json"])
def test_structured_output_pickles(strategy: Any) -> None:
    runnable = structured_output(
        ToolCallingChatModel(script=[GOOD]), Person, strategy=strategy
    )
    again = pickle.loads(pickle.dumps(runnable))  # noqa: S301 - our own bytes
    assert again.invoke("Who?") == ADA


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"model": None}, TypeError, "model must be a chat model"),
        ({"model": "openai:gpt-4o-mini"}, TypeError, "init_chat_model"),
        (
            {"parser": JsonFenceOutputParser},
            TypeError,
            "parser must be a parser instance",
        ),
        ({"parser": "json"}, TypeError, "parser must be an output parser"),
    ],
    ids=["model_none", "model_string", "parser_class", "parser_string"],
)
def test_retry_chain_checks_its_arguments(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    fields: dict[str, Any] = {
        "model": ScriptedChatModel(script=["{}"]),
        "parser": JsonFenceOutputParser(),
        **kwargs,
    }
    with pytest.raises(error, match=match):
        JsonRetryChain(**fields)


@pytest.mark.parametrize(
    ("model", "parser", "error", "match"),
    [
        (None, None, TypeError, "model must be"),
        ("openai:gpt-4o-mini", None, TypeError, "model must be"),
        (
            ScriptedChatModel(script=["{}"]),
            JsonFenceOutputParser,
            TypeError,
            "parser instance",
        ),
        (
            ScriptedChatModel(script=["{}"]),
            JsonFenceOutputParser(pydantic_object=dict),
            ValueError,
            "already has a schema",
        ),
    ],
    ids=["model_none", "model_string", "parser_class", "parser_with_other_schema"],
)
def test_structured_output_checks_its_arguments(
    model: Any, parser: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        structured_output(model, Person, parser=parser)


CUT = AIMessage('{"name": "Ada", "ag', response_metadata={"finish_reason": "length"})


@pytest.mark.parametrize(
    "continuation",
    ['e": 36}', GOOD, f"Sorry, here it is again: {GOOD}"],
    ids=["joined", "starts_over", "starts_over_after_prose"],
)
async def test_a_continuation_joined_or_on_its_own(
    continuation: str, mode: str
) -> None:
    model = ScriptedChatModel(script=[CUT, continuation])
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(pydantic_object=Person),
        on_truncation="continue",
    )
    assert await run(chain, "Who?", mode) == ADA
    assert len(model.calls) == 2


async def test_a_continuation_that_fails_either_way_is_a_failure(mode: str) -> None:
    model = ScriptedChatModel(script=[CUT, "zzz", GOOD])
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(pydantic_object=Person),
        on_truncation="continue",
    )
    assert await run(chain, "Who?", mode) == ADA
    assert len(model.calls) == 3


class _State(TypedDict, total=False):
    question: str
    answer: Any


async def test_retry_events_reach_langgraphs_custom_stream(mode: str) -> None:
    chain = JsonRetryChain(
        model=ScriptedChatModel(script=["No JSON here.", GOOD]),
        parser=JsonFenceOutputParser(pydantic_object=Person),
    )

    def node(state: _State) -> _State:
        return {"answer": chain.invoke(state["question"])}

    async def anode(state: _State) -> _State:
        return {"answer": await chain.ainvoke(state["question"])}

    graph: Any = StateGraph(_State)
    graph.add_node("ask", node if mode == "sync" else anode)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    app = graph.compile()
    payload = {"question": "Who?"}
    if mode == "sync":
        chunks = list(app.stream(payload, stream_mode="custom"))
    else:
        chunks = [c async for c in app.astream(payload, stream_mode="custom")]
    assert [c["event"] for c in chunks] == ["jsonrecover.retry"]
    assert chunks[0]["data"]["error"] == "no_json"


def test_outside_a_graph_the_stream_write_is_skipped() -> None:
    chain = JsonRetryChain(
        model=ScriptedChatModel(script=["No JSON here.", GOOD]),
        parser=JsonFenceOutputParser(pydantic_object=Person),
    )
    assert chain.invoke("Who?") == ADA


async def test_a_chain_over_a_tool_bound_model_answers_every_call_id(
    mode: str,
) -> None:
    reply = AIMessage(
        "",
        tool_calls=[{"name": "search", "args": {"query": "Ada"}, "id": "s1"}],
        invalid_tool_calls=[
            {"name": "Person", "args": '{"name": "Ada", "age": "old"}', "id": "p1"}
        ],
    )
    model = ToolCallingChatModel(script=[reply, GOOD])
    chain = JsonRetryChain(
        model=model.bind_tools([Person]),
        parser=JsonFenceOutputParser(pydantic_object=Person),
    )
    assert await run(chain, "Who?", mode) == ADA
    sent = model.calls[1]
    assert [m.type for m in sent] == ["human", "ai", "tool", "tool"]
    results = {m.tool_call_id: m for m in sent if isinstance(m, ToolMessage)}
    assert results["p1"].status == "error"
    assert "age" in str(results["p1"].content)
    assert '{"name": "Ada", "age": "old"}' in str(results["p1"].content)
    assert "Not executed" in str(results["s1"].content)
