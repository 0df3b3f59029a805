"""``structured_output``: native, JSON, and native falling back to JSON.

Scripted chat models stand in for the three kinds of model: one without tool
calling (``bind_tools`` not implemented), one that calls the tool, and one
that accepts tools and ignores them (answers in text). Every test that calls
a model runs through ``invoke`` and ``ainvoke``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, assert_type

import pytest
from _models import ScriptedChatModel, TagRecorder
from _modes import run
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel
from typing_extensions import TypedDict

from langchain_jsonrecover.errors import SchemaValidationError
from langchain_jsonrecover.outcomes import Halt
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.partial_models import partial_model
from langchain_jsonrecover.retry import RETRY_EVENT, RetryExhaustedError, RetryResult
from langchain_jsonrecover.structured import StructuredOutputChain, structured_output

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable
    from langchain_core.tools import BaseTool


class TextModel(ScriptedChatModel):
    """No tool calling: replies from a script (the last repeats); records calls."""


class ToolModel(TextModel):
    """Tool calling: the tools are bound (and seen in the call's kwargs); the
    script decides whether the model uses them or ignores them."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=list(tools), tool_choice=tool_choice)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class PersonDict(TypedDict):
    name: str
    age: int


@dataclasses.dataclass
class PersonData:
    name: str
    age: int


PERSON_SCHEMA: dict[str, Any] = {
    "title": "Person",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}

GOOD = '{"name": "Ada", "age": 36}'
BAD_AGE = '{"name": "Ada", "age": "old"}'
ADA = Person(name="Ada", age=36)
QUESTION = HumanMessage("Who wrote the first program?")
KEYS = {"raw", "parsed", "parsing_error", "attempts", "usage", "attempt"}


def tool_call(args: dict[str, Any]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "Person", "args": args, "id": "c1"}])


def instructions(system_prompt: str | None = None) -> SystemMessage:
    text = JsonFenceOutputParser(pydantic_object=Person).get_format_instructions()
    return SystemMessage(f"{system_prompt}\n\n{text}" if system_prompt else text)


def feedback_for(reply: str) -> HumanMessage:
    step = JsonFenceOutputParser(pydantic_object=Person).process(reply)
    assert isinstance(step, Halt)
    return step.feedback


# --- json -----------------------------------------------------------------------


async def test_json_puts_system_prompt_then_format_instructions(mode: str) -> None:
    model = TextModel(script=[f"Sure! ```json\n{GOOD}\n```"])
    chain = structured_output(
        model, Person, strategy="json", system_prompt="You are a historian."
    )
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls == [[instructions("You are a historian."), QUESTION]]
    system = str(model.calls[0][0].content)
    assert system.startswith(
        "You are a historian.\n\nThe JSON object has these fields:"
    )


async def test_json_appends_to_the_callers_system_message(mode: str) -> None:
    model = TextModel(script=[GOOD])
    chain = structured_output(model, Person, strategy="json")
    base = [SystemMessage("Be brief."), QUESTION]
    assert await run(chain, base, mode) == ADA
    expected = SystemMessage(f"Be brief.\n\n{instructions().content}")
    assert model.calls[0] == [expected, QUESTION]
    assert base[0].content == "Be brief."


async def test_json_retries_with_feedback(mode: str) -> None:
    model = TextModel(script=[BAD_AGE, GOOD])
    chain = structured_output(model, Person, strategy="json")
    assert await run(chain, "Who?", mode) == ADA
    assert model.calls[1] == [
        instructions(),
        HumanMessage("Who?"),
        AIMessage(BAD_AGE),
        feedback_for(BAD_AGE),
    ]


@pytest.mark.parametrize("max_retries", [0, 1, 3])
async def test_json_respects_max_retries(max_retries: int, mode: str) -> None:
    takes = iter(range(100))
    model = TextModel(script=[lambda _: f"no json {next(takes)}"])
    chain = structured_output(model, Person, strategy="json", max_retries=max_retries)
    with pytest.raises(RetryExhaustedError):
        await run(chain, "Who?", mode)
    assert len(model.calls) == 1 + max_retries


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        pytest.param(Person, ADA, id="pydantic"),
        pytest.param(PersonDict, {"name": "Ada", "age": 36}, id="typeddict"),
        pytest.param(PersonData, PersonData("Ada", 36), id="dataclass"),
        pytest.param(PERSON_SCHEMA, {"name": "Ada", "age": 36}, id="json_schema"),
    ],
)
async def test_json_schema_kinds(schema: Any, expected: Any, mode: str) -> None:
    model = TextModel(script=[GOOD])
    chain = structured_output(model, schema, strategy="json")
    assert await run(chain, "Who?", mode) == expected
    assert '"age" (integer, required)' in str(model.calls[0][0].content)


# --- native ---------------------------------------------------------------------


async def test_native_uses_the_tool(mode: str) -> None:
    model = ToolModel(script=[tool_call({"name": "Ada", "age": 36})])
    chain = structured_output(model, Person, strategy="native")
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls == [[QUESTION]]
    assert model.bound[0]["tool_choice"] == "any"


async def test_native_is_with_structured_output_for_a_model_ignoring_tools(
    mode: str,
) -> None:
    model = ToolModel(script=[GOOD])
    chain = structured_output(model, Person, strategy="native")
    assert await run(chain, [QUESTION], mode) is None  # as with_structured_output


async def test_native_gives_the_system_prompt_first(mode: str) -> None:
    model = ToolModel(script=[tool_call({"name": "Ada", "age": 36})])
    chain = structured_output(
        model, Person, strategy="native", system_prompt="Be exact."
    )
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls == [[SystemMessage("Be exact."), QUESTION]]


def test_native_on_a_model_without_tools_is_not_implemented() -> None:
    with pytest.raises(NotImplementedError):
        structured_output(TextModel(script=[GOOD]), Person, strategy="native")


def test_kwargs_go_to_with_structured_output() -> None:
    model = ToolModel(script=[GOOD])
    structured_output(model, Person, method="function_calling", strict=True)
    with pytest.raises(ValueError, match="unsupported arguments"):
        structured_output(model, Person, temperature=0)


def test_unknown_strategy_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="strategy"):
        structured_output(TextModel(script=[GOOD]), Person, strategy="magic")  # type: ignore[call-overload]


def test_negative_max_retries_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        structured_output(TextModel(script=[GOOD]), Person, max_retries=-1)


# --- auto -----------------------------------------------------------------------


async def test_auto_without_tools_is_json(mode: str) -> None:
    model = TextModel(script=[BAD_AGE, GOOD])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls[0] == [instructions(), QUESTION]
    assert len(model.calls) == 2


async def test_auto_with_tools_is_native(mode: str) -> None:
    model = ToolModel(script=[tool_call({"name": "Ada", "age": 36})])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls == [[QUESTION]]
    assert "tools" in model.bound[0]


async def test_auto_parses_the_text_of_a_model_that_ignores_tools(mode: str) -> None:
    model = ToolModel(script=[f"Here you go: {GOOD}"])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode) == ADA
    assert len(model.calls) == 1


async def test_auto_falls_back_to_json_for_a_model_that_ignores_tools(
    mode: str,
) -> None:
    model = ToolModel(script=[BAD_AGE, GOOD])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls[0] == [QUESTION]  # the native call
    assert "tools" in model.bound[0]
    assert model.calls[1] == [
        instructions(),
        QUESTION,
        AIMessage(BAD_AGE),
        feedback_for(BAD_AGE),
    ]
    assert "tools" not in model.bound[1]  # the re-ask goes to the plain model


async def test_auto_feedback_for_a_tool_call_that_fails_validation(
    mode: str,
) -> None:
    model = ToolModel(script=[tool_call({"name": "Ada", "age": "old"}), GOOD])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode) == ADA
    failed, feedback = model.calls[1][-2:]
    assert failed == AIMessage(BAD_AGE)  # the call's arguments, no tool call
    assert "age: Input should be a valid integer" in str(feedback.content)


@pytest.mark.parametrize("max_retries", [0, 1, 2])
async def test_auto_shares_one_budget(max_retries: int, mode: str) -> None:
    takes = iter(range(100))
    model = ToolModel(script=[lambda _: f"no json {next(takes)}"])
    chain = structured_output(model, Person, max_retries=max_retries)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 1 + max_retries
    assert len(info.value.attempts) == 1 + max_retries


async def test_a_refusal_raises_on_every_path(mode: str) -> None:
    refusal = AIMessage(content=[{"type": "refusal", "refusal": "I can't."}])
    for model, strategy in [
        (ToolModel(script=[refusal, GOOD]), "auto"),
        (ToolModel(script=[refusal, GOOD]), "native"),
        (TextModel(script=[refusal, GOOD]), "json"),
    ]:
        chain = structured_output(model, Person, strategy=strategy, include_raw=True)  # type: ignore[call-overload]
        with pytest.raises(ModelRefusalError):
            await run(chain, [QUESTION], mode)
        assert len(model.calls) == 1


# --- include_raw ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_model", "strategy", "calls"),
    [
        pytest.param(lambda: TextModel(script=[BAD_AGE, GOOD]), "json", 2, id="json"),
        pytest.param(
            lambda: ToolModel(script=[tool_call({"name": "Ada", "age": 36})]),
            "native",
            1,
            id="native",
        ),
        pytest.param(
            lambda: ToolModel(script=[tool_call({"name": "Ada", "age": 36})]),
            "auto",
            1,
            id="auto_native",
        ),
        pytest.param(
            lambda: ToolModel(script=[BAD_AGE, GOOD]), "auto", 2, id="auto_json"
        ),
        pytest.param(
            lambda: TextModel(script=[BAD_AGE, GOOD]), "auto", 2, id="auto_text"
        ),
    ],
)
async def test_include_raw_has_the_same_keys_on_every_path(
    make_model: Callable[[], TextModel], strategy: Any, calls: int, mode: str
) -> None:
    model = make_model()
    chain = structured_output(model, Person, strategy=strategy, include_raw=True)
    result = await run(chain, [QUESTION], mode)
    assert set(result) == KEYS
    assert result["parsed"] == ADA
    assert result["parsing_error"] is None
    assert isinstance(result["raw"], AIMessage)
    assert len(result["attempts"]) == calls


async def test_include_raw_reports_a_failure(mode: str) -> None:
    model = ToolModel(script=[BAD_AGE, '{"name": "Ada", "age": "older"}'])
    chain = structured_output(model, Person, include_raw=True, max_retries=1)
    result = await run(chain, [QUESTION], mode)
    assert set(result) == KEYS
    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], SchemaValidationError)


async def test_native_include_raw_reports_a_failure(mode: str) -> None:
    model = ToolModel(script=[tool_call({"name": "Ada", "age": "old"})])
    chain = structured_output(model, Person, strategy="native", include_raw=True)
    result = await run(chain, [QUESTION], mode)
    assert set(result) == KEYS
    assert result["parsed"] is None
    assert result["parsing_error"] is not None
    assert result["attempts"][0]["error"] is result["parsing_error"]


async def test_usage_is_summed_over_native_and_json_calls(mode: str) -> None:
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    model = ToolModel(
        script=[
            AIMessage(BAD_AGE, usage_metadata=usage),
            AIMessage(GOOD, usage_metadata=usage),
        ]
    )
    chain = structured_output(model, Person, include_raw=True)
    result = await run(chain, [QUESTION], mode)
    assert result["usage"] == {
        "input_tokens": 10,
        "output_tokens": 4,
        "total_tokens": 14,
    }


def test_static_types_follow_the_schema_and_include_raw() -> None:
    model = TextModel(script=[GOOD])
    assert_type(structured_output(model, Person).invoke("a"), Person)
    assert_type(structured_output(model, PERSON_SCHEMA).invoke("a"), dict[str, Any])
    raw = structured_output(model, Person, include_raw=True).invoke("a")
    assert_type(raw, RetryResult[Person])
    assert raw["parsed"] == ADA


def test_the_runnable_and_its_types() -> None:
    chain = structured_output(TextModel(script=[GOOD]), Person)
    assert isinstance(chain, StructuredOutputChain)
    assert chain.OutputType is Person
    assert chain.batch(["a", "b"]) == [ADA, ADA]
    # The partial is typed: partial_model(Person), as the parsers stream it.
    assert list(chain.stream("a")) == [partial_model(Person)(**ADA.model_dump()), ADA]


async def test_auto_native_call_and_its_event_carry_attempt_1(mode: str) -> None:
    recorder = TagRecorder()
    model = ToolModel(script=[tool_call({"name": "Ada", "age": "old"}), GOOD])
    chain = structured_output(model, Person)
    assert await run(chain, [QUESTION], mode, {"callbacks": [recorder]}) == ADA
    assert recorder.seen == [
        ("model", None, ["jsonrecover:attempt:1"]),  # inside the native sequence
        (RETRY_EVENT, 1, ["jsonrecover:attempt:1"]),
        ("model", None, ["jsonrecover:attempt:2"]),
    ]
