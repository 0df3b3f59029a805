"""Errors raised when a reply does not give the JSON asked for.

Every error a parser raises for a bad reply is a LangChain
``OutputParserException``, so code that already catches that keeps working::

    ValueError
    └── langchain_core.exceptions.OutputParserException
        ├── JsonRecoveryError          the reply cannot be used (too long to scan)
        │   ├── NoJsonFoundError       nothing JSON-like in the reply
        │   ├── InvalidJsonError       JSON-like, but it does not decode
        │   │                          (``truncated`` when the reply was cut off)
        │   └── SchemaValidationError  decoded, but does not match the schema
        └── RetryExhaustedError        (in ``retry``) no reply parsed within the
                                       retries, or the model repeated itself

Each ``JsonRecoveryError`` carries ``llm_output`` (the reply, unchanged),
``observation`` (what to tell the model: what was wrong and what to send
instead) and ``send_to_llm=True``.
A refusal is not a parse failure: it raises langchain-core's
``ModelRefusalError``, as ``JsonOutputParser`` does.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import OutputParserException

from langchain_jsonrecover._prompts import Shape, describe, quoting_cut_short

if TYPE_CHECKING:
    from langchain_jsonrecover._extract import ReplyFailure

__all__ = [
    "InvalidJsonError",
    "JsonRecoveryError",
    "NoJsonFoundError",
    "SchemaValidationError",
]


class JsonRecoveryError(OutputParserException):
    """Base of every error this package raises for a reply.

    Example:
        >>> from langchain_jsonrecover import JsonFenceOutputParser, JsonRecoveryError
        >>> try:
        ...     JsonFenceOutputParser().parse("no json here")
        ... except JsonRecoveryError as exc:
        ...     print(exc.observation.split(".")[0])
        Your reply contains no JSON
    """

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
            observation=observation or message,
            llm_output=llm_output,
            send_to_llm=True,
        )
        # OutputParserException appends a troubleshooting URL to a str message;
        # ours say what to do, so keep them as written.
        self.args = (message,)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every attribute (errors cross process pools)."""
        return (self.__class__, (self.message,), self.__dict__)


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


class InvalidJsonError(JsonRecoveryError):
    """A JSON-like candidate that does not decode.

    ``line`` and ``column`` (1-based) locate the failure in the reply;
    ``truncated`` says the reply ends before the JSON does.

    Example:
        >>> from langchain_jsonrecover import extract_json, InvalidJsonError
        >>> try:
        ...     extract_json('{"a" 1}')
        ... except InvalidJsonError as exc:
        ...     print(exc.line, exc.column, exc.truncated)
        1 6 False
    """

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


def error_for(
    failure: ReplyFailure, llm_output: str, shape: Shape | None = None
) -> JsonRecoveryError:
    """Build the typed error for a failure on ``llm_output``.

    Args:
        failure: What went wrong.
        llm_output: The reply, unchanged.
        shape: The schema in words, for the observation.

    Returns:
        The error to raise.
    """
    text = str(llm_output)
    if failure.kind == "schema":
        # Cut once here; the message and the observation quote these.
        bounded = tuple(quoting_cut_short(e) for e in failure.errors)
        failure = dataclasses.replace(failure, errors=bounded)
    described = describe(failure, text, shape)
    if failure.kind == "no_json":
        return NoJsonFoundError(
            described.message, llm_output=text, observation=described.observation
        )
    if failure.kind == "too_large":
        return JsonRecoveryError(
            described.message, llm_output=text, observation=described.observation
        )
    if failure.kind == "schema":
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
    return InvalidJsonError(
        described.message,
        llm_output=text,
        observation=described.observation,
        line=described.line,
        column=described.column,
        truncated=failure.kind == "truncated",
    )
