"""Parsing each reply of the retry loop, with our parser or another one.

Internal to the retry loop (``retry``, ``structured``, ``agents``); not a
public API. A refusal raises; a reply that does not parse becomes a
:class:`~langchain_jsonrecover.retry_steps.Rejected` with its feedback: our
parsers' own, another parser's observation or cleaned message. Each parse is a
generator of :class:`~langchain_jsonrecover._sync_or_async.Call`, so the sync
and the async loop share it (the parser's ``process``/``aprocess``,
``parse_result``/``aparse_result``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from langchain_jsonrecover._retry_prompts import (
    clean_parser_message,
    cut_foreign_feedback,
)
from langchain_jsonrecover._sync_or_async import Call
from langchain_jsonrecover.errors import InvalidJsonError
from langchain_jsonrecover.outcomes import Continue
from langchain_jsonrecover.parser_base import _JsonRecoveringParser, raise_if_refused
from langchain_jsonrecover.retry_steps import Outcome, Rejected, State, join_partial
from langchain_jsonrecover.retry_turns import list_tool_calls, read_call

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
        >>> from langchain_jsonrecover._sync_or_async import run_steps
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
    parser: BaseOutputParser[Any], state: State, reply: AIMessage
) -> Generator[Call, Any, Outcome]:
    """Parse a reply; a continuation is read joined, or else on its own.

    A model asked to continue a cut-off reply may start over: when the
    joined text does not parse and the continuation parses on its own, the
    continuation wins.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover._sync_or_async import run_steps
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> parser = JsonFenceOutputParser()
        >>> state = State(partial='{"a": [1, 2')
        >>> run_steps(parse_continued(parser, state, AIMessage("]}"))).value
        {'a': [1, 2]}
        >>> again = AIMessage('{"a": [1, 2, 3]}')
        >>> run_steps(parse_continued(parser, state, again)).value
        {'a': [1, 2, 3]}
    """
    outcome = yield from parse_reply(parser, join_partial(state, reply))
    if state.partial is None or isinstance(outcome, Continue):
        return outcome
    alone = yield from parse_reply(parser, reply)
    return alone if isinstance(alone, Continue) else outcome


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
