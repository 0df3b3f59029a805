"""Every text we show a person or send to a model, in one place.

Pure functions on ``str``; no LangChain imports. Messages are for the person
reading a traceback (where, what, an excerpt); observations are for the model
that wrote the reply (short, exact, and what to send instead). Neither copies
the reply back: the model has it in the conversation already.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from langchain_jsonrecover._extract import Failure

FORMAT_INSTRUCTIONS: Final = (
    "Respond with only one JSON object: no prose before or after it, "
    "no markdown code fences."
)

_SEND_INSTEAD: Final = "Respond with only the JSON object, and nothing else."
_EXCERPT_WIDTH: Final = 30


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


def line_and_column(text: str, pos: int) -> tuple[int, int]:
    r"""1-based line and column of offset ``pos`` in ``text``.

    Example:
        >>> line_and_column("ab\ncd", 4)
        (2, 2)
    """
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def excerpt(text: str, pos: int) -> str:
    """The line around ``pos``, cut short, with a caret under ``pos``.

    Example:
        >>> print(excerpt('{"a" 1}', 5))
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


def describe(failure: Failure, text: str) -> Described:
    """Put a failure into words for a person and for the model.

    Args:
        failure: What went wrong.
        text: The reply, to locate the failure in.

    Returns:
        The message, the observation and the position.

    Example:
        >>> from langchain_jsonrecover._extract import extract
        >>> print(describe(extract("hello"), "hello").message)
        No JSON found in the reply.
    """
    if failure.kind == "too_large":
        return Described(
            f"The reply is too long to scan ({failure.reason} characters).",
            "Your reply was too long. Respond with a shorter JSON object, "
            "and nothing else.",
        )
    if failure.kind == "no_json":
        if failure.detail == "reasoning_only":
            return Described(
                "No JSON found in the reply: it holds only a reasoning block.",
                "Your reply contains only reasoning and no JSON. After your "
                "reasoning, respond with only the JSON object, and nothing else.",
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
            "No JSON found in the reply.",
            f"Your reply contains no JSON. {_SEND_INSTEAD}",
        )
    pos = failure.pos if failure.pos is not None else 0
    start = failure.start if failure.start is not None else pos
    line, column = line_and_column(text, pos)
    where = f"line {line}, column {column}"
    if failure.kind == "truncated":
        start_line, start_column = line_and_column(text, start)
        return Described(
            "The reply looks cut off: the JSON that starts at line "
            f"{start_line}, column {start_column} is still open where the reply "
            f"ends ({where}).",
            "Your reply stops before the JSON is complete. Respond with the "
            "complete JSON object, and nothing else; make it shorter if needed.",
            line,
            column,
        )
    if failure.kind == "too_deep":
        return Described(
            f"The JSON at {where} is nested too deeply: {failure.reason}.",
            f"Your JSON is nested too deeply ({failure.reason}). "
            "Respond with a flatter JSON object, and nothing else.",
            line,
            column,
        )
    return Described(
        f"Invalid JSON at {where} of the reply: {failure.reason}.\n"
        f"{excerpt(text, pos)}",
        f"Your reply is not valid JSON: {failure.reason} at {where}. "
        "Respond with only the corrected JSON object, and nothing else.",
        line,
        column,
    )
