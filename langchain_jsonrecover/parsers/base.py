"""The base the three output parsers share, and reading a reply's metadata.

Internal: ``_JsonRecoveringParser`` holds what every parser does (refusals,
sync and async parsing, partial values while streaming, the ``process`` step,
format instructions); ``raise_if_refused`` reads a model reply for the
parsers and the retry loop (``_core.reply.record.stopped_at_token_limit``
reads its metadata). The public classes are in ``parsers``.
"""

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.content import RefusalContentBlock
from langchain_core.output_parsers import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor
from pydantic import Field, PrivateAttr, SkipValidation

from langchain_jsonrecover._core.extract import (
    DEFAULT_MAX_DEPTH,
    Extraction,
    ReplyFailure,
    extract,
    extract_partial,
)
from langchain_jsonrecover._core.levels import Repair
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS
from langchain_jsonrecover._core.prompts.feedback import Shape
from langchain_jsonrecover._core.prompts.instructions import shape_of
from langchain_jsonrecover._core.reply.record import stopped_at_token_limit
from langchain_jsonrecover._core.schema.validate import Schema
from langchain_jsonrecover.errors import JsonRecoveryError, error_for
from langchain_jsonrecover.outcomes import Continue, Halt
from langchain_jsonrecover.parsers.events import areport_recovery, report_recovery
from langchain_jsonrecover.parsers.streaming import (
    astream_values,
    generation_text,
    message_text,
    stream_values,
    typed_partials,
)

T = TypeVar("T")

Feedback = Callable[[JsonRecoveryError], str]

OFF_LOOP_CHARS = 1_000_000
"""The async methods parse a longer reply in a worker thread, so that the
event loop keeps serving other tasks (a 10 MB hostile reply takes seconds)."""


def is_refusal(message: BaseMessage) -> bool:
    """Whether the reply is a refusal, not an answer (see :func:`raise_if_refused`).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> is_refusal(AIMessage("", additional_kwargs={"refusal": "I can't."}))
        True
        >>> is_refusal(AIMessage("{}", additional_kwargs={"refusal": None}))
        False
    """
    try:
        raise_if_refused(message)
    except ModelRefusalError:
        return True
    return False


def raise_if_refused(message: BaseMessage) -> None:
    """Raise ``ModelRefusalError`` when the reply is a refusal, not an answer.

    A refusal is a ``refusal`` content block (Anthropic, OpenAI's Responses
    API, a message whose provider LangChain knows), or the text that
    langchain-openai puts in ``additional_kwargs["refusal"]`` (a message
    without ``model_provider`` in its metadata, as older versions and logs
    have it, shows no block for it). ``None`` or an empty text there is no
    refusal.

    Raises:
        ModelRefusalError: The message holds a refusal.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> raise_if_refused(AIMessage("", additional_kwargs={"refusal": "No."}))
        Traceback (most recent call last):
        ...
        langchain_core.exceptions.ModelRefusalError: Model refused ...: No.
    """
    for block in message.content_blocks:
        if block["type"] == "refusal":
            raise ModelRefusalError.from_refusal(block, raw_message=message)
    refusal = message.additional_kwargs.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        block = RefusalContentBlock(type="refusal", refusal=refusal)
        raise ModelRefusalError.from_refusal(block, raw_message=message)


class _JsonRecoveringParser(BaseTransformOutputParser[T]):
    """What every parser here shares: schema, limits, refusals, typed errors.

    Streaming (``stream``, ``astream``, ``astream_events``) yields partial
    values as the reply grows, in linear total time, then the final value (see
    :mod:`langchain_jsonrecover.parsers.streaming`).
    """

    diff: bool = False
    """When streaming, yield JSONPatch operations from one value to the next,
    as ``JsonOutputParser(diff=True)`` does. They describe the JSON: a model's
    is ``model_dump(mode="json", by_alias=True)``, keyed as the reply is."""

    pydantic_object: Annotated[Any, SkipValidation()] = None
    """The schema: a pydantic model, any type ``pydantic.TypeAdapter`` accepts
    (TypedDict, dataclass, ``list[Model]`` …), or a JSON-schema ``dict`` (needs
    ``jsonschema``). The result is then the validated value (lax mode:
    ``"36"`` becomes ``36``). ``None``: the decoded JSON as it is."""

    prefer: Literal["first", "last"] = "first"
    """Which candidate wins when the reply holds several: the first that decodes
    (and validates), or the last in text order (a final answer after an
    example)."""

    repair: Repair = "safe"
    """When no candidate succeeds as it stands, repair the syntax of the
    failing ones (trailing commas, single quotes, comments, Python literals,
    bare keys, missing commas, bad escapes, string-escaped JSON …) and try
    them again, in the same order. ``"safe"`` (the default): only the repairs
    with one reading; a reply that only a ``*_guessed`` repair, the single-edit
    search or a ``#`` comment reads raises the error ``False`` raises.
    ``True``: those too. ``False``: no repair. Each repair is listed in the
    extraction's repairs."""

    field_aliases: dict[str, str] = Field(default_factory=dict)
    """Top-level keys renamed before validation (``{"response": "message"}``);
    needs ``pydantic_object``."""

    feedback: Annotated[Feedback | None, SkipValidation()] = Field(
        default=None, exclude=True
    )
    """Builds the feedback text ``process()`` sends to the model from the error;
    default: the error's ``observation``."""

    max_chars: int = Field(default=DEFAULT_MAX_CHARS, ge=1)
    """Longer replies are refused with ``JsonRecoveryError`` before any scan."""

    max_depth: int = Field(default=DEFAULT_MAX_DEPTH, ge=1, le=1000)
    """Deeper nesting is an ``InvalidJsonError`` (never a ``RecursionError``)."""

    _schema: Schema | None = PrivateAttr(default=None)
    _shape: Shape = PrivateAttr(default_factory=Shape)
    _closes_truncation: ClassVar[bool] = False
    """Close a candidate the reply ends inside (the truncation parser)."""

    def model_post_init(self, context: Any, /) -> None:
        """Check the schema once, at construction.

        Raises:
            ValueError: The schema is unusable, or aliases come without one.
        """
        super().model_post_init(context)
        if self.pydantic_object is None:
            if self.field_aliases:
                msg = (
                    "field_aliases rename keys before validation: "
                    "give pydantic_object too"
                )
                raise ValueError(msg)
            return
        self._schema = Schema(
            self.pydantic_object, aliases=self.field_aliases, max_depth=self.max_depth
        )
        self._shape = shape_of(self._schema.json_schema, self._schema.name)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """The schema's type (``dict`` for a JSON schema), else ``Any``."""
        if self.pydantic_object is None:
            return Any
        if isinstance(self.pydantic_object, dict):
            return dict[str, Any]
        return self.pydantic_object

    def _find(self, text: str, *, cut_off: bool = False) -> Extraction | ReplyFailure:
        """Run this parser's extraction on the reply's text.

        ``cut_off``: the model said it stopped at its token limit.
        """
        schema: Schema | None = self._private("_schema", None)  # (_schema_read)
        return extract(
            text,
            max_chars=self.max_chars,
            max_depth=self.max_depth,
            schema=schema,
            prefer=self.prefer,
            close_truncated=self._closes_truncation,
            trim_runaway_newlines=self._trims_newlines(),
            repair=self.repair,
            cut_off=cut_off,
        )

    def _schema_read(self) -> Schema | None:
        """``self._schema``, read without pydantic's ``__getattr__``."""
        schema: Schema | None = self._private("_schema", None)
        return schema

    def _private(self, name: str, unset: Any) -> Any:
        """A private attribute, read without pydantic's ``__getattr__``.

        That lookup raises and catches an exception on every read (about
        5 µs: as long as the rest of a small reply's parse). ``unset`` when
        the model holds no private attributes yet.
        """
        private = self.__pydantic_private__
        return unset if private is None else private[name]

    def _partial(self, text: str) -> Any:
        """The value so far of a reply still arriving, or ``None``."""
        return extract_partial(
            text,
            max_chars=self.max_chars,
            max_depth=self.max_depth,
            trim_runaway_newlines=self._trims_newlines(),
            prefer=self.prefer,
            # Only the repairs that choose may restructure what a partial
            # showed (a lost bracket inserted by the single-edit search); at
            # the default level strings still grow as they stream.
            repair=self.repair is True,
        )

    def _trims_newlines(self) -> bool:
        """Whether a string cut inside a newline run loses the run."""
        return False

    def _error(self, failure: ReplyFailure, text: str) -> JsonRecoveryError:
        schema = self._schema_read()
        if failure.kind == "schema" and schema is not None:
            failure = dataclasses.replace(failure, detail=schema.name)
        return error_for(failure, text, self._private("_shape", None))

    def _run(self, generation: Generation, text: str) -> Extraction:
        """Extract from a generation whose text is ``text``; note a length stop."""
        cut_off = False
        if isinstance(generation, ChatGeneration):
            raise_if_refused(generation.message)
            cut_off = stopped_at_token_limit(generation.message.response_metadata)
        elif generation.generation_info:
            cut_off = stopped_at_token_limit(generation.generation_info)
        return self._found(text, cut_off=cut_off)

    def _found(self, text: str, *, cut_off: bool) -> Extraction:
        """Extract from ``text``; a failure raises its typed error."""
        found = self._find(text, cut_off=cut_off)
        if isinstance(found, ReplyFailure):
            if found.cut_off != cut_off:  # a copy costs as much as orjson on 300 B
                found = dataclasses.replace(found, cut_off=cut_off)
            raise self._error(found, text)
        return dataclasses.replace(found, cut_off=True) if cut_off else found

    def extract(self, reply: str | BaseMessage) -> Extraction:
        """Find the JSON in a reply and say how it was found.

        Args:
            reply: The model's reply, as text or as a message (whose metadata
                says whether the model stopped at its token limit).

        Returns:
            The value (validated, with a schema) with its span, step, repairs
            and ``cut_off``.

        Raises:
            ModelRefusalError: The model refused.
            JsonRecoveryError: No usable JSON (``NoJsonFoundError``,
                ``InvalidJsonError`` or ``SchemaValidationError``).
        """
        if isinstance(reply, BaseMessage):
            return self._run(ChatGeneration(message=reply), message_text(reply))
        text = str(reply)
        return self._run(Generation(text=text), text)

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> T:
        """Parse the first generation; a chat reply is checked for a refusal.

        Args:
            result: The model's generations; the first is parsed.
            partial: Parse a reply still streaming in: the value so far (a
                cut candidate closed, a number at the cut left out, no schema
                validation), or ``None`` when there is none yet.

        Returns:
            The value: decoded JSON, or the schema's validated instance.

        Raises:
            ModelRefusalError: The model refused.
            JsonRecoveryError: No usable JSON in the reply.
        """
        if partial:
            return self._partial(generation_text(result[0]))  # type: ignore[no-any-return]
        text = generation_text(result[0])
        found = self._run(result[0], text)
        report_recovery(found, text)
        value: T = found.value
        return value

    async def aparse_result(
        self, result: list[Generation], *, partial: bool = False
    ) -> T:
        """Async twin of :meth:`parse_result` (the recovery event is async).

        A reply longer than ``OFF_LOOP_CHARS`` (1,000,000 characters) is parsed
        in a worker thread (LangChain's ``run_in_executor``, which carries the
        callbacks' context), so the event loop is not blocked meanwhile.
        """
        text = generation_text(result[0])
        off_loop = len(text) > OFF_LOOP_CHARS
        if partial:
            if off_loop:
                return await run_in_executor(None, self._partial, text)
            return self._partial(text)  # type: ignore[no-any-return]
        if off_loop:
            found = await run_in_executor(None, self._run, result[0], text)
        else:
            found = self._run(result[0], text)
        await areport_recovery(found, text)
        value: T = found.value
        return value

    async def aparse(self, text: str) -> T:
        """Async twin of :meth:`parse` (a reply over 1 MB is parsed off the loop)."""
        return await self.aparse_result([Generation(text=text)])

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:  # noqa: A002
        return stream_values(
            input,
            diff=self.diff,
            partial=self._partial,
            final=self.parse_result,
            convert=self._typed_partials(),
        )

    def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],  # noqa: A002
    ) -> AsyncIterator[Any]:
        return astream_values(
            input,
            diff=self.diff,
            partial=self._partial,
            final=self.aparse_result,
            convert=self._typed_partials(),
        )

    def _typed_partials(self) -> Callable[[Any], Any] | None:
        """A fresh converter to typed partials (a model schema, no ``diff``)."""
        if self.diff or self.pydantic_object is None:
            return None
        return typed_partials(self.pydantic_object, self.field_aliases)

    def parse(self, text: str) -> T:
        """Parse a reply given as text.

        Args:
            text: The model's reply.

        Returns:
            The value: decoded JSON, or the schema's validated instance.

        Raises:
            JsonRecoveryError: No usable JSON in the reply.
        """
        if (
            type(text) is not str
            or type(self).parse_result is not _JsonRecoveringParser.parse_result
        ):
            return self.parse_result([Generation(text=text)])
        # What parse_result does with a text's generation (no message to
        # refuse, no token-limit stop), without building one.
        found = self._found(text, cut_off=False)
        report_recovery(found, text)
        value: T = found.value
        return value

    def process(self, message: BaseMessage | str) -> Continue[T] | Halt:
        """Parse a reply, and say whether to go on or to ask again.

        Args:
            message: The model's reply.

        Returns:
            ``Continue(value, message)`` when it parsed; ``Halt(feedback,
            error)`` otherwise, with a user message built by ``feedback``
            (default: the error's observation).

        Raises:
            ModelRefusalError: The model refused (a refusal is not retried).
        """
        reply = message if isinstance(message, BaseMessage) else AIMessage(message)
        try:
            value = self.parse_result([ChatGeneration(message=reply)])
        except JsonRecoveryError as error:
            return self._halt(error)
        return Continue(value, reply)

    async def aprocess(self, message: BaseMessage | str) -> Continue[T] | Halt:
        """Async twin of :meth:`process`."""
        reply = message if isinstance(message, BaseMessage) else AIMessage(message)
        try:
            value = await self.aparse_result([ChatGeneration(message=reply)])
        except JsonRecoveryError as error:
            return self._halt(error)
        return Continue(value, reply)

    def _halt(self, error: JsonRecoveryError) -> Halt:
        text = self.feedback(error) if self.feedback is not None else error.observation
        return Halt(HumanMessage(content=text or str(error)), error)

    def get_format_instructions(self) -> str:
        """Ask for one JSON value; with a schema, first say all that it checks."""
        return self._shape.instructions()
