"""Issue 21's last wrong values found by review fuzzing, each through its entry points.

(a) A cut or slipped key after a complete root, and a closer of the wrong kind
    before a cut: the root alone would drop members, a guessed bracket fix
    would move them; both raise, in every parser, sync, async and streamed.
(b) A ``<think>`` block ended only by quoted closing tags, two or more: its
    end may sit inside a later call's arguments, so no call after it runs
    (``recover_tool_calls``, ``structured_output`` over tools, the middleware).
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
    extract_json,
    structured_output,
)
from langchain_jsonrecover._core.reply.reasoning import think_bounds
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.retry import RetryExhaustedError
from langchain_jsonrecover.tools import arecover_tool_calls, recover_tool_calls

# --- (a) cuts after a complete root ------------------------------------------------

AFTER_ROOT = [
    pytest.param('{"b": false}, "n', id="cut_key"),
    pytest.param('{"b": false}, "n"', id="cut_key_closed"),
    pytest.param('{"b": false}, n": 5}', id="slipped_key"),
    pytest.param('{"b": false}, n: 5}', id="unquoted_key"),
    pytest.param("{\"b\": false}, 'n': 5}", id="single_quoted_key"),
    # No closing brace: the single-edit search dropped the comma, then read
    # the rest as prose (found while documenting the rule).
    pytest.param("{\"b\": false}, 'n': 5", id="single_quoted_key_unclosed"),
    pytest.param('{"b": false}, n: 5', id="unquoted_key_unclosed"),
    pytest.param('{"a": {"v": [1, 2]], "flag": null', id="wrong_closer_then_cut"),
    pytest.param('[{"a": 1}], "n', id="array_root_cut_key"),
    # A comma and then the end of the reply (a fence never closed too): a
    # trailing comma, or a next value the end kept out.
    pytest.param('{"b": false},', id="comma_then_end"),
    pytest.param('{"b": false} ,\n', id="spaced_comma_then_end"),
    pytest.param('[{"b": false}],', id="array_root_comma_then_end"),
    pytest.param('```json\n{"b": false},', id="comma_in_unclosed_fence"),
    pytest.param('Here:\n```json\n[{"b": false}],\n', id="comma_fence_in_prose"),
    pytest.param('```\n{"b": false},', id="comma_in_unclosed_untagged_fence"),
    pytest.param('Here: {"b": false},', id="comma_in_prose"),
]
PARSERS = [
    pytest.param(JsonFenceOutputParser, id="fence"),
    pytest.param(lambda: JsonFenceOutputParser(repair=True), id="fence_repair"),
    pytest.param(TruncationRecoveringOutputParser, id="truncation"),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(repair=True), id="truncation_repair"
    ),
]


def _streamed(parser: Any, reply: str, reason: str) -> Any:
    chunks = [AIMessageChunk(content=reply[i : i + 4]) for i in range(0, len(reply), 4)]
    chunks.append(
        AIMessageChunk(content="", response_metadata={"finish_reason": reason})
    )
    out = None
    for out in parser.transform(iter(chunks)):  # noqa: B007 - keep the last
        pass
    return out


@pytest.mark.parametrize("reason", ["stop", "length"])
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", AFTER_ROOT)
async def test_a_key_after_a_complete_root_never_drops_or_moves_members(
    reply: str, make: Any, reason: str
) -> None:
    parser = make()
    message = AIMessage(reply, response_metadata={"finish_reason": reason})
    with pytest.raises(JsonRecoveryError):
        parser.parse(reply)
    with pytest.raises(JsonRecoveryError):
        parser.invoke(message)
    with pytest.raises(JsonRecoveryError):
        await parser.ainvoke(message)
    try:
        streamed = _streamed(parser, reply, reason)
    except JsonRecoveryError:
        streamed = None
    # Streaming shows partial values while the reply grows; its last value is
    # the reply's whole reading, or nothing.
    assert streamed is None, streamed


@pytest.mark.parametrize("reply", AFTER_ROOT)
def test_extract_json_refuses_a_key_after_a_complete_root(reply: str) -> None:
    with pytest.raises(JsonRecoveryError):
        extract_json(reply)


class Flags(BaseModel):
    b: bool = True
    n: int = 0


@pytest.mark.parametrize(
    "reply", ['{"b": false}, "n', '{"b": false}, n": 5}'], ids=["cut", "slip"]
)
def test_structured_output_asks_again_instead_of_defaulting(reply: str) -> None:
    model = ToolCallingChatModel(script=[reply, '{"b": false, "n": 5}'])
    chain = structured_output(
        model,
        Flags,
        strategy="json",
        parser=TruncationRecoveringOutputParser(pydantic_object=Flags, repair=True),
    )
    assert chain.invoke("go") == Flags(b=False, n=5)
    assert len(model.calls) == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('{"b": false} and that is all.', {"b": False}, id="prose_after"),
        pytest.param('{"b": false}\n', {"b": False}, id="space_after"),
        pytest.param('{"a": {"v": [1, 2]}, "flag": null}', None, id="well_formed"),
    ],
)
def test_a_root_followed_by_no_key_still_reads(reply: str, expected: Any) -> None:
    want = expected if expected is not None else {"a": {"v": [1, 2]}, "flag": None}
    for repair in (False, True):
        assert JsonFenceOutputParser(repair=repair).parse(reply) == want


# --- (b) reasoning bounds are never taken from inside a call ------------------------

RAN: list[str] = []


@tool
def plan(step: int) -> str:
    """Run one step of a plan."""
    RAN.append(f"plan {step}")
    return "ok"


@tool
def note(text: str) -> str:
    """Write a note."""
    RAN.append(f"note {text}")
    return "ok"


@pytest.fixture(autouse=True)
def _clear_ran() -> None:
    RAN.clear()


PLAN = '{"name": "plan", "arguments": {"step": 1}}'
NOTE = '{"name": "note", "arguments": {"text": "%s"}}'
THINKS = [
    pytest.param('<think>I use "plan" then "note" "</think>\n', id="odd_quotes"),
    pytest.param('<think>the "tag" is "</think>\n', id="quote_before_tag"),
    pytest.param('<think>say "</think>"\n\n', id="quoted_tag"),
    pytest.param("<think>`</think>`\n", id="backticked_tag"),
]
NOTES = [
    pytest.param("</think>", id="tag"),
    pytest.param("a </think> b", id="tag_inside"),
]
HERMES = (
    "<tool_call>{p}</tool_call>\n<tool_call>{n}</tool_call>\n<tool_call>{p}</tool_call>"
)
FORMS = [
    pytest.param(HERMES, id="hermes"),
    pytest.param("[TOOL_CALLS][{p}, {n}]\n[TOOL_CALLS][{p}]", id="mistral"),
]


def _reply(think: str, form: str, text: str) -> str:
    return think + form.format(p=PLAN, n=NOTE % text.replace('"', '\\"'))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("text", NOTES)
@pytest.mark.parametrize("think", THINKS)
async def test_no_call_runs_after_reasoning_with_an_unsettled_end(
    think: str, text: str, form: str, mode: str
) -> None:
    reply = _reply(think, form, text)
    assert think_bounds(reply)[1]
    for tools in ([plan, note], None):
        message = AIMessage(reply)
        fixed = (
            recover_tool_calls(message, tools)
            if mode == "sync"
            else await arecover_tool_calls(message, tools)
        )
        assert fixed.tool_calls == []
        errors = [str(c["error"]) for c in fixed.invalid_tool_calls]
        assert bool(errors) is (tools is not None), fixed
        assert all("end cannot be told" in e for e in errors)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(
            f'<think>say "</think>"\n<tool_call>{PLAN}</tool_call>',
            [("plan", {"step": 1})],
            id="one_quoted_tag",
        ),
        pytest.param(
            f"<think>hm</think>\n<tool_call>{PLAN}</tool_call>\n"
            f"<tool_call>{NOTE % '</think>'}</tool_call>",
            [("plan", {"step": 1}), ("note", {"text": "</think>"})],
            id="closed_block",
        ),
    ],
)
def test_settled_reasoning_still_lets_the_calls_run(
    reply: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    fixed = recover_tool_calls(AIMessage(reply), [plan, note])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == expected


class Step(BaseModel):
    """Run one step of a plan."""

    step: int


def test_structured_output_over_tools_asks_again() -> None:
    reply = _reply(
        '<think>say "</think>"\n',
        "<tool_call>{n}</tool_call>\n<tool_call>{p}</tool_call>",
        "</think>",
    )
    reply = reply.replace('"note"', '"Step"').replace('"plan"', '"Step"')
    model = ToolCallingChatModel(script=[AIMessage(reply), '{"step": 2}'])
    assert structured_output(model, Step, max_retries=1).invoke("go") == Step(step=2)
    assert len(model.calls) == 2


async def test_the_middleware_runs_no_call(mode: str) -> None:
    from langchain.agents.middleware import ModelRequest, ModelResponse  # noqa: PLC0415

    reply = AIMessage(_reply('<think>say "</think>"\n', HERMES, "</think>"))
    request: ModelRequest[Any] = ModelRequest(
        model=ToolCallingChatModel(script=[reply]), messages=[], tools=[plan, note]
    )
    middleware = JsonRecoveryMiddleware(max_retries=0)
    response = ModelResponse([reply])

    async def handler(_request: Any) -> Any:
        return response

    if mode == "sync":
        with pytest.raises(RetryExhaustedError):
            middleware.wrap_model_call(request, lambda _r: response)
    else:
        with pytest.raises(RetryExhaustedError):
            await middleware.awrap_model_call(request, handler)
    assert RAN == []
