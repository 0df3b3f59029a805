"""Streaming for the parsers: partial values in linear total time.

A re-parse is due only once the reply has grown by a sixteenth since the last
one (re-parsing on every chunk would be quadratic in the reply), so the total
work is a constant times the reply's length, however small the chunks (a
64 KB reply in 4-character chunks is re-parsed about 150 times, not 16,000).
Between re-parses nothing is yielded; every value yielded holds only what is
final (a number at the cut is left out until it is complete).

When the stream ends, the whole reply is parsed as ``invoke`` would parse it,
and the last item yielded is what ``invoke`` returns, types included
(``{"flag": 1}`` validated as ``bool`` ends the stream with ``{"flag": True}``,
although ``1 == True``). A bad reply raises the same typed error ``invoke``
would.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, Final

import jsonpatch
import pydantic_core
from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import BaseModel

from langchain_jsonrecover.parsers.partial_values import Converter

if TYPE_CHECKING:
    from collections.abc import (
        AsyncIterator,
        Awaitable,
        Callable,
        Iterable,
        Iterator,
        Mapping,
        Sequence,
    )

__all__ = [
    "StreamState",
    "astream_values",
    "generation_text",
    "is_plain_json",
    "message_text",
    "plain",
    "same_json",
    "stream_values",
    "typed_partials",
]

#: Re-parse once the reply has grown by this fraction since the last parse.
GROWTH_SHIFT: Final = 4  # 1/16


class _Nothing:
    """Nothing to yield (distinct from a ``None`` value)."""

    __slots__ = ()


NOTHING: Final = _Nothing()

_JSON_SCALARS: Final = frozenset({str, int, float, bool})


def plain(value: Any) -> Any:
    """A value as JSON data: models and dataclasses dumped by alias, else as is.

    By alias, as the JSON the schema describes (what the model wrote, and what
    ``Model.model_validate`` reads back): the same keys as the partial values.

    Example:
        >>> from pydantic import BaseModel, Field
        >>> class P(BaseModel):
        ...     full_name: str = Field(alias="fullName")
        >>> plain(P(fullName="Ada"))
        {'fullName': 'Ada'}
    """
    if value is None or isinstance(value, str | int | float | bool):
        return value
    # Models, dataclasses, TypedDicts and lists of them, nested any way.
    return pydantic_core.to_jsonable_python(value, by_alias=True)


def is_plain_json(value: Any) -> bool:
    """Whether a value is made of JSON's own types only (no subclasses).

    Walked with a stack: nesting is bounded by ``max_depth``, never by the
    interpreter's recursion limit.

    Example:
        >>> import datetime
        >>> is_plain_json({"a": [1, None]}), is_plain_json([datetime.date.today()])
        (True, False)
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif item is not None and kind not in _JSON_SCALARS:
            return False
    return True


def same_json(a: Any, b: Any) -> bool:
    """Whether two values have the same JSON form, types included.

    ``==`` is not enough: ``1 == True == 1.0``, while the JSON differs.

    Example:
        >>> same_json({"a": 1}, {"a": True}), same_json([1.0], [1.0])
        (False, True)
    """
    return bool(pydantic_core.to_json(a) == pydantic_core.to_json(b))


def message_text(message: BaseMessage) -> str:
    """A message's text: its content string itself, when it is one.

    ``message.text`` builds a new string on every access; a failed reply's
    text is kept by its message, its error and the retry error, and must be
    one string shared by all three, not a copy each.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> reply = AIMessage("{}")
        >>> message_text(reply) is reply.content
        True
    """
    content = message.content
    return content if isinstance(content, str) else str(message.text)


def generation_text(generation: Generation) -> str:
    """A generation's text; a chat generation's is its message's (no copy).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> generation_text(ChatGeneration(message=AIMessage("{}")))
        '{}'
    """
    if isinstance(generation, ChatGeneration):
        return message_text(generation.message)
    return str(generation.text)


def typed_partials(
    schema: Any, aliases: Mapping[str, str] | None = None
) -> Callable[[Any], Any] | None:
    """The converter from a stream's partial JSON values to the items to yield.

    The one entry point for typed partials: every streaming path (the
    parsers, the retry chain, ``structured_output``) calls it once per
    attempt and passes each partial JSON value (the dict partial) through the
    converter it returns. The converter gives an instance of
    ``partial_model(Model)`` (a list of them for ``list[Model]``), or
    ``None`` while nothing validates yet. An instance's
    ``partial_candidate`` (1, 2, ...) grows when the stream moved to another
    candidate (a prose example withdrawn when a fence arrives).

    Args:
        schema: The parser's schema.
        aliases: The parser's ``field_aliases`` (top-level keys renamed).

    Returns:
        A fresh converter (it keeps the stream's state) for a pydantic model
        or a ``list`` of models; ``None`` for any other schema (TypedDicts,
        dataclasses, JSON-schema dicts, no schema), whose partials stay
        dicts.

    Example:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> convert = typed_partials(Person)
        >>> convert({"name": "Ad"}), convert({"name": "Ada", "age": 36})
        (PartialPerson(name='Ad', age=None), PartialPerson(name='Ada', age=36))
        >>> typed_partials(dict) is None
        True
    """
    item = typing.get_args(schema)[0] if typing.get_origin(schema) is list else schema
    if not (isinstance(item, type) and issubclass(item, BaseModel)):
        return None
    convert = Converter(schema)
    if not aliases:
        return convert
    renames = dict(aliases)

    def renamed(value: Any) -> Any:
        if isinstance(value, dict):
            targets = [renames.get(k, k) for k in value]
            if len(set(targets)) < len(targets):
                # Two keys for one field: the final parse decides (or refuses).
                value = {k: v for k, v in value.items() if k not in renames}
                value = {k: v for k, v in value.items() if k not in renames.values()}
            else:
                value = dict(zip(targets, value.values(), strict=True))
        return convert(value)

    return renamed


def stream_values(
    chunks: Iterable[str | BaseMessage],
    *,
    diff: bool,
    partial: Callable[[str], Any],
    final: Callable[[list[Generation]], Any],
    convert: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """The values to yield for a streamed reply: partial ones, then the final one.

    Args:
        chunks: The reply's chunks, text or message chunks.
        diff: Yield JSONPatch operations instead of values.
        partial: The value so far of a reply still arriving (``None``: none).
        final: Parses the whole reply, as ``invoke`` would.
        convert: Turns each partial value into the item to yield (see
            :func:`typed_partials`); ``None``: partial values as they are.

    Yields:
        Each new partial value (or its patch), then the final one unless the
        last partial value was already it.

    Example:
        >>> import json
        >>> from langchain_jsonrecover._core.extract import extract_partial
        >>> parts = ['{"a": 1', ', "b": [2', "]}"]
        >>> def whole(result):
        ...     return json.loads(result[0].text)
        >>> list(stream_values(parts, diff=False, partial=extract_partial, final=whole))
        [{}, {'a': 1, 'b': []}, {'a': 1, 'b': [2]}]
    """
    state = StreamState(diff=diff, convert=convert)
    for chunk in chunks:
        yield from state.feed(chunk, partial)
    yield from state.finish(final([state.generation()]))


async def astream_values(
    chunks: AsyncIterator[str | BaseMessage],
    *,
    diff: bool,
    partial: Callable[[str], Any],
    final: Callable[[list[Generation]], Awaitable[Any]],
    convert: Callable[[Any], Any] | None = None,
) -> AsyncIterator[Any]:
    """Async twin of :func:`stream_values`: ``final`` is awaited."""
    state = StreamState(diff=diff, convert=convert)
    async for chunk in chunks:
        for out in state.feed(chunk, partial):
            yield out
    for out in state.finish(await final([state.generation()])):
        yield out


class StreamState:
    """The chunks of one streamed reply, and what was last yielded.

    Example:
        >>> state = StreamState(diff=False)
        >>> state.push('{"a": ')
        True
        >>> state.text()
        '{"a": '
    """

    def __init__(
        self, *, diff: bool, convert: Callable[[Any], Any] | None = None
    ) -> None:
        """Start an empty stream.

        Args:
            diff: Yield JSONPatch operations instead of values.
            convert: Turns each new partial value into the item to yield
                (``None`` from it: nothing yet); not with ``diff``.
        """
        self.diff = diff
        self._convert = None if diff else convert
        self._seen: Any = NOTHING
        self._chunks: list[str | BaseMessage] = []
        self._parts: list[str] = []
        self._length = 0
        self._parsed_at = 0
        self._last: Any = NOTHING

    def push(self, chunk: str | BaseMessage) -> bool:
        """Add a chunk; say whether a partial re-parse is due.

        Args:
            chunk: Text, or a message chunk.

        Returns:
            ``True`` when the reply has grown enough since the last re-parse.
        """
        text = message_text(chunk) if isinstance(chunk, BaseMessage) else str(chunk)
        self._chunks.append(chunk)
        self._parts.append(text)
        self._length += len(text)
        return bool(text) and (
            self._length - self._parsed_at >= self._length >> GROWTH_SHIFT
        )

    def feed(
        self, chunk: str | BaseMessage, partial: Callable[[str], Any]
    ) -> tuple[Any, ...]:
        """Add a chunk; what to yield for it (nothing, or one value).

        Args:
            chunk: Text, or a message chunk.
            partial: Parses the reply so far when a re-parse is due.

        Returns:
            ``()``, or the new partial value (or its patch) alone.
        """
        if not self.push(chunk):
            return ()
        out = self.offer(partial(self.text()))
        return () if out is NOTHING else (out,)

    def finish(self, value: Any) -> tuple[Any, ...]:
        """What to yield for the final value: nothing, or one value.

        Args:
            value: The value ``invoke`` would return.

        Returns:
            ``()`` when the last partial value was already the final one,
            else the value (or its patch) alone (see :meth:`offer_final`).
        """
        out = self.offer_final(value)
        return () if out is NOTHING else (out,)

    def text(self) -> str:
        """The reply so far (joined once per re-parse)."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        self._parsed_at = self._length
        return self._parts[0] if self._parts else ""

    def offer(self, value: Any) -> Any:
        """A partial value: what to yield for it, or ``NOTHING``.

        Args:
            value: The value parsed so far (``None``: nothing yet).

        Returns:
            The value or its patch, or ``NOTHING`` when it has not changed.
        """
        if self._convert is not None:
            if value is None or (self._seen is not NOTHING and value == self._seen):
                return NOTHING
            self._seen = value
            # The converter leaves out a value equal to its last one (None).
            item = self._convert(value)
            return NOTHING if item is None else self._advance(item)
        if value is None or (self._last is not NOTHING and value == self._last):
            return NOTHING
        return self._advance(value)

    def offer_final(self, value: Any) -> Any:
        """The final value: what to yield for it, or ``NOTHING``.

        The stream must end with what ``invoke`` returns, types included, so
        ``==`` cannot decide (``1 == True == 1.0``): the final value is left
        out only when it is plain JSON data with the same JSON form as the
        last partial value. A model, a ``datetime`` or an enum is always
        yielded.

        Args:
            value: The value ``invoke`` would return.

        Returns:
            The value (or its patch, which is typed too), or ``NOTHING`` when
            the last partial value was already the final one.

        Example:
            >>> state = StreamState(diff=False)
            >>> state.offer({"flag": 1})
            {'flag': 1}
            >>> state.offer_final({"flag": True})
            {'flag': True}
            >>> state.offer_final({"flag": True}) is NOTHING
            True
        """
        if self.diff:
            patch = self._advance(plain(value))
            return patch or NOTHING
        if (
            self._last is not NOTHING
            and is_plain_json(value)
            and same_json(value, self._last)
        ):
            return NOTHING
        self._last = value
        return value

    def _advance(self, data: Any) -> Any:
        previous = None if self._last is NOTHING else self._last
        self._last = data
        if self.diff:
            return jsonpatch.make_patch(previous, data).patch
        return data

    def generation(self) -> Generation:
        """The whole reply, as the generation ``invoke`` would have parsed.

        Message chunks are merged once (content, metadata such as the stop
        reason, refusal blocks); text chunks are joined.
        """
        messages = [c for c in self._chunks if isinstance(c, BaseMessage)]
        if not messages:
            return Generation(text=self.text())
        return ChatGeneration(message=_merge(messages))


def _merge(messages: Sequence[BaseMessage]) -> BaseMessage:
    if len(messages) == 1:
        return messages[0]
    chunks = [m for m in messages if isinstance(m, AIMessageChunk)]
    if len(chunks) == len(messages) and all(isinstance(c.content, str) for c in chunks):
        # Text joined once; only the chunks that carry something besides text
        # (metadata, usage, tool calls) are merged, with their text left out:
        # merging thousands of text chunks one addition at a time is quadratic.
        text = "".join(str(c.content) for c in chunks)
        carriers = [
            c.model_copy(update={"content": ""})
            for i, c in enumerate(chunks)
            if i == 0
            or c.response_metadata
            or c.additional_kwargs
            or c.tool_call_chunks
            or c.usage_metadata
        ]
        merged = add_ai_message_chunks(carriers[0], *carriers[1:])
        return merged.model_copy(update={"content": text})
    if len(chunks) == len(messages):
        return add_ai_message_chunks(chunks[0], *chunks[1:])
    other: BaseMessage = messages[0]
    for message in messages[1:]:
        if isinstance(other, BaseMessageChunk) and isinstance(
            message, BaseMessageChunk
        ):
            other = other + message
    return other
