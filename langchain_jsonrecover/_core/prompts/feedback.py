"""Every text we show a person or send to a model, in one place.

Pure functions on ``str``; no LangChain imports. Messages are for the person
reading a traceback (where, what, an excerpt); observations are for the model
that wrote the reply (short, exact, and what to send instead). Neither copies
the reply back: the model has it in the conversation already, and whatever
they quote of it (a key in a path, a tag in pydantic's message) is cut short.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.schema.validate import FieldError
from langchain_jsonrecover._core.shorten import shorten, shorten_quoting

if TYPE_CHECKING:
    from langchain_jsonrecover._core.extract import ReplyFailure

FORMAT_INSTRUCTIONS: Final = (
    "Respond with only one JSON object: no prose before or after it, "
    "no markdown code fences."
)

_EXCERPT_WIDTH: Final = 30
_MAX_ERRORS: Final = 10


@dataclass(frozen=True, slots=True)
class Shape:
    """What the answer must look like, in words."""

    noun: str = "JSON object"
    """``JSON object``, ``JSON array`` or ``JSON value``."""
    fields: str = ""
    """The schema's fields, one per line, with type and description."""
    name: str = ""
    """The schema's name, if it has one."""

    def instructions(self) -> str:
        """Format instructions: the fields, then what to send.

        Example:
            >>> print(Shape(fields="The JSON is an integer.", noun="JSON value")
            ...       .instructions())
            The JSON is an integer.
            <BLANKLINE>
            Respond with only one JSON value: no prose before or after it, no ...
        """
        send = (
            f"Respond with only one {self.noun}: no prose before or after it, "
            "no markdown code fences."
        )
        return f"{self.fields}\n\n{send}" if self.fields else send


@dataclass(frozen=True, slots=True)
class Described:
    """A failure put into words."""

    message: str
    """For the person reading the error."""
    observation: str
    """For the model: what was wrong, and what to send instead."""
    line: int | None = None
    """1-based line of the failure in the reply."""
    column: int | None = None
    """1-based column of the failure in the reply."""


_ANY_SHAPE: Final = Shape()
"""No schema: a JSON object, no fields (frozen, so one serves every call)."""


def locate(text: str, pos: int) -> tuple[int, int]:
    r"""1-based line and column of offset ``pos`` in ``text``.

    Example:
        >>> locate("ab\ncd", 4)
        (2, 2)
    """
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def point_at(text: str, pos: int) -> str:
    """The line around ``pos``, cut short, with a caret under ``pos``.

    Example:
        >>> print(point_at('{"a" 1}', 5))
          {"a" 1}
               ^
    """
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    if line_end < 0:
        line_end = len(text)
    lo = max(line_start, pos - _EXCERPT_WIDTH)
    hi = min(line_end, pos + _EXCERPT_WIDTH)
    head = "…" if lo > line_start else ""
    tail = "…" if hi < line_end else ""
    shown = text[lo:hi].replace("\t", " ").replace("\r", " ")
    return f"  {head}{shown}{tail}\n  {' ' * (len(head) + pos - lo)}^"


def describe(failure: ReplyFailure, text: str, shape: Shape | None = None) -> Described:
    """Put a failure into words for a person and for the model.

    The observation says which stage failed and what to send instead; with a
    schema, it ends with the schema's fields.

    Args:
        failure: What went wrong.
        text: The reply, to locate the failure in.
        shape: What the answer must look like (the schema), if known.

    Returns:
        The message, the observation and the position.

    Example:
        >>> from langchain_jsonrecover._core.extract import extract
        >>> print(describe(extract("hello"), "hello").message)
        No JSON found in the reply.
    """
    shape = shape or _ANY_SHAPE  # made once, not per error
    described = _describe(failure, text, shape.noun)
    if not shape.fields:
        return described
    observation = f"{described.observation}\n\n{shape.fields}"
    return Described(described.message, observation, described.line, described.column)


def _describe(failure: ReplyFailure, text: str, noun: str) -> Described:
    if failure.cut_off and failure.kind in {"no_json", "truncated"}:
        return _describe_cut_off(failure, text, noun)
    if failure.cut_off and failure.kind == "invalid_json":
        # A real syntax error: say it, then that the reply was cut off too.
        plain = _describe(dataclasses.replace(failure, cut_off=False), text, noun)
        return Described(
            f"{plain.message}\nThe reply was also cut off at the token limit.",
            f"{plain.observation} Your reply was also cut off at the token limit: "
            "make it shorter.",
            plain.line,
            plain.column,
        )
    send = f"Respond with only the {noun}, and nothing else."
    if failure.kind == "too_large":
        return Described(
            f"The reply is too long to scan ({failure.reason} characters).",
            f"Your reply was too long. Respond with a shorter {noun}, "
            "and nothing else.",
        )
    if failure.kind == "no_json":
        if failure.detail == "reasoning_only":
            return Described(
                "No JSON found in the reply: it holds only a reasoning block.",
                "Your reply contains only reasoning and no JSON. After your "
                f"reasoning, respond with only the {noun}, and nothing else.",
            )
        if failure.detail:
            return Described(
                f"No JSON found in the reply: the pattern {failure.detail!r} "
                "matched nothing.",
                "Your reply has no JSON where it was expected: nothing in it "
                f"matches the pattern {failure.detail!r}. Respond again with the "
                "JSON placed as instructed.",
            )
        return Described(
            "No JSON found in the reply.", f"Your reply contains no JSON. {send}"
        )
    pos = failure.pos if failure.pos is not None else 0
    start = failure.start if failure.start is not None else pos
    line, column = locate(text, pos)
    where = f"line {line}, column {column}"
    if failure.kind == "schema":
        return _describe_schema(failure, noun, line, column)
    if failure.kind == "truncated":
        start_line, start_column = locate(text, start)
        return Described(
            "The reply looks cut off: the JSON that starts at line "
            f"{start_line}, column {start_column} is still open where the reply "
            f"ends ({where}).",
            "Your reply stops before the JSON is complete. Respond with the "
            f"complete {noun}, and nothing else; make it shorter if needed.",
            line,
            column,
        )
    if failure.kind == "too_deep":
        return Described(
            f"The JSON at {where} is nested too deeply: {failure.reason}.",
            f"Your JSON is nested too deeply ({failure.reason}). "
            f"Respond with a flatter {noun}, and nothing else.",
            line,
            column,
        )
    return Described(
        f"Invalid JSON at {where} of the reply: {failure.reason}.\n"
        f"{point_at(text, pos)}",
        f"Your reply is not valid JSON: {failure.reason} at {where}. "
        f"Respond with only the corrected {noun}, and nothing else.",
        line,
        column,
    )


def _describe_cut_off(failure: ReplyFailure, text: str, noun: str) -> Described:
    """The model stopped at its token limit: say so, whatever the decoder saw."""
    observation = (
        "Your reply was cut off at the token limit before the JSON was complete. "
        f"Respond with a shorter {noun}, and nothing else."
    )
    if failure.kind == "no_json":
        return Described(
            "The reply was cut off at the token limit before any JSON.", observation
        )
    line, column = locate(text, failure.pos or 0)
    return Described(
        "The reply was cut off at the token limit: the JSON is incomplete "
        f"(line {line}, column {column}: {failure.reason}).",
        observation,
        line,
        column,
    )


def _describe_schema(
    failure: ReplyFailure, noun: str, line: int, column: int
) -> Described:
    shown = failure.errors[:_MAX_ERRORS]
    lines = [_describe_field_error(e) for e in shown]
    if len(failure.errors) > len(shown):
        lines.append(f"… and {len(failure.errors) - len(shown)} more")
    count = len(failure.errors)
    plural = "error" if count == 1 else "errors"
    name = f" {failure.detail}" if failure.detail else ""
    message = (
        f"The JSON does not match the schema{name} ({count} {plural}):\n"
        + "\n".join(f"  {item}" for item in lines)
    )
    if failure.cut_off or failure.recovered:
        where = " at the token limit" if failure.cut_off else ""
        observation = (
            f"Your reply was cut off{where} before the JSON was complete, and "
            "what arrived does not match the schema:\n"
            + "\n".join(f"- {item}" for item in lines)
            + f"\nRespond with a shorter {noun} that is complete, and nothing else."
        )
    else:
        observation = (
            "Your JSON does not match the schema:\n"
            + "\n".join(f"- {item}" for item in lines)
            + f"\nRespond with only the corrected {noun}, and nothing else."
        )
    return Described(message, observation, line, column)


def cut_quoting_short(error: FieldError) -> FieldError:
    """A field error with the model input it quotes cut short.

    A key is part of the path and pydantic's message may quote a value (a
    union's tag): a 5 MB key must not make a 5 MB error.

    Example:
        >>> error = FieldError("k" * 10**6, "Extra inputs are not permitted", "1")
        >>> len(cut_quoting_short(error).path)
        60
    """
    return FieldError(
        shorten_quoting(error.path),
        shorten_quoting(error.message),
        shorten(error.value),
    )


def _describe_field_error(error: FieldError) -> str:
    error = cut_quoting_short(error)
    where = error.path or "the value"
    got = f" (got {error.value})" if error.value else ""
    return f"{where}: {error.message}{got}"
