"""Checks on a chosen value: what the reply's words or other values say of it.

A key written twice with different values, a call envelope that the prose
holds back, a placeholder beside a value of its keys, a value only a repair
that chooses among readings reads: each turns the chosen value into a failure.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import orjson

from langchain_jsonrecover._core.candidates.mention import (
    CALL_UNWRAPS,
    MENTIONED,
    mentioned,
)
from langchain_jsonrecover._core.candidates.placeholder import (
    is_placeholder,
    rival_of_example,
    rival_of_placeholder,
)
from langchain_jsonrecover._core.found import (
    GUESSED,
    TWO_READINGS,
    Extraction,
    ReplyFailure,
)
from langchain_jsonrecover._core.schema.keys import repeated_key
from langchain_jsonrecover._core.schema.validate import (
    Accepted,
    FieldError,
    two_readings,
)

if TYPE_CHECKING:
    from langchain_jsonrecover._core.reply.markup import Prepared
    from langchain_jsonrecover._core.schema.validate import Schema


def refuse_guess(found: Extraction, chosen: tuple[str, ...]) -> ReplyFailure:
    """The failure for a value that only a repair that chooses reads.

    Example:
        >>> found = Extraction({"a": 1}, (0, 9), "raw", ("bracket_fixed_guessed",))
        >>> refuse_guess(found, found.repairs).detail
        'guessed'
    """
    reason = f"only a repair that chooses among readings reads it ({', '.join(chosen)})"
    return ReplyFailure(
        "invalid_json", reason, pos=found.span[0], start=found.span[0], detail=GUESSED
    )


def recheck(
    prepared: Prepared,
    found: Extraction | ReplyFailure,
    max_depth: int,
    *,
    schema: Schema | None,
) -> Extraction | ReplyFailure:
    """The value, unless the reply's words or its other values say otherwise.

    With a schema, a key written twice with different values is two
    readings (:func:`~langchain_jsonrecover._core.schema.keys.repeated_key`).
    A call envelope that the prose holds back is not the answer
    (:mod:`~langchain_jsonrecover._core.candidates.mention`); a placeholder
    beside a value of its keys, or a value labelled a format or example
    before another value, is one of two readings
    (:mod:`~langchain_jsonrecover._core.candidates.placeholder`).
    """
    if not isinstance(found, Extraction):
        return found
    if schema is not None:
        found = unless_repeated(prepared.text, found)
        if not isinstance(found, Extraction):
            return found
    start = found.span[0]
    if not CALL_UNWRAPS.isdisjoint(found.repairs) and mentioned(
        prepared.text, *found.span
    ):
        error = FieldError("", MENTIONED, "")
        return ReplyFailure("schema", "", pos=start, start=start, errors=(error,))
    rival = rival_of_example(prepared.text, found.span, max_depth=max_depth)
    if rival is not None and schema is not None:
        verdict = schema.accept(rival[1])
        if isinstance(verdict, Accepted) and verdict.value == found.value:
            rival = None  # the answer read through the schema: the same value
    if rival is None and is_placeholder(found.value):
        rival = rival_of_placeholder(prepared.text, found.span, max_depth=max_depth)
    if rival is None:
        return found
    placeholder, other, other_start = rival
    error = two_readings((placeholder, start, False), (other, other_start, False))
    if schema is None:
        reason = error.message.replace(" (as it stands)", "")
        return ReplyFailure("invalid_json", reason, pos=start, start=start)
    return ReplyFailure(
        "schema", "", pos=start, start=start, detail=TWO_READINGS, errors=(error,)
    )


def unless_repeated(
    text: str, found: Extraction | ReplyFailure
) -> Extraction | ReplyFailure:
    """The value, unless a key of it is written twice with different values."""
    if not isinstance(found, Extraction):
        return found
    start, end = found.span
    repeated = repeated_key(text[start:end])
    if repeated is None:
        return found
    key, first, second = repeated
    said = [_said(v) for v in (first, second)]
    message = f"the key is written twice, with {said[0]} and {said[1]}: two readings"
    error = FieldError(key, message, said[1])
    return ReplyFailure(
        "schema", "", pos=start, start=start, detail=TWO_READINGS, errors=(error,)
    )


def _said(value: Any) -> str:
    """A value's JSON for a message, cut to 40 characters (big integers too)."""
    try:
        text = orjson.dumps(value, default=str).decode()
    except TypeError:  # an integer past 64 bits
        text = json.dumps(value, default=str, ensure_ascii=False)
    return text[:40]
