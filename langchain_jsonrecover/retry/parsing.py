"""Parsing each reply of the retry loop, with our parser or another one.

Internal to the retry loop (``retry``, ``structured``, ``agents``); not a
public API. A refusal raises; a reply that does not parse becomes a
:class:`~langchain_jsonrecover.retry.steps.Rejected` with its feedback: our
parsers' own, another parser's observation or cleaned message. Each parse is a
generator of :class:`~langchain_jsonrecover._core.sync_or_async.Call`, so the sync
and the async loop share it (the parser's ``process``/``aprocess``,
``parse_result``/``aparse_result``).
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

import pydantic_core
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from langchain_core.runnables.config import run_in_executor

from langchain_jsonrecover._core.decode.joins import (
    MAX_READINGS,
    Reading,
    join_readings,
    restart_at,
)
from langchain_jsonrecover._core.prompts.retry import (
    CONTINUE_REQUEST,
    WHOLE_REQUEST,
    clean_parser_message,
    cut_foreign_feedback,
)
from langchain_jsonrecover._core.reply.record import stopped_at_token_limit
from langchain_jsonrecover._core.sync_or_async import Call
from langchain_jsonrecover.errors import InvalidJsonError, JsonRecoveryError
from langchain_jsonrecover.outcomes import Continue
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.base import (
    OFF_LOOP_CHARS,
    _JsonRecoveringParser,
    raise_if_refused,
)
from langchain_jsonrecover.parsers.streaming import message_text
from langchain_jsonrecover.retry.steps import Outcome, Rejected, State
from langchain_jsonrecover.retry.turns import (
    list_tool_calls,
    read_call,
    read_reply_text,
)

if TYPE_CHECKING:
    from collections.abc import Generator

    from langchain_core.output_parsers import BaseOutputParser


def explain_foreign_error(error: OutputParserException) -> str:
    """The feedback for a foreign parser's error: its observation, else its message.

    The message loses LangChain's troubleshooting URL and its copy of the reply.

    Example:
        >>> from langchain_core.output_parsers import JsonOutputParser
        >>> try:
        ...     JsonOutputParser().parse("no json")
        ... except OutputParserException as exc:
        ...     explain_foreign_error(exc)
        'Invalid json output: your reply'
    """
    if error.observation:
        return cut_foreign_feedback(str(error.observation))
    return clean_parser_message(str(error), str(error.llm_output or ""))


def parse_reply(
    parser: BaseOutputParser[Any], reply: AIMessage
) -> Generator[Call, Any, Outcome]:
    """Parse one reply; a refusal raises, a parse error becomes feedback.

    Our parsers read the schema-named (or only) tool call when there is one.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover._core.sync_or_async import run_steps
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> parser = JsonFenceOutputParser()
        >>> run_steps(parse_reply(parser, AIMessage('{"a": 1}'))).value
        {'a': 1}

    Raises:
        ModelRefusalError: The model refused.
    """
    raise_if_refused(reply)
    if isinstance(parser, _JsonRecoveringParser):
        doubled = doubled_call(reply, parser)
        if doubled is not None:
            return Rejected(InvalidJsonError(doubled, observation=doubled), doubled)
        readable, call_id = _pick_readable(reply, parser)
        step = yield Call(parser.process, parser.aprocess, (readable,))
        if isinstance(step, Continue):
            return step
        return Rejected(step.error, str(step.feedback.text), call_id)
    generations = [ChatGeneration(message=reply)]
    try:
        value = yield Call(parser.parse_result, parser.aparse_result, (generations,))
    except OutputParserException as error:
        return Rejected(error, explain_foreign_error(error))
    return Continue(value, reply)


def parse_continued(
    parser: BaseOutputParser[Any],
    state: State,
    reply: AIMessage,
    *,
    continue_cuts: bool = False,
) -> Generator[Call, Any, Outcome]:
    """Parse a reply; a continuation is read in every way it can join.

    A model asked to continue a cut-off reply may do it exactly, repeat what
    the reply ended with, put a sentence first, or start over: each reading
    (``_joins``) is parsed, and a value is kept only where every reading that
    gives one gives the same, and lies across the join or is the restart's
    from its start (where our parser, or for another parser our plain one,
    finds it). Readings that disagree ask for
    the whole answer again; readings still cut off are all continued. With
    ``continue_cuts`` (``on_truncation="continue"``), a reply that stopped
    at the token limit gives no value at all, even where a parser closes it
    or finds a complete value inside it: its text is continued.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover._core.sync_or_async import run_steps
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> parser = JsonFenceOutputParser()
        >>> state = State(partial='{"a": [1, 2')
        >>> run_steps(parse_continued(parser, state, AIMessage("]}"))).value
        {'a': [1, 2]}
        >>> again = AIMessage('{"a": [1, 2, 3]}')
        >>> run_steps(parse_continued(parser, state, again)).value
        {'a': [1, 2, 3]}
        >>> cut = State(partial="[101, 102, 10")
        >>> run_steps(parse_continued(parser, cut, AIMessage("103]"))).whole
        True

    Raises:
        ModelRefusalError: The model refused.
    """
    metadata = dict(reply.response_metadata)
    at_limit = continue_cuts and stopped_at_token_limit(metadata)
    if state.partial is None:
        outcome = yield from parse_reply(parser, reply)
        if continue_cuts and isinstance(outcome, Continue):
            text = read_reply_text(reply)
            if at_limit or (yield Call(_is_open, _ais_open, (text,))):
                return _open(text, ())
        return outcome
    raise_if_refused(reply)
    piece = read_reply_text(reply)
    readings = join_readings((state.partial, *state.alternatives), piece)
    restart = restart_at(state.partial, piece)
    if restart is not None:
        readings.append(Reading(piece, -1))
    exact: Outcome | None = None
    values: dict[str, Continue[Any]] = {}
    still_open: list[str] = []
    for reading in readings:
        message = AIMessage(reading.text, response_metadata=metadata)
        outcome = yield from parse_reply(parser, message)
        exact = outcome if exact is None else exact
        if isinstance(outcome, Rejected):
            if _is_cut(outcome.error):
                still_open.append(reading.text)
            continue
        # Another parser's value needs JSON our plain parser reads there too.
        judge = parser if isinstance(parser, _JsonRecoveringParser) else _PLAIN
        span = yield Call(_span_of, _aspan_of, (judge, message))
        across = _lies_across(span, reading, restart)
        if at_limit or not across:
            still_open.append(reading.text)  # a value beside the join, or cut
            continue
        if continue_cuts and (yield Call(_is_open, _ais_open, (reading.text,))):
            still_open.append(reading.text)  # closed by the parser: not written
            continue
        values.setdefault(_value_key(outcome.value), outcome)
    if len(values) > 1 or len(still_open) > MAX_READINGS:
        return _ambiguous(state.partial, piece, len(values) or len(still_open))
    if values:
        return next(iter(values.values()))
    if still_open:
        if isinstance(exact, Rejected) and _is_cut(exact.error):
            return dataclasses.replace(exact, readings=tuple(still_open))
        return _open(readings[0].text, tuple(still_open))
    if isinstance(exact, Rejected):
        return exact
    return _open(readings[0].text, ())


def _is_open(text: str) -> bool:
    """Whether the JSON is still open where the text ends.

    Our plain parser's ``truncated``: a value another parser read from such
    a text was closed by it, not written by the model.
    """
    try:
        _PLAIN.extract(text)
    except InvalidJsonError as error:
        return error.truncated
    except JsonRecoveryError:
        return False
    return False


async def _ais_open(text: str) -> bool:
    """Async twin of :func:`_is_open` (a text over 1 MB is read off the loop)."""
    if len(text) > OFF_LOOP_CHARS:
        return bool(await run_in_executor(None, _is_open, text))
    return _is_open(text)


def _open(text: str, readings: tuple[str, ...]) -> Rejected:
    """A reply to continue: cut at the token limit, whatever a parser read."""
    message = (
        "The reply was cut off at the token limit: it is continued, not read "
        "(a value in it is not the whole answer)."
    )
    error = InvalidJsonError(
        message, llm_output=text, observation=CONTINUE_REQUEST, truncated=True
    )
    return Rejected(error, CONTINUE_REQUEST, readings=readings)


def _is_cut(error: Exception) -> bool:
    return isinstance(error, InvalidJsonError) and error.truncated


_PLAIN: Any = JsonFenceOutputParser()
"""Says whether a text's JSON is still open (its own errors only)."""


def _span_of(
    parser: _JsonRecoveringParser[Any], message: AIMessage
) -> tuple[int, int] | None:
    """Where our parser's value lies in the message's text (``None``: no value)."""
    try:
        return parser.extract(message).span
    except JsonRecoveryError:
        return None


async def _aspan_of(
    parser: _JsonRecoveringParser[Any], message: AIMessage
) -> tuple[int, int] | None:
    """Async twin of :func:`_span_of` (a text over 1 MB is read off the loop)."""
    if len(message_text(message)) > OFF_LOOP_CHARS:
        return await run_in_executor(None, _span_of, parser, message)
    return _span_of(parser, message)


def _lies_across(
    span: tuple[int, int] | None, reading: Reading, restart: int | None
) -> bool:
    """Whether a value lies across the join (a restart's: at the restart).

    A value wholly on one side is another candidate the text holds (an
    object inside the restarted answer, an example in the cut reply), not a
    reading of the join.
    """
    if span is None:
        return False
    start, end = span
    if reading.join < 0:
        return start == restart
    return start < reading.join < end


def _value_key(value: Any) -> str:
    """Equal for two values iff they are the same JSON data (``1`` is not ``1.0``)."""
    data = pydantic_core.to_jsonable_python(value, fallback=repr)
    return json.dumps(data, sort_keys=True, ensure_ascii=True, default=repr)


def _ambiguous_error(piece: str, count: int) -> InvalidJsonError:
    ways = f"{count} ways that disagree" if count else "no way that parses"
    message = (
        f"The continuation joins the cut-off reply in {ways}: it repeats text "
        "the reply ended with, or adds other text, and no reading is sure."
    )
    return InvalidJsonError(message, llm_output=piece, observation=WHOLE_REQUEST)


def _ambiguous(partial: str, piece: str, count: int) -> Rejected:
    error = _ambiguous_error(piece, count)
    error.llm_output = partial + piece
    return Rejected(error, WHOLE_REQUEST, whole=True)


def doubled_call(reply: AIMessage, parser: BaseOutputParser[Any]) -> str | None:
    """Why a reply with several calls of the schema, not all alike, is not read.

    Reading the first of two calls with different arguments would pick one
    of two answers: the model is asked for one.
    """
    name = getattr(getattr(parser, "_schema", None), "name", None)
    if not name:
        return None
    named = {
        arguments.strip()
        for _, call_name, arguments in list_tool_calls(reply)
        if call_name.casefold() == name.casefold()
    }
    if len(named) < 2:
        return None
    return (
        f"The reply holds {len(named)} calls to {name!r} with different "
        "arguments, two answers; none was used. Send one call with the answer."
    )


def _pick_readable(
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
