r"""The strict-first gate: whether a reply may be one broken value.

Pure functions on ``str``; no LangChain imports. :func:`extract` reads a
reply strictly first, at its own cost, unless the reply may be one broken
value from its first character (then the whole-reply repair reads it first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import orjson

from langchain_jsonrecover._core.candidates.find import NON_SPACE

if TYPE_CHECKING:
    from langchain_jsonrecover._core.decode.tolerant import Stopped

CLOSER: Final = {"{": "}", "[": "]"}


def may_be_one_broken_value(masked: str, stop: Stopped | None = None) -> bool:
    r"""Whether ``RepairPass.repair_whole`` may read the prepared reply.

    It reads a reply that opens with ``{``, ``[`` or ``"`` as one broken
    value; a reply that is one whole JSON value as it stands gives it nothing:
    no repair applies to text that decodes, the single-edit search and the
    inner-quote pass leave it alone, and no stray closer follows it. Then
    the strict candidates read the reply at their own cost (a ``<think>``
    block before the JSON, blanked, or prose before a fence). ``stop``: where
    orjson stopped in ``masked`` (the strict read's), when known.

    Example:
        >>> may_be_one_broken_value('          {"a": [1]}\n')
        False
        >>> may_be_one_broken_value("{'a': 1}"), may_be_one_broken_value("Hi {}")
        (True, False)
    """
    if stop is not None:
        return True  # the strict read opened it with { or [ and orjson stopped
    lead = NON_SPACE.search(masked)
    if lead is None or masked[lead.start()] not in '"{[':
        return False
    opener = masked[lead.start()]
    end = len(masked)
    while masked[end - 1] in " \t\r\n":  # a non-space is there: ``lead``
        end -= 1
    if opener == '"' or masked[end - 1] != CLOSER[opener]:
        return True
    try:  # the whole text, not a copy: what surrounds the value is white space
        orjson.loads(masked)
    except orjson.JSONDecodeError:
        return True  # (or white space orjson does not take: read as before)
    return False
