"""Issue 21, family 23: a refusal raises ``ModelRefusalError`` on every path.

A refusal comes as a ``refusal`` content block, or as the text
langchain-openai puts in ``additional_kwargs["refusal"]`` (with or without
``model_provider`` in the metadata: older versions and logs have none). Each
shape goes through every entry point: the three parsers, ``JsonRetryChain``
(ours and a foreign parser), ``structured_output`` (JSON, auto and native:
never re-asked), the agent middleware, ``recover_tool_calls`` (nothing in a
refusal becomes a call), and records, frames and batch lines (an error row).
``None`` or an empty text in ``additional_kwargs["refusal"]`` is no refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from _models import ScriptedChatModel, ToolCallingChatModel
from _modes import run
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import PydanticOutputParser
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRetryChain,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    recover_record,
    recover_tool_calls,
    structured_output,
)
from langchain_jsonrecover.records import recover_line

if TYPE_CHECKING:
    from langchain_jsonrecover.retry.steps import OnTruncation


class Person(BaseModel):
    """A person."""

    name: str
    age: int


GOOD = '{"name": "Ada", "age": 36}'
NO = "I can't help with that."
OPENAI = {"model_provider": "openai"}

REFUSALS: dict[str, AIMessage] = {
    "block": AIMessage(content=[{"type": "refusal", "refusal": NO}]),
    "openai": AIMessage(
        "", additional_kwargs={"refusal": NO}, response_metadata=OPENAI
    ),
    "openai_no_provider": AIMessage("", additional_kwargs={"refusal": NO}),
    "refusal_beside_json": AIMessage(GOOD, additional_kwargs={"refusal": NO}),
    "refusal_beside_a_call": AIMessage(
        '{"name": "search", "arguments": {"query": "x"}}',
        additional_kwargs={"refusal": NO},
    ),
}
ANSWERS: dict[str, AIMessage] = {
    "refusal_none": AIMessage(GOOD, additional_kwargs={"refusal": None}),
    "refusal_empty": AIMessage(GOOD, additional_kwargs={"refusal": ""}),
    "plain": AIMessage(GOOD),
}


def _parsers() -> dict[str, Any]:
    return {
        "fence": JsonFenceOutputParser(pydantic_object=Person),
        "fence_repair": JsonFenceOutputParser(pydantic_object=Person, repair=True),
        "truncation": TruncationRecoveringOutputParser(pydantic_object=Person),
        "regex": RegexJsonOutputParser(r"(\{.*\})", pydantic_object=Person),
    }


@pytest.mark.parametrize("parser", list(_parsers()))
@pytest.mark.parametrize("shape", list(REFUSALS))
async def test_every_parser_raises_on_a_refusal(
    mode: str, parser: str, shape: str
) -> None:
    with pytest.raises(ModelRefusalError, match="can't help"):
        await run(_parsers()[parser], REFUSALS[shape], mode)


@pytest.mark.parametrize("parser", list(_parsers()))
@pytest.mark.parametrize("shape", list(ANSWERS))
async def test_no_refusal_text_is_an_answer(mode: str, parser: str, shape: str) -> None:
    assert await run(_parsers()[parser], ANSWERS[shape], mode) == Person(
        name="Ada", age=36
    )


@pytest.mark.parametrize("shape", list(REFUSALS))
@pytest.mark.parametrize("foreign", [False, True])
@pytest.mark.parametrize("on_truncation", ["reask", "continue"])
async def test_the_retry_chain_raises_unretried(
    mode: str, shape: str, *, foreign: bool, on_truncation: OnTruncation
) -> None:
    model = ScriptedChatModel(script=[REFUSALS[shape], GOOD])
    parser: Any = (
        PydanticOutputParser(pydantic_object=Person)
        if foreign
        else JsonFenceOutputParser(pydantic_object=Person)
    )
    chain = JsonRetryChain(model=model, parser=parser, on_truncation=on_truncation)
    with pytest.raises(ModelRefusalError):
        await run(chain, "Who?", mode)
    assert len(model.calls) == 1


async def test_a_refused_continuation_raises(mode: str) -> None:
    cut = AIMessage('{"name": "Ada", ', response_metadata={"finish_reason": "length"})
    model = ScriptedChatModel(script=[cut, REFUSALS["openai_no_provider"], GOOD])
    chain = JsonRetryChain(
        model=model, parser=JsonFenceOutputParser(), on_truncation="continue"
    )
    with pytest.raises(ModelRefusalError):
        await run(chain, "Who?", mode)
    assert len(model.calls) == 2


@pytest.mark.parametrize("shape", list(REFUSALS))
@pytest.mark.parametrize("strategy", ["json", "auto", "native"])
@pytest.mark.parametrize("include_raw", [False, True])
async def test_structured_output_never_re_asks_a_refusing_model(
    mode: str, shape: str, strategy: str, *, include_raw: bool
) -> None:
    model = ToolCallingChatModel(script=[REFUSALS[shape], GOOD])
    chain = structured_output(  # type: ignore[call-overload]
        model, Person, strategy=strategy, include_raw=include_raw
    )
    with pytest.raises(ModelRefusalError):
        await run(chain, "Who?", mode)
    assert len(model.calls) == 1


@pytest.mark.parametrize("shape", list(REFUSALS))
async def test_the_middleware_raises_with_a_response_format(
    mode: str, shape: str
) -> None:
    from langchain.agents import create_agent  # noqa: PLC0415 - the agents extra

    from langchain_jsonrecover.agents import JsonRecoveryMiddleware  # noqa: PLC0415

    model = ScriptedChatModel(script=[REFUSALS[shape], GOOD])
    agent = create_agent(
        model, middleware=[JsonRecoveryMiddleware(response_format=Person)]
    )
    payload = {"messages": [("user", "Who?")]}
    with pytest.raises(ModelRefusalError):
        await run(agent, payload, mode)
    assert len(model.calls) == 1


@pytest.mark.parametrize("shape", list(REFUSALS))
def test_recover_tool_calls_makes_no_call_from_a_refusal(shape: str) -> None:
    from langchain_core.tools import tool  # noqa: PLC0415

    @tool
    def search(query: str) -> str:
        """Search."""
        return query

    message = REFUSALS[shape]
    recovered = recover_tool_calls(message, [search])
    assert recovered.tool_calls == []
    assert recovered.content == message.content
    assert recovered == message


@pytest.mark.parametrize(
    "record",
    [
        {"content": "", "additional_kwargs": {"refusal": NO}},
        {"role": "assistant", "content": None, "refusal": NO},
        {"role": "assistant", "content": "", "refusal": NO},
        {"content": [{"type": "refusal", "refusal": NO}]},
        REFUSALS["openai_no_provider"],
        str(REFUSALS["openai_no_provider"]),
        str({"role": "assistant", "content": None, "refusal": NO}),
        REFUSALS["openai_no_provider"].model_dump_json(),
    ],
)
def test_records_give_a_refusal_row(record: Any) -> None:
    for parser in [None, JsonFenceOutputParser(repair=True)]:
        row = recover_record(record, parser)
        assert row["ok"] is False
        assert row["error"]["kind"] == "ModelRefusalError", row


def test_a_batch_line_gives_a_refusal_row() -> None:
    line = orjson.dumps(
        {"id": 1, "reply": {"role": "assistant", "content": None, "refusal": NO}}
    )
    row = recover_line(line, field="reply", line=1)
    assert row["error"]["kind"] == "ModelRefusalError"


def test_a_frame_gives_a_refusal_row() -> None:
    pd = pytest.importorskip("pandas")
    from langchain_jsonrecover import recover_frame  # noqa: PLC0415

    frame = pd.DataFrame(
        {"content": [{"role": "assistant", "content": None, "refusal": NO}, GOOD]}
    )
    out = recover_frame(frame)
    assert out["error_kind"].tolist() == ["ModelRefusalError", None]
