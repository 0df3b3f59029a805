"""Errors raised when a reply does not give the JSON asked for.

Every error a parser raises for a bad reply is a LangChain
``OutputParserException``, so code that already catches that keeps working::

    ValueError
    └── langchain_core.exceptions.OutputParserException
        ├── JsonRecoveryError          the reply cannot be used
        │   ├── ReplyTooLargeError     too long to scan (over ``max_chars``)
        │   ├── NoJsonFoundError       nothing JSON-like in the reply
        │   ├── InvalidJsonError       JSON-like, but it does not decode
        │   │                          (``truncated`` when the reply was cut off)
        │   └── SchemaValidationError  decoded, but does not match the schema
        └── RetryExhaustedError        no reply parsed within the retries, or
                                       the model repeated itself

Each ``JsonRecoveryError`` carries ``llm_output`` (the reply, unchanged),
``observation`` (what to tell the model: what was wrong and what to send
instead) and ``send_to_llm=True``. Each class names its ``kind``: the word a
``jsonrecover.retry`` event reports for it.
A refusal is not a parse failure: it raises langchain-core's
``ModelRefusalError``, as ``JsonOutputParser`` does.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage  # noqa: TC002 (a TypedDict's field)
from langchain_core.messages.ai import UsageMetadata  # noqa: TC002

from langchain_jsonrecover._core.prompts.feedback import (
    Shape,
    cut_quoting_short,
    describe,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_jsonrecover._core.extract import ReplyFailure

__all__ = [
    "InvalidJsonError",
    "JsonRecoveryError",
    "NoJsonFoundError",
    "ReplyTooLargeError",
    "RetryExhaustedError",
    "SchemaValidationError",
    "UnknownToolError",
]


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


class _WrittenMessageError(OutputParserException):
    """An ``OutputParserException`` whose message stays as written, that pickles whole.

    LangChain appends a troubleshooting URL to a ``str`` message; ours say what
    to do, so the message is kept as given. Pickling keeps every attribute and
    the ``__cause__`` (errors cross process pools).
    """

    kind: ClassVar[str]
    """The kind a ``jsonrecover.retry`` event reports for this error."""

    def __init__(
        self,
        message: str,
        *,
        llm_output: str,
        observation: str | None,
        send_to_llm: bool,
    ) -> None:
        # What ``OutputParserException.__init__`` sets, without building its
        # message (the URL added, which ``args`` dropped again): half the cost
        # of the error object. The attributes are pinned against it (tests).
        ValueError.__init__(self, message)
        self.observation = observation
        self.llm_output = llm_output
        self.send_to_llm = send_to_llm
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every attribute and the cause."""
        state = dict(self.__dict__)
        if self.__cause__ is not None:
            state["__cause__"] = self.__cause__
        return (self.__class__, (self.message,), state)


class JsonRecoveryError(_WrittenMessageError):
    """Base of every error this package raises for a reply.

    Example:
        >>> from langchain_jsonrecover import JsonFenceOutputParser, JsonRecoveryError
        >>> try:
        ...     JsonFenceOutputParser().parse("no json here")
        ... except JsonRecoveryError as exc:
        ...     print(exc.observation.split(".")[0])
        Your reply contains no JSON
    """

    kind: ClassVar[str] = "parse_error"

    def __init__(
        self, message: str, *, llm_output: str = "", observation: str = ""
    ) -> None:
        """Create the error.

        Args:
            message: What went wrong, for a person.
            llm_output: The model's reply, unchanged.
            observation: What to tell the model (defaults to ``message``).
        """
        super().__init__(
            message,
            llm_output=llm_output,
            observation=observation or message,
            send_to_llm=True,
        )


class ReplyTooLargeError(JsonRecoveryError):
    """The reply is longer than ``max_chars``: refused before any scan.

    Example:
        >>> from langchain_jsonrecover import extract_json, ReplyTooLargeError
        >>> try:
        ...     extract_json('{"a": 1}', max_chars=5)
        ... except ReplyTooLargeError as exc:
        ...     print(exc, exc.kind)
        The reply is too long to scan (8 characters, over 5 characters). too_large
    """

    kind: ClassVar[str] = "too_large"


class UnknownToolError(JsonRecoveryError):
    """A tool call names a tool that is not bound (the call is withheld).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover import recover_tool_calls
        >>> search = {"name": "search", "description": "Search.", "parameters": {}}
        >>> call = {"name": "serch", "args": '{"query": "x"', "id": "c1", "error": None}
        >>> reply = AIMessage("", invalid_tool_calls=[call])
        >>> recover_tool_calls(reply, [search]).invalid_tool_calls[0]["error"]
        "There is no tool named 'serch'. The tools are: search."
    """

    kind: ClassVar[str] = "unknown_tool"


class NoJsonFoundError(JsonRecoveryError):
    """Nothing JSON-like in the reply (prose only, or only reasoning).

    Example:
        >>> from langchain_jsonrecover import extract_json, NoJsonFoundError
        >>> try:
        ...     extract_json("The set {1, 2, 3} has three elements.")
        ... except NoJsonFoundError as exc:
        ...     print(exc)
        No JSON found in the reply.
    """

    kind: ClassVar[str] = "no_json"


class InvalidJsonError(JsonRecoveryError):
    """A JSON-like candidate that does not decode.

    ``line`` and ``column`` (1-based) locate the failure in the reply;
    ``truncated`` says the reply ends before the JSON does.

    Example:
        >>> from langchain_jsonrecover import extract_json, InvalidJsonError
        >>> try:
        ...     extract_json('{"a" 1}', repair=False)
        ... except InvalidJsonError as exc:
        ...     print(exc.line, exc.column, exc.truncated)
        1 6 False
    """

    kind: ClassVar[str] = "invalid_json"
    """The kind of every decoding failure (a cut-off reply's event says
    ``truncated``: see ``truncated``)."""

    def __init__(
        self,
        message: str,
        *,
        llm_output: str = "",
        observation: str = "",
        line: int | None = None,
        column: int | None = None,
        truncated: bool = False,
    ) -> None:
        """Create the error.

        Args:
            message: What went wrong and where, with an excerpt.
            llm_output: The model's reply, unchanged.
            observation: What to tell the model.
            line: 1-based line of the failure in the reply.
            column: 1-based column of the failure in the reply.
            truncated: Whether the reply ends before the JSON does.
        """
        super().__init__(message, llm_output=llm_output, observation=observation)
        self.line = line
        self.column = column
        self.truncated = truncated


class SchemaValidationError(JsonRecoveryError):
    """The reply decoded, but the value does not match the schema.

    ``errors`` lists each failing field as ``{"path", "message", "value"}``
    (pydantic's message, the offending value as compact JSON cut short; a
    long key in the path or input quoted in the message is cut short too);
    ``value`` is the decoded value that failed.

    Example:
        >>> from pydantic import BaseModel
        >>> from langchain_jsonrecover import JsonFenceOutputParser
        >>> from langchain_jsonrecover import SchemaValidationError
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> try:
        ...     JsonFenceOutputParser(pydantic_object=Person).parse('{"name": "Ada"}')
        ... except SchemaValidationError as exc:
        ...     print(exc.errors)
        [{'path': 'age', 'message': 'Field required', 'value': ''}]
    """

    kind: ClassVar[str] = "schema"

    def __init__(
        self,
        message: str,
        *,
        llm_output: str = "",
        observation: str = "",
        errors: list[dict[str, str]] | None = None,
        value: Any = None,
    ) -> None:
        """Create the error.

        Args:
            message: What went wrong, field by field.
            llm_output: The model's reply, unchanged.
            observation: What to tell the model.
            errors: The failing fields: ``path``, ``message``, ``value``.
            value: The decoded value that failed.
        """
        super().__init__(message, llm_output=llm_output, observation=observation)
        self.errors = errors or []
        self.value = value


class RetryExhaustedError(_WrittenMessageError):
    """No reply parsed within the retries, or the model repeated a failed reply.

    ``attempts`` lists every model call (reply, error, usage); the last parse
    error is the ``__cause__``; ``llm_output`` is the last reply's text and
    ``observation`` the last feedback. ``repeats`` is the number of the earlier
    reply the last one repeated when the loop guard stopped the loop, else
    ``None``. It pickles intact, ``__cause__`` included. Importable from
    ``langchain_jsonrecover.retry`` too.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_jsonrecover import JsonFenceOutputParser, JsonRetryChain
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

    kind: ClassVar[str] = "retry_exhausted"
    """Never in a ``jsonrecover.retry`` event: this error ends the loop."""

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
            llm_output=llm_output,
            observation=observation or None,
            send_to_llm=False,
        )
        self.attempts: list[Attempt] = list(attempts)
        self.repeats = repeats


def error_for(
    failure: ReplyFailure, llm_output: str, shape: Shape | None = None
) -> JsonRecoveryError:
    """Build the typed error for a failure on ``llm_output``.

    The error's class is the one whose ``kind`` is the failure's; a failure
    to decode (``invalid_json``, ``truncated``, ``too_deep``) is an
    ``InvalidJsonError``.

    Args:
        failure: What went wrong.
        llm_output: The reply, unchanged.
        shape: The schema in words, for the observation.

    Returns:
        The error to raise.
    """
    text = str(llm_output)
    if failure.kind == SchemaValidationError.kind:
        # Cut once here; the message and the observation quote these.
        bounded = tuple(cut_quoting_short(e) for e in failure.errors)
        failure = dataclasses.replace(failure, errors=bounded)
    described = describe(failure, text, shape)
    if failure.kind == SchemaValidationError.kind:
        errors = [
            {"path": e.path, "message": e.message, "value": e.value}
            for e in failure.errors
        ]
        return SchemaValidationError(
            described.message,
            llm_output=text,
            observation=described.observation,
            errors=errors,
            value=failure.value,
        )
    for plain in (NoJsonFoundError, ReplyTooLargeError):
        if failure.kind == plain.kind:
            return plain(
                described.message, llm_output=text, observation=described.observation
            )
    return InvalidJsonError(
        described.message,
        llm_output=text,
        observation=described.observation,
        line=described.line,
        column=described.column,
        truncated=failure.kind == "truncated",
    )
