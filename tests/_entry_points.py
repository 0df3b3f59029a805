"""Read a reply through one of a parser's entry points, by name; or through all."""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any, Final

from _chunked_chat import ChunkedChat
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core.extract import extract

if TYPE_CHECKING:
    from collections.abc import Callable

ENTRY_POINTS: Final = ["parse", "invoke", "ainvoke", "stream"]


def read_through(parser: Any, reply: str, entry: str, *, seed: int = 3) -> Any:
    """``parse``, ``invoke``, ``ainvoke``, or the last item streamed in chunks."""
    if entry == "parse":
        return parser.parse(reply)
    if entry == "invoke":
        return parser.invoke(reply)
    if entry == "ainvoke":
        return asyncio.run(parser.ainvoke(reply))
    return list((ChunkedChat(reply=reply, seed=seed) | parser).stream("hi"))[-1]


class _Person(BaseModel):
    name: str
    age: int = 0


def _answer(call: Callable[[], Any]) -> Any:
    """A value, or an error in full (its message, observation and reply too)."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - compared in full
        return (
            type(exc).__name__,
            str(exc),
            getattr(exc, "observation", None),
            getattr(exc, "llm_output", None),
        )


def every_answer(text: str) -> list[Any]:
    """What every way of reading ``text`` says: ``extract`` at each repair
    level and preference, closing a cut, and three parsers (no repair, a
    schema, the truncation parser with repair), for tests that compare a
    shortcut with the path it replaces."""
    calls: list[Callable[[], Any]] = [
        functools.partial(extract, text, repair=repair, prefer=prefer)
        for repair in (False, "safe", True)
        for prefer in ("first", "last")
    ]
    calls.append(functools.partial(extract, text, close_truncated=True, repair=False))
    calls.extend(
        functools.partial(parser.parse, text)
        for parser in (
            JsonFenceOutputParser(repair=False),
            JsonFenceOutputParser(pydantic_object=_Person),
            TruncationRecoveringOutputParser(repair=True),
        )
    )
    return [_answer(call) for call in calls]
