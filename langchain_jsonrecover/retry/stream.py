"""Streaming through the retry loop: each attempt's partial values as they come.

Internal to ``retry`` and ``structured``; not a public API. One
:class:`AttemptStream` per model call turns the streamed chunks into the items
``stream`` yields: the parser's own partial value of the text so far (its
``parse_result(..., partial=True)``, so whatever partials the parser streams,
the loop streams), or, for a reply that calls a tool, of the first call's
arguments so far (its ``tool_call_chunks``). A continuation starts from the
text it continues, so its partials extend the same value. Re-parses are paced
as the parsers pace theirs (``StreamState``): linear in the reply.

With ``include_raw`` each item is a new plain dict, ``{"parsed", "raw",
"attempt", "parsing_error"}``, with ``raw`` the message so far; without, the
partial value itself.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import Generation
from langchain_core.runnables import Runnable, RunnableParallel, RunnableSequence

from langchain_jsonrecover.parsers.streaming import NOTHING, StreamState, message_text
from langchain_jsonrecover.parsers.streaming import _merge as merge_chunks
from langchain_jsonrecover.retry.turns import read_call

if TYPE_CHECKING:
    from langchain_core.output_parsers import BaseOutputParser

__all__ = [
    "AttemptStream",
    "StreamedRaw",
    "as_message",
    "partial_of",
    "split_native",
    "to_ai_message",
]


def partial_of(parser: BaseOutputParser[Any], text: str) -> Any:
    """The parser's value so far of ``text``, or ``None`` (no value yet).

    A parser without a partial mode, or one whose partial parse raises, has
    no partial value: its attempt streams no item until the reply is whole.

    Example:
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> partial_of(JsonFenceOutputParser(), '{"a": 1, "b": [2')
        {'a': 1, 'b': []}
    """
    try:
        return parser.parse_result([Generation(text=text)], partial=True)
    except (OutputParserException, ValueError, TypeError, NotImplementedError):
        return None


def as_message(chunk: Any) -> BaseMessage | None:
    """A streamed chunk as a message (``None`` for other pieces).

    Example:
        >>> as_message("ab").content
        'ab'
    """
    if isinstance(chunk, BaseMessage):
        return chunk
    if isinstance(chunk, str):
        return AIMessageChunk(content=chunk)
    return None


class AttemptStream:
    """One model call's chunks, and the items they give.

    Example:
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> stream = AttemptStream(JsonFenceOutputParser(), attempt=1)
        >>> [item for c in ['{"a": 1', ', "b": 2}'] for item in stream.feed(c)]
        [{}, {'a': 1, 'b': 2}]
    """

    def __init__(
        self,
        parser: BaseOutputParser[Any],
        *,
        attempt: int,
        prefix: str | None = None,
        include_raw: bool = False,
    ) -> None:
        """Start the stream of model call ``attempt`` (1-based).

        Args:
            parser: Parses the text so far.
            attempt: The model call's number.
            prefix: The text a continuation continues (its partials extend it).
            include_raw: Yield ``{"parsed", "raw", "attempt", ...}`` dicts.
        """
        self.parser = parser
        self.attempt = attempt
        self.include_raw = include_raw
        self._text = StreamState(diff=False)
        self._args = StreamState(diff=False)
        self._messages: list[BaseMessage] = []
        self._call_index: Any = NOTHING
        # The schema's name: only its call streams partials (another tool's
        # arguments are never the answer, see ``read_call``).
        self._schema_name = getattr(getattr(parser, "_schema", None), "name", None)
        self._has_text = False
        self._last: Any = NOTHING
        # A pydantic model's partials are typed (``partial_model``), as the
        # parser's own stream yields them; a fresh converter per attempt.
        typed = getattr(parser, "_typed_partials", None)
        self._convert = typed() if callable(typed) else None
        if prefix:
            self._text.push(prefix)
            self._has_text = bool(prefix.strip())

    def feed(self, chunk: Any) -> tuple[Any, ...]:
        """The items for one streamed chunk: none, or one."""
        message = as_message(chunk)
        if message is None:
            return ()
        self._messages.append(message)
        text = message_text(message)
        due = self._text.push(text) if text else False
        self._has_text = self._has_text or bool(text.strip())
        args = self._first_call_args(message)
        args_due = self._args.push(args) if args else False
        if self._single(message):
            so_far = self._text.text() if self._has_text else self._call_text(message)
            value = partial_of(self.parser, so_far)
        elif self._has_text:
            value = partial_of(self.parser, self._text.text()) if due else None
        elif args_due:
            value = partial_of(self.parser, self._args.text())
        else:
            value = None
        if value is not None and self._convert is not None:
            value = self._convert(value)
        if value is None and not self._single(message):
            return ()
        if value is not None and self._last is not NOTHING and value == self._last:
            return ()
        if value is not None:
            self._last = value
        if self.include_raw:
            return (self.snapshot(value),)
        return () if value is None else (value,)

    def _single(self, message: BaseMessage) -> bool:
        """A whole reply in one piece (a model that cannot stream)."""
        return len(self._messages) == 1 and not isinstance(message, AIMessageChunk)

    def _call_text(self, message: BaseMessage) -> str:
        """A whole reply's text; without one, the arguments of the call read."""
        found = (
            read_call(message, self._schema_name)
            if isinstance(message, AIMessage)
            else None
        )
        return found[0] if found is not None else message_text(message)

    def _first_call_args(self, message: BaseMessage) -> str:
        if not isinstance(message, AIMessageChunk):
            return ""
        pieces = []
        schema = (self._schema_name or "").casefold()
        for call in message.tool_call_chunks:
            name = call.get("name")
            if self._call_index is NOTHING and (
                not schema or (name is not None and name.casefold() == schema)
            ):
                self._call_index = call.get("index")
            if call.get("index") == self._call_index:
                pieces.append(call.get("args") or "")
        return "".join(pieces)

    def snapshot(self, value: Any) -> dict[str, Any]:
        """A plain dict: the value so far, the message so far, the attempt."""
        return {
            "parsed": value,
            "raw": self.message(),
            "attempt": self.attempt,
            "parsing_error": None,
        }

    def message(self) -> AIMessage:
        """The message so far (the whole reply once the stream has ended)."""
        if not self._messages:
            return AIMessage("")
        return to_ai_message(merge_chunks(self._messages))

    def merge(self, chunks: list[Any]) -> Any:
        """The model call's result from its chunks: the whole reply.

        Pieces that are no messages (a foreign runnable's) are added up as
        LangChain adds streamed chunks (``+``), or the only one is returned.
        """
        if not self._messages and chunks:
            return functools.reduce(operator.add, chunks)
        return self.message()


def to_ai_message(message: BaseMessage) -> AIMessage:
    """A merged chunk as the ``AIMessage`` ``invoke`` returns.

    Example:
        >>> type(to_ai_message(AIMessageChunk(content="{}"))).__name__
        'AIMessage'
    """
    if not isinstance(message, AIMessageChunk):
        return message if isinstance(message, AIMessage) else AIMessage(message.text)
    return AIMessage(
        content=message.content,
        additional_kwargs=dict(message.additional_kwargs),
        response_metadata=dict(message.response_metadata),
        tool_calls=list(message.tool_calls),
        invalid_tool_calls=list(message.invalid_tool_calls),
        usage_metadata=message.usage_metadata,
        id=message.id,
        name=message.name,
    )


@dataclass(frozen=True, slots=True)
class StreamedRaw:
    """A native call streamed: its raw reply, not yet parsed by its parser."""

    message: AIMessage


def split_native(
    native: Runnable[Any, Any],
) -> tuple[Runnable[Any, Any], Runnable[Any, Any]] | None:
    """``with_structured_output(include_raw=True)`` as (its model, its parser).

    LangChain builds it as ``RunnableMap(raw=model) | parser steps``; the
    model streams, the parser steps (a fallback wrapper) would wait for the
    whole reply. ``None``: another shape, invoked whole.

    Example:
        >>> from langchain_core.runnables import RunnableLambda
        >>> split_native(RunnableLambda(lambda x: x)) is None
        True
    """
    if not isinstance(native, RunnableSequence):
        return None
    first = native.first
    if not isinstance(first, RunnableParallel) or set(first.steps__) != {"raw"}:
        return None
    rest = native.steps[1:]
    parser = rest[0] if len(rest) == 1 else RunnableSequence(*rest)
    return first.steps__["raw"], parser
