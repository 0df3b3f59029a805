"""Read a reply through one of a parser's entry points, by name."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from _chunked_chat import ChunkedChat

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
