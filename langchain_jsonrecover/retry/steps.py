r"""The retry loop's pure step: what comes after each reply. No model calls.

Internal to the retry loop (``retry``, ``structured``, ``agents`` drive it);
not a public API, except :class:`Attempt` and :func:`next_move`, which
``langchain_jsonrecover.retry`` exports. A :class:`Plan` holds what stays
fixed over a run, a :class:`State` what the loop has seen; :func:`next_move`
takes the last reply and what the parser made of it and answers with a
:data:`Move`: :class:`Done`, :class:`Ask` (these messages, this event) or
:class:`GiveUp`. It uses LangChain's message classes, so it is an adapter
module, not a core one.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.ai import UsageMetadata, add_usage

from langchain_jsonrecover._core.prompts.retry import (
    CONTINUE_REQUEST,
    ask_shorter,
    clean_parser_message,
    write_exhausted_message,
    write_stuck_message,
    write_system_feedback,
)
from langchain_jsonrecover._core.reply.record import stopped_at_token_limit
from langchain_jsonrecover.errors import (
    Attempt,
    InvalidJsonError,
    JsonRecoveryError,
    RetryExhaustedError,
)
from langchain_jsonrecover.outcomes import Continue
from langchain_jsonrecover.retry.turns import (
    append_to_system,
    build_failed_turn,
    build_tool_turns,
    list_tool_calls,
    read_reply_text,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

FeedbackStrategy = Literal["user", "system"]
OnTruncation = Literal["reask", "continue"]

FOREIGN_KIND: Final = "parse_error"
"""The kind a ``jsonrecover.retry`` event reports for another parser's error."""


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
    vet: Callable[[AIMessage], Exception | None] | None = None
    """Why a reply whose text parsed is still no answer, if it is not
    (``structured_output``: the answer read from another tool's call)."""


@dataclass(frozen=True, slots=True)
class State:
    """What the loop has seen so far."""

    attempts: tuple[Attempt, ...] = ()
    """Every model call so far."""
    keys: tuple[bytes, ...] = ()
    """Each failed reply's identity, in call order (for the loop guard): a
    digest of its text (the joined text, when continuing) and tool calls."""
    partial: str | None = None
    """The text so far of a cut-off reply being continued (the exact join)."""
    alternatives: tuple[str, ...] = ()
    """Other readings of the text so far: the joins without an overlap that
    an earlier continuation repeated (each is continued too)."""


@dataclass(frozen=True, slots=True)
class Rejected:
    """A reply that did not parse."""

    error: Exception
    """The parse error."""
    feedback: str
    """What to tell the model."""
    tool_call_id: str | None = None
    """The id of the tool call whose arguments failed, when one did."""
    readings: tuple[str, ...] = ()
    """Each reading of a continued reply that is still cut off, the exact
    join first: what the next continuation extends."""
    whole: bool = False
    """Ask for the whole answer again, not for a continuation: the readings
    of a continuation disagree."""


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
    text = _join_reply(state, reply)
    usage = reply.usage_metadata
    if isinstance(outcome, Continue) and plan.vet is not None and not state.partial:
        refused = plan.vet(reply)
        if refused is not None:
            observation = getattr(refused, "observation", None)
            outcome = Rejected(refused, str(observation or refused))
    if isinstance(outcome, Continue):
        attempt = Attempt(reply=reply, error=None, usage=usage)
        return Done(outcome.value, reply, (*state.attempts, attempt))
    error, feedback = outcome.error, outcome.feedback
    attempts = (*state.attempts, Attempt(reply=reply, error=error, usage=usage))
    call = len(attempts)
    key = _fingerprint(reply, text)
    if key in state.keys:
        repeats = state.keys.index(key) + 1
        return GiveUp(reply, text, error, feedback, attempts, repeats)
    if call > plan.max_retries:
        return GiveUp(reply, text, error, feedback, attempts)
    keys = (*state.keys, key)
    if outcome.whole:
        return _ask_whole(plan, state, call, outcome, State(attempts, keys))
    cut_off = stopped_at_token_limit(reply.response_metadata) or (
        isinstance(error, InvalidJsonError) and error.truncated
    )
    if cut_off and plan.on_truncation == "continue":
        messages = (*plan.base, AIMessage(text), HumanMessage(CONTINUE_REQUEST))
        event = _make_event(call, "truncated", CONTINUE_REQUEST)
        others = tuple(t for t in outcome.readings if t != text)
        next_state = State(attempts, keys, partial=text, alternatives=others)
        return Ask(messages, next_state, event)
    if cut_off and not isinstance(error, JsonRecoveryError):
        feedback = ask_shorter(feedback)
    if plan.strategy == "system":
        messages = append_to_system(plan.base, write_system_feedback(feedback, text))
    elif plan.tools_bound and state.partial is None and list_tool_calls(reply):
        messages = (
            *plan.base,
            *build_tool_turns(reply, feedback, outcome.tool_call_id),
        )
    else:
        turn = (
            AIMessage(text) if state.partial is not None else build_failed_turn(reply)
        )
        messages = (*plan.base, turn, HumanMessage(feedback))
    event = _make_event(call, "truncated" if cut_off else classify(error), feedback)
    return Ask(messages, State(attempts, keys), event)


def _ask_whole(
    plan: Plan, state: State, call: int, outcome: Rejected, fresh: State
) -> Ask:
    """Ask for the whole answer again: the continuation joins in two ways.

    The cut reply goes back as it was (not a join of it), then the request.
    """
    shown = state.partial if state.partial is not None else ""
    feedback = outcome.feedback
    if plan.strategy == "system":
        messages = append_to_system(plan.base, write_system_feedback(feedback, shown))
    else:
        messages = (*plan.base, AIMessage(shown), HumanMessage(feedback))
    event = _make_event(call, classify(outcome.error), feedback)
    return Ask(messages, fresh, event)


def sum_usage(attempts: Sequence[Attempt]) -> UsageMetadata | None:
    """Token usage summed over the attempts (``None``: none reported any).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
        >>> reply = AIMessage("{}", usage_metadata=usage)
        >>> sum_usage([Attempt(reply=reply, error=None, usage=usage)] * 2)
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


def _join_reply(state: State, reply: AIMessage) -> str:
    text = read_reply_text(reply)
    return text if state.partial is None else state.partial + text


def _fingerprint(reply: AIMessage, text: str) -> bytes:
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


def classify(error: Exception) -> str:
    """The kind a ``jsonrecover.retry`` event reports for a parse error.

    Ours name their own (``type(error).kind``); another parser's error is a
    ``parse_error``.

    Example:
        >>> from langchain_jsonrecover.errors import NoJsonFoundError
        >>> classify(NoJsonFoundError("none")), classify(ValueError("bad"))
        ('no_json', 'parse_error')
    """
    if isinstance(error, JsonRecoveryError):
        return type(error).kind
    return FOREIGN_KIND


def _make_event(call: int, kind: str, feedback: str) -> dict[str, Any]:
    return {"attempt": call, "error": kind, "feedback": feedback}


def build_exhausted_error(move: GiveUp) -> RetryExhaustedError:
    """The error for a run that ended without a usable reply.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> error = OutputParserException("bad")
        >>> move = GiveUp(AIMessage("x"), "x", error, "Send JSON.", ())
        >>> build_exhausted_error(move).observation
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
        write_stuck_message(calls, move.repeats, name, detail)
        if move.repeats is not None
        else write_exhausted_message(calls, name, detail)
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
