"""``JsonRetryChain``: the ask-parse-feedback loop, on scripted chat models.

Every test runs twice, through ``invoke`` and through ``ainvoke`` (the
``mode`` fixture): the two drivers share one step function.
"""

from __future__ import annotations

import copy
import itertools
import pickle
from typing import TYPE_CHECKING, Any, assert_type

import pytest
from _models import Script, ScriptedChatModel, TagRecorder
from _modes import run
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import ModelRefusalError, OutputParserException
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import (
    BaseOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
)
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

from langchain_jsonrecover._core.prompts.retry import (
    CONTINUE_REQUEST,
    SHORTER_REQUEST,
    WHOLE_REQUEST,
)
from langchain_jsonrecover._core.prompts.retry import (
    write_system_feedback as system_feedback,
)
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    NoJsonFoundError,
    SchemaValidationError,
)
from langchain_jsonrecover.outcomes import Continue, Halt
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.retry import (
    RETRY_EVENT,
    JsonRetryChain,
    RetryExhaustedError,
    RetryResult,
    next_move,
)
from langchain_jsonrecover.retry.steps import Ask, Done, GiveUp, Plan, Rejected, State

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from uuid import UUID

    from langchain_core.messages.ai import UsageMetadata


class Person(BaseModel):
    name: str
    age: int


GOOD = '{"name": "Ada", "age": 36}'
BAD_AGE = '{"name": "Ada", "age": "old"}'
BAD_AGE_2 = '{"name": "Ada", "age": "very old"}'
ADA = Person(name="Ada", age=36)
QUESTION = HumanMessage("Who wrote the first program? Answer in JSON.")
LENGTH = {"finish_reason": "length"}


def usage(n: int) -> UsageMetadata:
    return {"input_tokens": n, "output_tokens": 1, "total_tokens": n + 1}


def person_parser() -> JsonFenceOutputParser[Person]:
    return JsonFenceOutputParser(pydantic_object=Person)


def feedback_for(reply: str | AIMessage) -> str:
    step = person_parser().process(reply)
    assert isinstance(step, Halt)
    return str(step.feedback.content)


def distinct_failures() -> Callable[[list[BaseMessage]], str]:
    takes = itertools.count(1)
    return lambda _: f"no json, take {next(takes)}"


def make_chain(
    script: list[Script], **kwargs: Any
) -> tuple[JsonRetryChain[Any], ScriptedChatModel]:
    model = ScriptedChatModel(script=script)
    options: dict[str, Any] = {"parser": person_parser(), **kwargs}
    return JsonRetryChain(model=model, **options), model


# --- the loop -------------------------------------------------------------------


async def test_first_reply_that_parses_ends_the_loop(mode: str) -> None:
    chain, model = make_chain([GOOD, BAD_AGE])
    assert await run(chain, [QUESTION], mode) == ADA
    assert len(model.calls) == 1
    assert model.calls[0] == [QUESTION]


async def test_reask_is_original_messages_failed_reply_feedback(mode: str) -> None:
    base = [SystemMessage("You answer in JSON."), QUESTION]
    chain, model = make_chain([BAD_AGE, GOOD])
    assert await run(chain, base, mode) == ADA
    assert model.calls[1] == [
        *base,
        AIMessage(BAD_AGE),
        HumanMessage(feedback_for(BAD_AGE)),
    ]


async def test_validation_feedback_names_the_field_and_pydantics_message(
    mode: str,
) -> None:
    chain, model = make_chain([BAD_AGE, GOOD])
    await run(chain, [QUESTION], mode)
    feedback = model.calls[1][-1]
    assert isinstance(feedback, HumanMessage)
    assert "age: Input should be a valid integer" in feedback.content
    assert '(got "old")' in feedback.content


async def test_only_the_latest_failed_reply_stays_in_the_conversation(
    mode: str,
) -> None:
    chain, model = make_chain(["no json at all", BAD_AGE, GOOD])
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls[2] == [
        QUESTION,
        AIMessage(BAD_AGE),
        HumanMessage(feedback_for(BAD_AGE)),
    ]


async def test_tool_calls_go_back_as_text_after_the_reply_text(mode: str) -> None:
    call = {"name": "lookup", "args": {"q": "Ada"}, "id": "call_1"}
    with_text = AIMessage("Let me look that up.", tool_calls=[call])
    without_text = AIMessage("", tool_calls=[call])
    chain, model = make_chain([with_text, without_text, GOOD])
    assert await run(chain, [QUESTION], mode) == ADA
    first, second = model.calls[1][1], model.calls[2][1]
    # The call's arguments are shown as text: the model sees what it sent.
    assert first == AIMessage('Let me look that up.\n\n{"q": "Ada"}')
    assert second == AIMessage('{"q": "Ada"}')
    assert isinstance(first, AIMessage)
    assert first.tool_calls == []


async def test_an_llm_returning_text_is_a_model_too(mode: str) -> None:
    replies = iter([BAD_AGE, GOOD])

    def llm(_: Any) -> str:
        return next(replies)

    model = RunnableLambda(llm)
    chain = JsonRetryChain(model=model, parser=person_parser())
    assert await run(chain, "Who?", mode) == ADA


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("Who wrote the first program?", id="str"),
        pytest.param([("human", "Who wrote the first program?")], id="tuples"),
        pytest.param([HumanMessage("Who wrote the first program?")], id="messages"),
    ],
)
async def test_input_is_what_a_chat_model_takes(value: Any, mode: str) -> None:
    chain, model = make_chain([GOOD])
    assert await run(chain, value, mode) == ADA
    assert model.calls[0] == [HumanMessage("Who wrote the first program?")]


async def test_prompt_pipes_into_the_chain(mode: str) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer in JSON."), ("human", "{question}")]
    )
    chain, model = make_chain([BAD_AGE, GOOD])
    assert await run(prompt | chain, {"question": "Who?"}, mode) == ADA
    assert model.calls[1][:2] == [
        SystemMessage("Answer in JSON."),
        HumanMessage("Who?"),
    ]


async def test_callers_messages_are_never_mutated(mode: str) -> None:
    base: list[BaseMessage] = [SystemMessage("Answer in JSON."), QUESTION]
    before = copy.deepcopy(base)
    for strategy in ("user", "system"):
        chain, _ = make_chain([BAD_AGE, BAD_AGE_2, GOOD], feedback_strategy=strategy)
        await run(chain, base, mode)
        assert base == before
        assert base[0].content == "Answer in JSON."


# --- the system strategy ------------------------------------------------------


async def test_system_strategy_creates_a_system_message(mode: str) -> None:
    chain, model = make_chain([BAD_AGE, GOOD], feedback_strategy="system")
    assert await run(chain, [QUESTION], mode) == ADA
    expected = system_feedback(feedback_for(BAD_AGE), BAD_AGE)
    assert model.calls[1] == [SystemMessage(expected), QUESTION]


async def test_system_strategy_appends_to_the_system_message(mode: str) -> None:
    base = [SystemMessage("Answer in JSON."), QUESTION]
    chain, model = make_chain([BAD_AGE, BAD_AGE_2, GOOD], feedback_strategy="system")
    assert await run(chain, base, mode) == ADA
    second = system_feedback(feedback_for(BAD_AGE_2), BAD_AGE_2)
    # Not extended, and only the latest feedback.
    assert model.calls[2] == [SystemMessage(f"Answer in JSON.\n\n{second}"), QUESTION]
    assert '"old"' not in str(model.calls[2][0].content)


async def test_system_strategy_quotes_at_most_500_characters(mode: str) -> None:
    long_reply = "I am thinking. " * 200
    chain, model = make_chain([long_reply, GOOD], feedback_strategy="system")
    await run(chain, [QUESTION], mode)
    system = str(model.calls[1][0].content)
    quoted = system.split("<previous_response>\n", 1)[1].split(
        "\n</previous_response>", maxsplit=1
    )[0]
    assert len(quoted) == 500
    assert long_reply.startswith(quoted[:-1])
    assert quoted.endswith("…")
    assert "first 500 characters" in system


# --- foreign parsers ------------------------------------------------------------


class ObservingParser(BaseOutputParser[str]):
    """Accepts only "OK"; its errors carry an observation."""

    def parse(self, text: str) -> str:
        if text != "OK":
            raise OutputParserException(
                "not OK", observation="Answer with OK only.", llm_output=text
            )
        return text


async def test_foreign_parser_observation_is_the_feedback(mode: str) -> None:
    model = ScriptedChatModel(script=["Sure thing", "OK"])
    chain = JsonRetryChain(model=model, parser=ObservingParser())
    assert await run(chain, "Say OK", mode) == "OK"
    assert model.calls[1][-1] == HumanMessage("Answer with OK only.")


async def test_foreign_parser_message_loses_the_url_and_the_reply(mode: str) -> None:
    model = ScriptedChatModel(script=["hello there", '{"a": 1}'])
    chain = JsonRetryChain(model=model, parser=JsonOutputParser())
    assert await run(chain, "JSON please", mode) == {"a": 1}
    assert model.calls[1][-1] == HumanMessage("Invalid json output: your reply")


async def test_pydantic_parser_feedback_keeps_the_validation_error(mode: str) -> None:
    model = ScriptedChatModel(script=[BAD_AGE, GOOD])
    chain = JsonRetryChain(
        model=model, parser=PydanticOutputParser(pydantic_object=Person)
    )
    assert await run(chain, "Who?", mode) == ADA
    feedback = str(model.calls[1][-1].content)
    assert "Input should be a valid integer" in feedback
    assert "age" in feedback
    assert "troubleshooting" not in feedback
    assert "errors.pydantic.dev" not in feedback
    assert BAD_AGE not in feedback


# --- the budget -----------------------------------------------------------------


@pytest.mark.parametrize("max_retries", [0, 1, 2, 4])
async def test_max_retries_counts_reasks(max_retries: int, mode: str) -> None:
    chain, model = make_chain([distinct_failures()], max_retries=max_retries)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 1 + max_retries
    assert len(info.value.attempts) == 1 + max_retries


def test_negative_max_retries_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        make_chain([GOOD], max_retries=-1)


def test_default_max_retries_is_two() -> None:
    chain, _ = make_chain([GOOD])
    assert chain.max_retries == 2


async def test_exhausted_error_carries_attempts_and_cause(mode: str) -> None:
    script: list[Script] = [
        AIMessage("no json", usage_metadata=usage(10)),
        AIMessage(BAD_AGE, usage_metadata=usage(20)),
    ]
    chain, _ = make_chain(script, max_retries=1)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    error = info.value
    assert isinstance(error, OutputParserException)
    assert [a["reply"].content for a in error.attempts] == ["no json", BAD_AGE]
    assert isinstance(error.attempts[0]["error"], NoJsonFoundError)
    assert isinstance(error.attempts[1]["error"], SchemaValidationError)
    assert [a["usage"] for a in error.attempts] == [usage(10), usage(20)]
    assert error.__cause__ is error.attempts[1]["error"]
    assert error.llm_output == BAD_AGE
    assert error.observation == feedback_for(BAD_AGE)
    assert error.repeats is None
    assert error.send_to_llm is False
    assert str(error) == (
        "No usable reply after 2 model calls: SchemaValidationError: "
        "The JSON does not match the schema Person (1 error):\n"
        "  age: Input should be a valid integer, unable to parse string as an "
        'integer (got "old")'
    )
    assert "troubleshooting" not in str(error)


async def test_exhausted_error_pickles_intact(mode: str) -> None:
    chain, _ = make_chain(["no json", BAD_AGE], max_retries=1)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    error = info.value
    copied = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert type(copied) is RetryExhaustedError
    assert str(copied) == str(error)
    assert copied.llm_output == error.llm_output
    assert copied.observation == error.observation
    assert [a["reply"] for a in copied.attempts] == [a["reply"] for a in error.attempts]
    assert isinstance(copied.__cause__, SchemaValidationError)
    assert copied.__cause__.errors == error.attempts[1]["error"].errors  # type: ignore[union-attr]


# --- include_raw ----------------------------------------------------------------


async def test_include_raw_on_success(mode: str) -> None:
    script: list[Script] = [
        AIMessage(BAD_AGE, usage_metadata=usage(10)),
        AIMessage(GOOD, usage_metadata=usage(20)),
    ]
    chain, _ = make_chain(script, include_raw=True)
    result = await run(chain, [QUESTION], mode)
    keys = {"raw", "parsed", "parsing_error", "attempts", "usage", "attempt"}
    assert set(result) == keys
    assert result["attempt"] == 2
    assert result["raw"].content == GOOD
    assert result["parsed"] == ADA
    assert result["parsing_error"] is None
    assert [a["error"] is None for a in result["attempts"]] == [False, True]
    assert result["usage"] == {
        "input_tokens": 30,
        "output_tokens": 2,
        "total_tokens": 32,
    }


async def test_include_raw_never_raises_for_a_parse_failure(mode: str) -> None:
    chain, _ = make_chain(["no json", BAD_AGE], include_raw=True, max_retries=1)
    result = await run(chain, [QUESTION], mode)
    assert result["parsed"] is None
    assert result["raw"].content == BAD_AGE
    assert isinstance(result["parsing_error"], SchemaValidationError)
    assert result["parsing_error"] is result["attempts"][-1]["error"]
    assert len(result["attempts"]) == 2
    assert result["usage"] is None


# --- the loop guard ---------------------------------------------------------------


async def test_a_repeated_failed_reply_stops_the_loop_at_once(mode: str) -> None:
    chain, model = make_chain(["no json here"], max_retries=5)
    with pytest.raises(RetryExhaustedError, match="stuck") as info:
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 2
    assert info.value.repeats == 1
    assert str(info.value).startswith(
        "The model is stuck: reply 2 repeats reply 1, which already failed"
    )


async def test_the_guard_remembers_every_failed_reply(mode: str) -> None:
    chain, model = make_chain(["A", BAD_AGE, "A"], max_retries=5)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 3
    assert info.value.repeats == 1


async def test_the_guard_with_include_raw_returns(mode: str) -> None:
    chain, model = make_chain(["no json here"], max_retries=5, include_raw=True)
    result = await run(chain, [QUESTION], mode)
    assert len(model.calls) == 2
    assert isinstance(result["parsing_error"], NoJsonFoundError)


# --- cut-off replies --------------------------------------------------------------


async def test_cut_off_reply_reasks_for_a_shorter_answer(mode: str) -> None:
    cut = AIMessage('{"name": "Ada", "ag', response_metadata=LENGTH)
    chain, model = make_chain([cut, GOOD])
    assert await run(chain, [QUESTION], mode) == ADA
    feedback = str(model.calls[1][-1].content)
    assert "cut off at the token limit" in feedback
    assert "shorter" in feedback


async def test_cut_off_reply_with_a_foreign_parser_asks_for_shorter(mode: str) -> None:
    cut = AIMessage('{"name": "Ada", "ag', response_metadata=LENGTH)
    model = ScriptedChatModel(script=[cut, GOOD])
    chain = JsonRetryChain(
        model=model, parser=PydanticOutputParser(pydantic_object=Person)
    )
    assert await run(chain, [QUESTION], mode) == ADA
    assert str(model.calls[1][-1].content).startswith(SHORTER_REQUEST)


async def test_continue_asks_for_the_rest_and_parses_the_joined_text(
    mode: str,
) -> None:
    pieces: list[Script] = [
        AIMessage('```json\n{"name": "Ad', response_metadata=LENGTH),
        AIMessage('a", "age"', response_metadata=LENGTH),
        ": 36}\n```",
    ]
    chain, model = make_chain(pieces, on_truncation="continue", include_raw=True)
    result = await run(chain, [QUESTION], mode)
    assert result["parsed"] == ADA
    assert model.calls[1] == [
        QUESTION,
        AIMessage('```json\n{"name": "Ad'),
        HumanMessage(CONTINUE_REQUEST),
    ]
    assert model.calls[2] == [
        QUESTION,
        AIMessage('```json\n{"name": "Ada", "age"'),
        HumanMessage(CONTINUE_REQUEST),
    ]
    assert len(result["attempts"]) == 3


async def test_continue_on_an_open_json_without_metadata(mode: str) -> None:
    chain, model = make_chain(
        ['{"name": "Ada", ', '"age": 36}'], on_truncation="continue"
    )
    assert await run(chain, [QUESTION], mode) == ADA
    assert model.calls[1][-1] == HumanMessage(CONTINUE_REQUEST)


async def test_each_continuation_counts_as_an_attempt(mode: str) -> None:
    pieces: list[Script] = [
        AIMessage('{"name": ', response_metadata=LENGTH),
        AIMessage('"Ada", ', response_metadata=LENGTH),
        '"age": 36}',
    ]
    chain, model = make_chain(pieces, on_truncation="continue", max_retries=1)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 2
    assert isinstance(info.value.__cause__, InvalidJsonError)
    assert info.value.__cause__.truncated


async def test_joined_text_that_fails_otherwise_gets_feedback(mode: str) -> None:
    pieces: list[Script] = [
        AIMessage('{"name": "Ada", ', response_metadata=LENGTH),
        '"age": "old"}',
        GOOD,
    ]
    chain, model = make_chain(pieces, on_truncation="continue")
    assert await run(chain, [QUESTION], mode) == ADA
    joined = '{"name": "Ada", "age": "old"}'
    assert model.calls[2] == [
        QUESTION,
        AIMessage(joined),
        HumanMessage(feedback_for(joined)),
    ]


# --- what is not retried ------------------------------------------------------


async def test_a_refusal_propagates_unretried(mode: str) -> None:
    refusal = AIMessage(content=[{"type": "refusal", "refusal": "I can't do that."}])
    parsers: list[BaseOutputParser[Person]] = [
        person_parser(),
        PydanticOutputParser(pydantic_object=Person),
    ]
    for parser in parsers:
        model = ScriptedChatModel(script=[refusal, GOOD])
        chain = JsonRetryChain(model=model, parser=parser)
        with pytest.raises(ModelRefusalError):
            await run(chain, [QUESTION], mode)
        assert len(model.calls) == 1


async def test_a_model_error_propagates_unretried(mode: str) -> None:
    chain, model = make_chain([ConnectionError("network down"), GOOD])
    with pytest.raises(ConnectionError, match="network down"):
        await run(chain, [QUESTION], mode)
    assert len(model.calls) == 1


async def test_with_retry_handles_transport_errors(mode: str) -> None:
    model = ScriptedChatModel(script=[ConnectionError("blip"), BAD_AGE, GOOD])
    retrying = model.with_retry(
        retry_if_exception_type=(ConnectionError,), wait_exponential_jitter=False
    )
    chain = JsonRetryChain(model=retrying, parser=person_parser(), max_retries=1)
    assert await run(chain, [QUESTION], mode) == ADA
    assert len(model.calls) == 3


# --- the Runnable surface -------------------------------------------------------


def answer_from_question(messages: Sequence[BaseMessage]) -> str:
    number = str(messages[0].content).split()[-1]
    return f'{{"name": "n{number}", "age": {number}}}'


def test_batch() -> None:
    chain, _ = make_chain([answer_from_question])
    results = chain.batch(["Person 1", "Person 2", "Person 3"])
    assert [r.age for r in results] == [1, 2, 3]


async def test_abatch() -> None:
    chain, _ = make_chain([answer_from_question])
    results = await chain.abatch(["Person 1", "Person 2"])
    assert [r.age for r in results] == [1, 2]


async def test_a_model_that_cannot_stream_gives_one_item_per_attempt() -> None:
    # ScriptedChatModel has no _stream: each reply comes whole, as one item
    # (its partial value), and the value ends the stream.
    chain, _ = make_chain([BAD_AGE, GOOD])
    items = list(chain.stream([QUESTION]))
    assert items[-1] == ADA
    assert len(items) == 3
    chain, _ = make_chain([BAD_AGE, GOOD])
    assert [chunk async for chunk in chain.astream([QUESTION])] == items


def test_static_types_follow_the_parser_and_include_raw() -> None:
    model = ScriptedChatModel(script=[GOOD])
    chain = JsonRetryChain(model=model, parser=person_parser())
    assert_type(chain, JsonRetryChain[Person])
    assert_type(chain.invoke("Who?"), Person)
    raw = JsonRetryChain(model=model, parser=person_parser(), include_raw=True)
    assert_type(raw, JsonRetryChain[RetryResult[Person]])
    assert_type(raw.invoke("Who?")["parsed"], Person | None)


def test_types() -> None:
    chain, _ = make_chain([GOOD])
    assert chain.OutputType is Person
    raw, _ = make_chain([GOOD], include_raw=True)
    assert raw.OutputType == dict[str, Any]
    assert "anyOf" in chain.get_input_jsonschema()


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any, UUID]] = []
        self.chains: dict[UUID, str] = {}
        self.models: list[tuple[UUID | None, list[str]]] = []

    def on_custom_event(
        self, name: str, data: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.events.append((name, data, run_id))

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.chains[run_id] = kwargs.get("name") or ""

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.models.append((parent_run_id, tags or []))


async def test_each_reask_emits_an_event_and_model_runs_are_children(
    mode: str,
) -> None:
    recorder = Recorder()
    chain, _ = make_chain(["no json", BAD_AGE, GOOD])
    await run(chain, [QUESTION], mode, {"callbacks": [recorder]})
    (chain_run,) = [k for k, v in recorder.chains.items() if v == "JsonRetryChain"]
    assert recorder.events == [
        (
            RETRY_EVENT,
            {"attempt": 1, "error": "no_json", "feedback": feedback_for("no json")},
            chain_run,
        ),
        (
            RETRY_EVENT,
            {"attempt": 2, "error": "schema", "feedback": feedback_for(BAD_AGE)},
            chain_run,
        ),
    ]
    assert [parent for parent, _ in recorder.models] == [chain_run] * 3
    assert [
        f"jsonrecover:attempt:{n}" in tags
        for n, (_, tags) in enumerate(recorder.models, 1)
    ] == [True] * 3


async def test_events_in_astream_events() -> None:
    chain, _ = make_chain([BAD_AGE, GOOD])
    names = [
        event["name"]
        async for event in chain.astream_events([QUESTION], version="v2")
        if event["event"] == "on_custom_event"
    ]
    assert names == [RETRY_EVENT]


# --- the pure step --------------------------------------------------------------


def test_next_step_is_pure_and_says_what_next() -> None:
    plan = Plan(base=(QUESTION,), max_retries=1)
    bad = AIMessage("no json")
    error = NoJsonFoundError("No JSON found in the reply.", llm_output="no json")
    step = next_move(plan, State(), bad, Rejected(error, "Send JSON."))
    assert isinstance(step, Ask)
    assert step.messages == (QUESTION, AIMessage("no json"), HumanMessage("Send JSON."))
    assert step.event == {"attempt": 1, "error": "no_json", "feedback": "Send JSON."}
    again = next_move(
        plan, step.state, AIMessage("other"), Rejected(error, "Send JSON.")
    )
    assert isinstance(again, GiveUp)
    assert again.repeats is None
    assert len(again.attempts) == 2
    parsed = person_parser().process(GOOD)
    assert isinstance(parsed, Continue)
    done = next_move(plan, step.state, AIMessage(GOOD), parsed)
    assert isinstance(done, Done)
    assert done.value == ADA


async def test_exhausted_message_of_a_foreign_parser_is_clean(mode: str) -> None:
    model = ScriptedChatModel(script=["hello there", "still no json"])
    chain = JsonRetryChain(model=model, parser=JsonOutputParser(), max_retries=1)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, "JSON please", mode)
    assert str(info.value) == (
        "No usable reply after 2 model calls: OutputParserException: "
        "Invalid json output: your reply"
    )
    assert info.value.observation == "Invalid json output: your reply"
    assert info.value.llm_output == "still no json"


def test_a_reply_that_is_only_a_tool_call_is_parsed() -> None:
    from langchain_core.language_models import GenericFakeChatModel  # noqa: PLC0415

    call = {"name": "Person", "args": {"name": "Ada", "age": 36}, "id": "call-1"}
    model = GenericFakeChatModel(messages=iter([AIMessage("", tool_calls=[call])]))
    parser = JsonFenceOutputParser(pydantic_object=Person)
    assert JsonRetryChain(model=model, parser=parser).invoke("Who?") == Person(
        name="Ada", age=36
    )


# --- issue 15: the loop guard, run tags, one shared reply ----------------------


async def test_continuation_sending_distinct_pieces_is_progress(
    mode: str,
) -> None:
    pieces: list[Script] = [
        AIMessage('{"scores": [1, 2,', response_metadata=LENGTH),
        AIMessage(" 3, 4,", response_metadata=LENGTH),
        AIMessage(" 5, 6,", response_metadata=LENGTH),
        AIMessage(" 7]}"),
    ]
    model = ScriptedChatModel(script=pieces)
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(),
        on_truncation="continue",
        max_retries=5,
    )
    assert await run(chain, [QUESTION], mode) == {"scores": [1, 2, 3, 4, 5, 6, 7]}
    assert len(model.calls) == 4


async def test_continuation_sending_the_same_piece_twice_asks_for_all(
    mode: str,
) -> None:
    # "0, 0, " after "[0, 0, " may be the next items or a repeat of the last
    # (issue 21, family 22): each reading is continued, and when they give
    # different values the model is asked for the whole answer.
    cut = '{"scores": [0, 0, '
    pieces: list[Script] = [
        AIMessage(cut, response_metadata=LENGTH),
        AIMessage("0, 0, ", response_metadata=LENGTH),
        AIMessage("0]}"),
        '{"scores": [0, 0, 0]}',
    ]
    model = ScriptedChatModel(script=pieces)
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(),
        on_truncation="continue",
        max_retries=5,
    )
    assert await run(chain, [QUESTION], mode) == {"scores": [0, 0, 0]}
    assert model.calls[3] == [
        QUESTION,
        AIMessage('{"scores": [0, 0, 0, 0, '),
        HumanMessage(WHOLE_REQUEST),
    ]


async def test_continuation_that_adds_nothing_is_stuck(mode: str) -> None:
    pieces: list[Script] = [
        AIMessage('{"scores": [0, ', response_metadata=LENGTH),
        AIMessage("", response_metadata=LENGTH),
    ]
    model = ScriptedChatModel(script=pieces)
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(),
        on_truncation="continue",
        max_retries=5,
    )
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    assert (info.value.repeats, len(model.calls)) == (1, 2)


async def test_each_event_carries_the_tag_of_the_call_it_reports(mode: str) -> None:
    recorder = TagRecorder()
    chain, _ = make_chain(["no json", BAD_AGE, GOOD])
    await run(chain, [QUESTION], mode, {"callbacks": [recorder], "tags": ["mine"]})
    assert recorder.seen == [
        ("model", None, ["jsonrecover:attempt:1"]),
        (RETRY_EVENT, 1, ["jsonrecover:attempt:1"]),
        ("model", None, ["jsonrecover:attempt:2"]),
        (RETRY_EVENT, 2, ["jsonrecover:attempt:2"]),
        ("model", None, ["jsonrecover:attempt:3"]),
    ]


async def test_attempt_tag_reaches_a_chat_model_inside_a_sequence(mode: str) -> None:
    recorder = TagRecorder()
    model = ScriptedChatModel(script=[BAD_AGE, GOOD])
    prompt = ChatPromptTemplate.from_messages([("placeholder", "{messages}")])
    wrap: RunnableLambda[Any, dict[str, Any]] = RunnableLambda(
        lambda m: {"messages": m}
    )
    sequence: Runnable[Any, BaseMessage] = wrap | prompt | model
    chain = JsonRetryChain(model=sequence, parser=person_parser())
    assert await run(chain, [QUESTION], mode, {"callbacks": [recorder]}) == ADA
    assert recorder.seen == [
        ("model", None, ["jsonrecover:attempt:1"]),
        (RETRY_EVENT, 1, ["jsonrecover:attempt:1"]),
        ("model", None, ["jsonrecover:attempt:2"]),
    ]


BIG = 5_000_000
BIG_REPLIES = [
    pytest.param("x" * BIG, JsonFenceOutputParser(), 1, id="no-json"),
    pytest.param(
        '{"a": "' + "x" * BIG + '" "b": 1}',
        JsonFenceOutputParser(repair=False),
        1,
        id="invalid",
    ),
    # The error's ``value`` is the decoded data: a second, different string.
    pytest.param('{"name": "' + "x" * BIG + '"}', person_parser(), 2, id="schema"),
]


@pytest.mark.parametrize(("reply", "parser", "copies"), BIG_REPLIES)
async def test_a_failed_reply_is_one_string_shared_not_copied(
    reply: str, parser: JsonFenceOutputParser[Any], copies: int, mode: str
) -> None:
    model = ScriptedChatModel(script=[reply])
    chain = JsonRetryChain(model=model, parser=parser, max_retries=0)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, "hi", mode)
    error = info.value
    kept = error.attempts[0]["reply"].content
    assert error.llm_output is kept
    assert isinstance(error.__cause__, OutputParserException)
    assert error.__cause__.llm_output is kept
    assert error.attempts[0]["error"] is error.__cause__
    size = len(pickle.dumps(error))
    assert copies * len(reply) < size < (copies + 0.01) * len(reply)


async def test_a_continued_reply_that_fails_is_one_joined_string(mode: str) -> None:
    pieces: list[Script] = [
        AIMessage('{"name": "' + "x" * 1_000_000, response_metadata=LENGTH),
        AIMessage('", "age": "old"}'),
    ]
    chain, _ = make_chain(pieces, on_truncation="continue", max_retries=1)
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, [QUESTION], mode)
    error = info.value
    assert isinstance(error.__cause__, SchemaValidationError)
    assert error.llm_output is error.__cause__.llm_output
    assert str(error.llm_output).endswith('"age": "old"}')
