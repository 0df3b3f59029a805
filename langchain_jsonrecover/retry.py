r"""Ask again until the reply parses: :class:`JsonRetryChain`.

The loop of the Elixir processors (Normandy's ``deserialize_with_retry``,
AgentSea's ``extract``): invoke the model, parse the reply, and on failure tell
the model what was wrong and ask again, a bounded number of times.

One pure step function, :func:`next_move`, decides what comes after each
reply (done, ask again with these messages, or give up); a sync and an async
driver call the model and the parser around it. ``stream`` and ``astream``
yield the final value as one item: a reply can only be judged once complete.

Each re-ask emits the custom event ``jsonrecover.retry`` with ``{"attempt":
n, "error": kind, "feedback": text}``: ``n`` is the number of the model call
that failed (so also of the re-ask), ``kind`` one of ``no_json``,
``invalid_json``, ``schema``, ``truncated``, ``too_large`` or
``parse_error`` (a foreign parser's error). Model calls are child runs of the
chain in callbacks and tracing, tagged ``jsonrecover:attempt:<n>`` (the tag is
inherited: a chat model inside a sequence carries it too); the event carries
the tag of the call that failed, the same ``n`` as its payload.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    Generic,
    Literal,
    TypedDict,
    TypeVar,
    overload,
)

from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration
from langchain_core.prompt_values import (
    ChatPromptValueConcrete,
    PromptValue,
    StringPromptValue,
)
from langchain_core.runnables import (
    Runnable,
    RunnableBinding,
    RunnableConfig,
    RunnableSerializable,
)
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict, SkipValidation, field_validator

from langchain_jsonrecover._retry_prompts import (
    CONTINUE_REQUEST,
    clean_parser_message,
    exhausted_message,
    foreign_feedback,
    shorter_answer,
    stuck_message,
    system_feedback,
)
from langchain_jsonrecover._tool_prompts import NOT_EXECUTED, call_feedback
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    JsonRecoveryError,
    NoJsonFoundError,
    SchemaValidationError,
)
from langchain_jsonrecover.events import write_to_stream
from langchain_jsonrecover.outcomes import Continue
from langchain_jsonrecover.parsers import (
    _JsonRecoveringParser,
    raise_if_refused,
    stopped_at_token_limit,
)
from langchain_jsonrecover.streaming import message_text

if TYPE_CHECKING:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForChainRun,
        CallbackManagerForChainRun,
    )

__all__ = [
    "RETRY_EVENT",
    "Attempt",
    "JsonRetryChain",
    "RetryExhaustedError",
    "RetryResult",
    "next_move",
]

T = TypeVar("T")
P = TypeVar("P")

RETRY_EVENT: Final = "jsonrecover.retry"
"""The name of the custom event each re-ask emits."""

FeedbackStrategy = Literal["user", "system"]
OnTruncation = Literal["reask", "continue"]

_TOOL_BLOCKS: Final = frozenset(
    {
        "tool_use",
        "tool_call",
        "tool_call_chunk",
        "invalid_tool_call",
        "function_call",
        "server_tool_call",
        "server_tool_result",
    }
)


class Attempt(TypedDict):
    """One model call of a retry loop.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> Attempt(reply=AIMessage("{}"), error=None, usage=None)["error"] is None
        True
    """

    reply: AIMessage
    """The model's reply, as it came."""
    error: Exception | None
    """Why it was not used (the parse error), or ``None`` for the reply used."""
    usage: UsageMetadata | None
    """The reply's token usage, when the model reported it."""


class RetryResult(TypedDict, Generic[T]):
    """What ``include_raw=True`` returns instead of the value.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> result: RetryResult[int] = {
        ...     "raw": AIMessage("1"),
        ...     "parsed": 1,
        ...     "parsing_error": None,
        ...     "attempts": [],
        ...     "usage": None,
        ... }
        >>> result["parsed"]
        1
    """

    raw: AIMessage
    """The last reply."""
    parsed: T | None
    """The value, or ``None`` when no reply parsed."""
    parsing_error: Exception | None
    """The last reply's parse error, or ``None`` when it parsed."""
    attempts: list[Attempt]
    """Every model call, in order."""
    usage: UsageMetadata | None
    """Token usage summed over all calls (``None``: no call reported any)."""


class RetryExhaustedError(OutputParserException):
    """No reply parsed within the retries, or the model repeated a failed reply.

    ``attempts`` lists every model call (reply, error, usage); the last parse
    error is the ``__cause__``; ``llm_output`` is the last reply's text and
    ``observation`` the last feedback. ``repeats`` is the number of the earlier
    reply the last one repeated when the loop guard stopped the loop, else
    ``None``. It pickles intact, ``__cause__`` included.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> model = GenericFakeChatModel(messages=iter(["No.", "Still no."]))
        >>> chain = JsonRetryChain(
        ...     model=model, parser=JsonFenceOutputParser(), max_retries=1
        ... )
        >>> try:
        ...     chain.invoke("Give me JSON")
        ... except RetryExhaustedError as exc:
        ...     print(exc)
        ...     print(len(exc.attempts), type(exc.__cause__).__name__)
        No usable reply after 2 model calls: NoJsonFoundError: No JSON found ...
        2 NoJsonFoundError
    """

    def __init__(
        self,
        message: str,
        *,
        attempts: Sequence[Attempt] = (),
        llm_output: str = "",
        observation: str = "",
        repeats: int | None = None,
    ) -> None:
        """Create the error.

        Args:
            message: What happened, for a person.
            attempts: Every model call, in order.
            llm_output: The last reply's text.
            observation: The last feedback sent (or that would have been).
            repeats: The earlier reply the last one repeated (loop guard).
        """
        super().__init__(
            message,
            observation=observation or None,
            llm_output=llm_output,
            send_to_llm=False,
        )
        # OutputParserException appends a troubleshooting URL to a str message.
        self.args = (message,)
        self.message = message
        self.attempts: list[Attempt] = list(attempts)
        self.repeats = repeats

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every attribute and the cause."""
        state = dict(self.__dict__)
        state["__cause__"] = self.__cause__
        return (self.__class__, (self.message,), state)


# --- the pure step --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """What stays fixed over one run of the loop."""

    base: tuple[BaseMessage, ...]
    """The original conversation (never extended, never mutated)."""
    max_retries: int = 2
    """How many re-asks (and continuations) are allowed."""
    strategy: FeedbackStrategy = "user"
    """Where feedback goes: a new turn, or the system prompt."""
    on_truncation: OnTruncation = "reask"
    """What to do with a cut-off reply."""
    tools_bound: bool = False
    """The next call has tools bound: a failed reply with tool calls goes back
    unchanged, followed by one error ``ToolMessage`` per tool-call id."""


@dataclass(frozen=True, slots=True)
class State:
    """What the loop has seen so far."""

    attempts: tuple[Attempt, ...] = ()
    """Every model call so far."""
    keys: tuple[bytes, ...] = ()
    """Each failed reply's identity, in call order (for the loop guard): a
    digest of its text (the joined text, when continuing) and tool calls."""
    partial: str | None = None
    """The text so far of a cut-off reply being continued."""


@dataclass(frozen=True, slots=True)
class Rejected:
    """A reply that did not parse."""

    error: Exception
    """The parse error."""
    feedback: str
    """What to tell the model."""
    tool_call_id: str | None = None
    """The id of the tool call whose arguments failed, when one did."""


Outcome = Continue[Any] | Rejected


@dataclass(frozen=True, slots=True)
class Ask:
    """Call the model with ``messages``."""

    messages: tuple[BaseMessage, ...]
    state: State
    event: dict[str, Any] | None = None
    """The ``jsonrecover.retry`` payload (``None`` for the first call)."""


@dataclass(frozen=True, slots=True)
class Done:
    """A reply parsed."""

    value: Any
    reply: AIMessage
    attempts: tuple[Attempt, ...]


@dataclass(frozen=True, slots=True)
class GiveUp:
    """No more asking: the retries ran out, or the model is stuck."""

    reply: AIMessage
    """The last reply."""
    text: str
    """The text that failed (the joined text of a continued reply)."""
    error: Exception
    feedback: str
    attempts: tuple[Attempt, ...]
    repeats: int | None = None
    """The earlier call the last reply repeated (loop guard)."""


Move = Ask | Done | GiveUp


def first_ask(plan: Plan) -> Ask:
    """The first step: ask with the original conversation.

    Example:
        >>> first_ask(Plan(base=())).messages
        ()
    """
    return Ask(plan.base, State())


def next_move(plan: Plan, state: State, reply: AIMessage, outcome: Outcome) -> Move:
    """Given the conversation and the last reply, what next? No model calls.

    Args:
        plan: What stays fixed over the run.
        state: What the loop has seen before this reply.
        reply: The model's reply.
        outcome: What the parser made of it (of the joined text, when a
            cut-off reply is being continued).

    Returns:
        ``Done`` with the value; ``Ask`` with the next messages; or ``GiveUp``.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> plan = Plan(base=(HumanMessage("JSON please"),))
        >>> reply = AIMessage("Sure!")
        >>> halt = JsonFenceOutputParser().process(reply)
        >>> move = next_move(plan, State(), reply, Rejected(halt.error, "No JSON."))
        >>> [type(m).__name__ for m in move.messages]
        ['HumanMessage', 'AIMessage', 'HumanMessage']
        >>> move.event
        {'attempt': 1, 'error': 'no_json', 'feedback': 'No JSON.'}
    """
    text = _joined(state, reply)
    usage = reply.usage_metadata
    if isinstance(outcome, Continue):
        attempt = Attempt(reply=reply, error=None, usage=usage)
        return Done(outcome.value, reply, (*state.attempts, attempt))
    error, feedback = outcome.error, outcome.feedback
    attempts = (*state.attempts, Attempt(reply=reply, error=error, usage=usage))
    call = len(attempts)
    key = _key(reply, text)
    if key in state.keys:
        repeats = state.keys.index(key) + 1
        return GiveUp(reply, text, error, feedback, attempts, repeats)
    if call > plan.max_retries:
        return GiveUp(reply, text, error, feedback, attempts)
    keys = (*state.keys, key)
    cut_off = stopped_at_token_limit(reply.response_metadata) or (
        isinstance(error, InvalidJsonError) and error.truncated
    )
    if cut_off and plan.on_truncation == "continue":
        messages = (*plan.base, AIMessage(text), HumanMessage(CONTINUE_REQUEST))
        event = _event(call, "truncated", CONTINUE_REQUEST)
        return Ask(messages, State(attempts, keys, partial=text), event)
    if cut_off and not isinstance(error, JsonRecoveryError):
        feedback = shorter_answer(feedback)
    if plan.strategy == "system":
        messages = with_system(plan.base, system_feedback(feedback, text))
    elif plan.tools_bound and state.partial is None and _calls(reply):
        messages = (*plan.base, *tool_turns(reply, feedback, outcome.tool_call_id))
    else:
        turn = AIMessage(text) if state.partial is not None else failed_turn(reply)
        messages = (*plan.base, turn, HumanMessage(feedback))
    event = _event(call, "truncated" if cut_off else _kind(error), feedback)
    return Ask(messages, State(attempts, keys), event)


def parse_input(state: State, reply: AIMessage) -> AIMessage:
    """What the parser reads: the reply, or the joined text when continuing.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> parse_input(State(partial='{"a": '), AIMessage("1}")).content
        '{"a": 1}'
    """
    if state.partial is None:
        return reply
    return AIMessage(
        _joined(state, reply), response_metadata=dict(reply.response_metadata)
    )


def reply_text(reply: BaseMessage) -> str:
    """A reply's text; its first tool call's arguments when it has no text.

    The arguments of a valid call as JSON; those of an invalid call as sent.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> call = {"name": "Person", "args": {"name": "Ada"}, "id": "1"}
        >>> reply_text(AIMessage("", tool_calls=[call]))
        '{"name": "Ada"}'
        >>> bad = {"name": "Person", "args": '{"name": "Ada",}', "id": "1"}
        >>> reply_text(AIMessage("", invalid_tool_calls=[bad]))
        '{"name": "Ada",}'
    """
    text = message_text(reply)
    if text.strip() or not isinstance(reply, AIMessage):
        return text
    calls = _calls(reply)
    return calls[0][2] if calls else text


def _calls(reply: BaseMessage) -> list[tuple[str | None, str, str]]:
    """``(id, name, arguments text)`` of each tool call, valid ones first."""
    if not isinstance(reply, AIMessage):
        return []
    calls: list[tuple[str | None, str, str]] = [
        (
            call.get("id"),
            call["name"],
            json.dumps(call["args"], ensure_ascii=False, default=str),
        )
        for call in reply.tool_calls
    ]
    calls.extend(
        (call.get("id"), call.get("name") or "", call.get("args") or "")
        for call in reply.invalid_tool_calls
    )
    return calls


def read_call(reply: AIMessage, name: str | None) -> tuple[str, str | None] | None:
    """The tool call a structured reply is read from: ``(arguments, id)``.

    The call named ``name`` (the schema's name) wins; else, when the reply has
    no text, its first call. ``None``: read the text.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> calls = [
        ...     {"name": "search", "args": {"q": "Ada"}, "id": "1"},
        ...     {"name": "Person", "args": {"name": "Ada"}, "id": "2"},
        ... ]
        >>> read_call(AIMessage("", tool_calls=calls), "Person")
        ('{"name": "Ada"}', '2')
    """
    calls = _calls(reply)
    if name:
        for call_id, call_name, arguments in calls:
            if call_name.casefold() == name.casefold():
                return arguments, call_id
    if calls and not str(reply.text).strip():
        return calls[0][2], calls[0][0]
    return None


def tool_turns(
    reply: AIMessage, feedback: str, failed_id: str | None
) -> tuple[BaseMessage, ...]:
    """The re-ask turns when tools are bound: the reply, then a result per call.

    The failed call's ``ToolMessage`` holds the feedback and the arguments as
    sent; every other call's says it was not executed (providers want a
    result for every tool-call id). When no call failed (the text did), the
    feedback follows as a user message.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> bad = {"name": "search", "args": '{"q": "x",}', "id": "c1"}
        >>> turns = tool_turns(AIMessage("", invalid_tool_calls=[bad]), "Bad.", "c1")
        >>> [(type(m).__name__, getattr(m, "status", "")) for m in turns]
        [('AIMessage', ''), ('ToolMessage', 'error')]
    """
    turns: list[BaseMessage] = [reply]
    for call_id, name, arguments in _calls(reply):
        if call_id is None:
            continue
        text = (
            call_feedback(name, feedback, arguments)
            if call_id == failed_id
            else NOT_EXECUTED
        )
        turns.append(
            ToolMessage(text, tool_call_id=call_id, name=name or None, status="error")
        )
    if failed_id is None or failed_id not in {c[0] for c in _calls(reply)}:
        turns.append(HumanMessage(feedback))
    return tuple(turns)


def failed_turn(reply: AIMessage) -> AIMessage:
    """The failed reply as it goes back into the conversation: no tool calls.

    A tool call left in would need a tool result after it; its content blocks
    are dropped too. The calls' arguments (as sent, for invalid ones) are
    shown as text after the reply's text, so the model sees what it sent.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> call = {"name": "Person", "args": {"age": "x"}, "id": "1"}
        >>> turn = failed_turn(AIMessage("", tool_calls=[call]))
        >>> turn.content, turn.tool_calls
        ('{"age": "x"}', [])
    """
    content: str | list[str | dict[Any, Any]]
    if isinstance(reply.content, str):
        content = reply.content
    else:
        content = [
            block
            for block in reply.content
            if not (isinstance(block, dict) and block.get("type") in _TOOL_BLOCKS)
        ]
    calls = _calls(reply)
    shown = (
        calls[0][2]
        if len(calls) == 1
        else "\n".join(f"{name}: {arguments}" for _, name, arguments in calls)
    )
    if not content or not str(AIMessage(content).text).strip():
        if shown.strip():
            content = shown
    elif shown.strip():
        if isinstance(content, str):
            content = f"{content}\n\n{shown}"
        else:
            content = [*content, {"type": "text", "text": shown}]
    return AIMessage(content=content, name=reply.name)


def with_system(base: Sequence[BaseMessage], text: str) -> tuple[BaseMessage, ...]:
    r"""Append ``text`` to the system message, or put one first. No mutation.

    Example:
        >>> from langchain_core.messages import HumanMessage, SystemMessage
        >>> base = [SystemMessage("Be terse."), HumanMessage("Hi")]
        >>> with_system(base, "Answer in JSON.")[0].content
        'Be terse.\n\nAnswer in JSON.'
        >>> base[0].content
        'Be terse.'
        >>> with_system([HumanMessage("Hi")], "Answer in JSON.")[0].content
        'Answer in JSON.'
    """
    for index, message in enumerate(base):
        if isinstance(message, SystemMessage):
            content: str | list[str | dict[Any, Any]]
            if isinstance(message.content, str):
                content = f"{message.content}\n\n{text}" if message.content else text
            else:
                content = [*message.content, {"type": "text", "text": text}]
            merged = message.model_copy(update={"content": content})
            return (*base[:index], merged, *base[index + 1 :])
    return (SystemMessage(text), *base)


def to_messages(value: LanguageModelInput) -> tuple[BaseMessage, ...]:
    """What a chat model takes (text, messages, a prompt value) as messages.

    Example:
        >>> to_messages("Hi")
        (HumanMessage(content='Hi', additional_kwargs={}, response_metadata={}),)

    Raises:
        TypeError: The value is none of these.
    """
    if isinstance(value, PromptValue):
        return tuple(value.to_messages())
    if isinstance(value, str):
        return (HumanMessage(value),)
    if isinstance(value, Sequence):
        return tuple(convert_to_messages(value))
    msg = f"expected a str, a list of messages or a PromptValue, got {type(value)}"
    raise TypeError(msg)


def as_reply(output: Any) -> AIMessage:
    """The model's output as an ``AIMessage`` (an LLM returns a ``str``).

    Example:
        >>> as_reply("hi").content
        'hi'

    Raises:
        TypeError: The output is neither a message nor a string.
    """
    if isinstance(output, AIMessage):
        return output
    if isinstance(output, BaseMessage):
        return AIMessage(
            content=output.content,
            response_metadata=dict(output.response_metadata),
            id=output.id,
        )
    if isinstance(output, str):
        return AIMessage(output)
    msg = f"the model returned a {type(output).__name__}, not a message or a string"
    raise TypeError(msg)


def total_usage(attempts: Sequence[Attempt]) -> UsageMetadata | None:
    """Token usage summed over the attempts (``None``: none reported any).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
        >>> reply = AIMessage("{}", usage_metadata=usage)
        >>> total_usage([Attempt(reply=reply, error=None, usage=usage)] * 2)
        {'input_tokens': 6, 'output_tokens': 4, 'total_tokens': 10}
    """
    usages = [a["usage"] for a in attempts if a["usage"] is not None]
    if not usages:
        return None
    total = functools.reduce(add_usage, usages[1:], usages[0])
    # add_usage builds its keys from a set: give them one order.
    ordered: UsageMetadata = {
        "input_tokens": total["input_tokens"],
        "output_tokens": total["output_tokens"],
        "total_tokens": total["total_tokens"],
    }
    for key in sorted(total.keys() - ordered.keys()):
        ordered[key] = total[key]  # type: ignore[literal-required]
    return ordered


def _joined(state: State, reply: AIMessage) -> str:
    text = reply_text(reply)
    return text if state.partial is None else state.partial + text


def _key(reply: AIMessage, text: str) -> bytes:
    """A failed reply's identity: its text (joined, when continuing) and calls.

    A digest, not a copy of the text: the loop keeps one per call. A
    continuation is compared by the joined text, which grows while the model
    makes progress, even when it sends the same piece twice.
    """
    calls: list[tuple[Any, Any]] = [(c["name"], c["args"]) for c in reply.tool_calls]
    calls.extend((c.get("name"), c.get("args")) for c in reply.invalid_tool_calls)
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16)
    digest.update(b"\x00" + json.dumps(calls, sort_keys=True, default=str).encode())
    return digest.digest()


def _kind(error: Exception) -> str:
    if isinstance(error, NoJsonFoundError):
        return "no_json"
    if isinstance(error, InvalidJsonError):
        return "invalid_json"
    if isinstance(error, SchemaValidationError):
        return "schema"
    if isinstance(error, JsonRecoveryError):
        return "too_large"
    return "parse_error"


def _event(call: int, kind: str, feedback: str) -> dict[str, Any]:
    return {"attempt": call, "error": kind, "feedback": feedback}


# --- the parser -----------------------------------------------------------------


def feedback_for(error: OutputParserException) -> str:
    """The feedback for a foreign parser's error: its observation, else its message.

    The message loses LangChain's troubleshooting URL and its copy of the reply.

    Example:
        >>> from langchain_core.output_parsers import JsonOutputParser
        >>> try:
        ...     JsonOutputParser().parse("no json")
        ... except OutputParserException as exc:
        ...     feedback_for(exc)
        'Invalid json output: your reply'
    """
    if error.observation:
        return foreign_feedback(str(error.observation))
    return clean_parser_message(str(error), str(error.llm_output or ""))


def _failed(error: OutputParserException) -> Rejected:
    return Rejected(error, feedback_for(error))


def _readable(
    reply: AIMessage, parser: BaseOutputParser[Any]
) -> tuple[AIMessage, str | None]:
    """What our parsers read: the schema-named (or only) tool call, or the reply.

    Returns the message to parse and the id of the call it came from.
    """
    schema = getattr(parser, "_schema", None)
    found = read_call(reply, getattr(schema, "name", None))
    if found is None:
        return reply, None
    arguments, call_id = found
    metadata = dict(reply.response_metadata)
    return AIMessage(arguments, response_metadata=metadata), call_id


def parse(parser: BaseOutputParser[Any], reply: AIMessage) -> Outcome:
    """Parse one reply; a refusal raises, a parse error becomes feedback.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> parse(JsonFenceOutputParser(), AIMessage('{"a": 1}')).value
        {'a': 1}

    Raises:
        ModelRefusalError: The model refused.
    """
    if isinstance(parser, _JsonRecoveringParser):
        raise_if_refused(reply)
        readable, call_id = _readable(reply, parser)
        step = parser.process(readable)
        if isinstance(step, Continue):
            return step
        return Rejected(step.error, str(step.feedback.text), call_id)
    raise_if_refused(reply)
    try:
        value = parser.parse_result([ChatGeneration(message=reply)])
    except OutputParserException as error:
        return _failed(error)
    return Continue(value, reply)


async def aparse(parser: BaseOutputParser[Any], reply: AIMessage) -> Outcome:
    """Async twin of :func:`parse`.

    Raises:
        ModelRefusalError: The model refused.
    """
    if isinstance(parser, _JsonRecoveringParser):
        raise_if_refused(reply)
        readable, call_id = _readable(reply, parser)
        step = await parser.aprocess(readable)
        if isinstance(step, Continue):
            return step
        return Rejected(step.error, str(step.feedback.text), call_id)
    raise_if_refused(reply)
    try:
        value = await parser.aparse_result([ChatGeneration(message=reply)])
    except OutputParserException as error:
        return _failed(error)
    return Continue(value, reply)


def parse_continued(
    parser: BaseOutputParser[Any], state: State, reply: AIMessage
) -> Outcome:
    """Parse a reply; a continuation is read joined, or else on its own.

    A model asked to continue a cut-off reply may start over: when the
    joined text does not parse and the continuation parses on its own, the
    continuation wins.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> parser = JsonFenceOutputParser()
        >>> state = State(partial='{"a": [1, 2')
        >>> parse_continued(parser, state, AIMessage("]}")).value
        {'a': [1, 2]}
        >>> parse_continued(parser, state, AIMessage('{"a": [1, 2, 3]}')).value
        {'a': [1, 2, 3]}
    """
    outcome = parse(parser, parse_input(state, reply))
    if state.partial is None or isinstance(outcome, Continue):
        return outcome
    alone = parse(parser, reply)
    return alone if isinstance(alone, Continue) else outcome


async def aparse_continued(
    parser: BaseOutputParser[Any], state: State, reply: AIMessage
) -> Outcome:
    """Async twin of :func:`parse_continued`."""
    outcome = await aparse(parser, parse_input(state, reply))
    if state.partial is None or isinstance(outcome, Continue):
        return outcome
    alone = await aparse(parser, reply)
    return alone if isinstance(alone, Continue) else outcome


def has_bound_tools(model: Runnable[Any, Any]) -> bool:
    """Whether ``model`` is a chat model with tools bound (``bind_tools``).

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> model = GenericFakeChatModel(messages=iter([]))
        >>> has_bound_tools(model), has_bound_tools(model.bind(tools=[{}]))
        (False, True)
    """
    return isinstance(model, RunnableBinding) and bool(model.kwargs.get("tools"))


def check_model(model: Any, argument: str = "model") -> None:
    """Raise ``TypeError`` unless ``model`` is a chat model or a Runnable.

    Example:
        >>> check_model("openai:gpt-4o-mini")
        Traceback (most recent call last):
        ...
        TypeError: model must be a chat model or a Runnable, got a str ...
    """
    if isinstance(model, Runnable):
        return
    hint = (
        " (a model name: build the model first, e.g. with "
        "langchain.chat_models.init_chat_model)"
        if isinstance(model, str)
        else ""
    )
    msg = (
        f"{argument} must be a chat model or a Runnable, "
        f"got a {type(model).__name__}{hint}"
    )
    raise TypeError(msg)


def check_parser(parser: Any, argument: str = "parser") -> None:
    """Raise ``TypeError`` unless ``parser`` is an output parser instance.

    Example:
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> check_parser(JsonFenceOutputParser)
        Traceback (most recent call last):
        ...
        TypeError: parser must be a parser instance, got the class ...
    """
    if isinstance(parser, type):
        msg = (
            f"{argument} must be a parser instance, got the class "
            f"{parser.__name__}: write {parser.__name__}()"
        )
        raise TypeError(msg)
    if not isinstance(parser, BaseOutputParser):
        msg = f"{argument} must be an output parser, got a {type(parser).__name__}"
        raise TypeError(msg)


# --- the chain ------------------------------------------------------------------


def attempt_tag(call: int) -> str:
    """The tag of model call ``call`` (1-based) and of the event about it.

    Example:
        >>> attempt_tag(2)
        'jsonrecover:attempt:2'
    """
    return f"jsonrecover:attempt:{call}"


def attempt_config(
    config: RunnableConfig,
    run_manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
    call: int,
) -> RunnableConfig:
    """The config of model call ``call``: a child run, tagged for that call.

    The tag is inherited, so the chat model inside a sequence
    (``model.with_structured_output(...)``, ``prompt | model``) carries it
    too, not only the sequence.
    """
    child = patch_config(config, callbacks=run_manager.get_child())
    child["tags"] = [*child.get("tags", ()), attempt_tag(call)]
    return child


def _check_retries(value: int) -> int:
    if value < 0:
        msg = f"max_retries counts re-asks and cannot be negative, got {value}"
        raise ValueError(msg)
    return value


class JsonRetryChain(RunnableSerializable[LanguageModelInput, T]):
    r"""Invoke the model, parse; on failure say what was wrong and ask again.

    The input is whatever a chat model takes (text, messages, a prompt value),
    so ``prompt | JsonRetryChain(model=..., parser=...)`` works. Each call's
    reply goes to ``parser``: any LangChain ``BaseOutputParser``; this
    package's parsers give precise feedback (for a schema mismatch: the
    failing field and pydantic's message), another parser's
    ``OutputParserException`` gives its observation, else its message without
    LangChain's troubleshooting URL and without the copy of the reply.

    - ``feedback_strategy="user"`` (AgentSea's way): a re-ask sends the
      original messages, the failed reply (its tool calls' arguments shown
      as text) and the feedback as a user message. When ``model`` has tools
      bound (``model.bind_tools(...)``) and the failed reply called tools,
      it goes back unchanged, followed by one error ``ToolMessage`` per
      tool-call id (the failed call's holds the feedback and its arguments).
      Only the latest failed reply and its feedback are kept, so the context
      stays bounded.
    - ``"system"`` (Normandy's way): the conversation is not extended; the
      feedback and the start of the failed reply (at most 500 characters) are
      added to the system message, or to a new one put first.
    - A reply identical to an earlier failed one stops the loop at once (the
      model is stuck): ``RetryExhaustedError`` with ``repeats`` set. A
      continuation is compared by the joined text: the same piece sent twice
      is progress, a piece that adds nothing is not.
    - A cut-off reply (the model stopped at its token limit, or the JSON is
      still open where the reply ends): ``on_truncation="reask"`` asks for a
      shorter answer; ``"continue"`` asks the model to continue exactly where
      it stopped (always as a new turn) and parses the joined text. Each
      continuation counts against ``max_retries``.
    - ``max_retries`` counts re-asks: at most ``1 + max_retries`` model calls.
    - A refusal (``ModelRefusalError``) and errors of the model call itself
      propagate at once, unretried: compose ``model.with_retry()`` for
      transport errors.
    - The caller's messages are never mutated.
    - ``stream``/``astream`` yield the final value as one item.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> model = GenericFakeChatModel(
        ...     messages=iter(['Sure: {"city": "Paris",}', '{"city": "Paris"}'])
        ... )
        >>> chain = JsonRetryChain(model=model, parser=JsonFenceOutputParser())
        >>> chain.invoke("Where is the Louvre? Answer in JSON.")
        {'city': 'Paris'}
    """

    model: Annotated[Runnable[LanguageModelInput, Any], SkipValidation()]
    """The chat model (or any runnable that returns a message or text)."""

    parser: Annotated[BaseOutputParser[Any], SkipValidation()]
    """Parses each reply; its errors become the feedback."""

    max_retries: int = 2
    """Re-asks allowed after the first call (Normandy's default, 2)."""

    feedback_strategy: FeedbackStrategy = "user"
    """``"user"``: the failed reply and the feedback as new turns;
    ``"system"``: the feedback in the system message."""

    include_raw: bool = False
    """Return ``{"raw", "parsed", "parsing_error", "attempts", "usage"}``
    instead of the value, and never raise for a parse failure."""

    on_truncation: OnTruncation = "reask"
    """A cut-off reply: ``"reask"`` for a shorter answer, or ``"continue"``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @overload
    def __init__(
        self: JsonRetryChain[P],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[P],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: Literal[False] = False,
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    @overload
    def __init__(
        self: JsonRetryChain[RetryResult[P]],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[P],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: Literal[True],
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    @overload
    def __init__(
        self: JsonRetryChain[Any],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[Any],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: bool,
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    def __init__(self, **kwargs: Any) -> None:
        """Create the chain.

        Args:
            **kwargs: The fields: ``model``, ``parser``, ``max_retries``,
                ``feedback_strategy``, ``include_raw``, ``on_truncation``.

        Raises:
            TypeError: ``model`` is not a Runnable, or ``parser`` not a parser
                instance.
            ValueError: ``max_retries`` is negative, or a field is invalid.
        """
        if "model" in kwargs:
            check_model(kwargs["model"])
        if "parser" in kwargs:
            check_parser(kwargs["parser"])
        retries = kwargs.get("max_retries", 0)
        if isinstance(retries, int):
            _check_retries(retries)
        super().__init__(**kwargs)

    @field_validator("max_retries")
    @classmethod
    def _valid_retries(cls, value: int) -> int:
        return _check_retries(value)

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        """What a chat model takes."""
        return str | StringPromptValue | ChatPromptValueConcrete | list[AnyMessage]

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """The parser's output type, or a ``dict`` with ``include_raw``."""
        return dict[str, Any] if self.include_raw else self.parser.OutputType

    def plan(self, base: Sequence[BaseMessage]) -> Plan:
        """This chain's fixed settings over a conversation.

        Example:
            >>> from langchain_core.language_models import GenericFakeChatModel
            >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
            >>> chain = JsonRetryChain(
            ...     model=GenericFakeChatModel(messages=iter([])),
            ...     parser=JsonFenceOutputParser(),
            ... )
            >>> chain.plan([]).max_retries
            2
        """
        return Plan(
            tuple(base),
            self.max_retries,
            self.feedback_strategy,
            self.on_truncation,
            tools_bound=has_bound_tools(self.model),
        )

    def invoke(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> T:
        """Ask until a reply parses.

        Args:
            input: What a chat model takes.
            config: The runnable config.
            **kwargs: Passed to each model call (``stop=`` …).

        Returns:
            The parsed value; with ``include_raw``, the ``RetryResult``.

        Raises:
            RetryExhaustedError: No reply parsed (not with ``include_raw``).
            ModelRefusalError: The model refused.
        """
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> T:
        """Async twin of :meth:`invoke`.

        Args:
            input: What a chat model takes.
            config: The runnable config.
            **kwargs: Passed to each model call.

        Returns:
            The parsed value; with ``include_raw``, the ``RetryResult``.

        Raises:
            RetryExhaustedError: No reply parsed (not with ``include_raw``).
            ModelRefusalError: The model refused.
        """
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    def _invoke(
        self,
        input_: LanguageModelInput,
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        plan = self.plan(to_messages(input_))
        return self.drive(plan, first_ask(plan), run_manager, config, **kwargs)

    async def _ainvoke(
        self,
        input_: LanguageModelInput,
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        plan = self.plan(to_messages(input_))
        return await self.adrive(plan, first_ask(plan), run_manager, config, **kwargs)

    def drive(
        self,
        plan: Plan,
        move: Move,
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        """Run the loop from ``move`` (the sync driver).

        Returns:
            The value, or the ``RetryResult``.
        """
        while isinstance(move, Ask):
            if move.event is not None:
                failed = attempt_config(config, run_manager, move.event["attempt"])
                dispatch_custom_event(RETRY_EVENT, move.event, config=failed)
                write_to_stream(RETRY_EVENT, move.event)
            call = len(move.state.attempts) + 1
            child = attempt_config(config, run_manager, call)
            reply = as_reply(self.model.invoke(list(move.messages), child, **kwargs))
            outcome = parse_continued(self.parser, move.state, reply)
            move = next_move(plan, move.state, reply, outcome)
        return self.finish(move)

    async def adrive(
        self,
        plan: Plan,
        move: Move,
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        """Run the loop from ``move`` (the async driver).

        Returns:
            The value, or the ``RetryResult``.
        """
        while isinstance(move, Ask):
            if move.event is not None:
                failed = attempt_config(config, run_manager, move.event["attempt"])
                await adispatch_custom_event(RETRY_EVENT, move.event, config=failed)
                write_to_stream(RETRY_EVENT, move.event)
            call = len(move.state.attempts) + 1
            child = attempt_config(config, run_manager, call)
            output = await self.model.ainvoke(list(move.messages), child, **kwargs)
            reply = as_reply(output)
            outcome = await aparse_continued(self.parser, move.state, reply)
            move = next_move(plan, move.state, reply, outcome)
        return self.finish(move)

    def finish(self, move: Done | GiveUp) -> T:
        """The chain's output for the last move.

        Returns:
            The value, or the ``RetryResult`` with ``include_raw``.

        Raises:
            RetryExhaustedError: ``move`` is a ``GiveUp`` (not with ``include_raw``).
        """
        if self.include_raw:
            result: RetryResult[Any] = {
                "raw": move.reply,
                "parsed": move.value if isinstance(move, Done) else None,
                "parsing_error": move.error if isinstance(move, GiveUp) else None,
                "attempts": list(move.attempts),
                "usage": total_usage(move.attempts),
            }
            return result  # type: ignore[return-value]
        if isinstance(move, Done):
            value: T = move.value
            return value
        raise exhausted(move) from move.error


def exhausted(move: GiveUp) -> RetryExhaustedError:
    """The error for a run that ended without a usable reply.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> error = OutputParserException("bad")
        >>> move = GiveUp(AIMessage("x"), "x", error, "Send JSON.", ())
        >>> exhausted(move).observation
        'Send JSON.'
    """
    calls = len(move.attempts)
    name = type(move.error).__name__
    error = move.error
    detail = (
        clean_parser_message(str(error), str(error.llm_output or ""))
        if isinstance(error, OutputParserException)
        and not isinstance(error, JsonRecoveryError)
        else str(error)
    )
    message = (
        stuck_message(calls, move.repeats, name, detail)
        if move.repeats is not None
        else exhausted_message(calls, name, detail)
    )
    text = move.text
    parsed = getattr(error, "llm_output", None)
    if isinstance(parsed, str) and parsed == text:
        text = parsed  # the cause's string: one copy of a continued reply
    return RetryExhaustedError(
        message,
        attempts=move.attempts,
        llm_output=text,
        observation=move.feedback,
        repeats=move.repeats,
    )
