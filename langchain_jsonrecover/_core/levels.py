"""The levels of ``repair``: which repairs choose among readings of a reply.

Pure functions on ``str``; no LangChain imports. ``repair="safe"`` (the
default of every entry point) repairs as ``repair=True`` does, then refuses a
value whose repairs chose among readings: so it answers a subset of what
``repair=True`` answers, and never a value ``repair=True`` would not give.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from langchain_jsonrecover._core.decode.skip import skip_comment, skip_string

Repair = bool | Literal["safe"]
"""How much syntax repair a parse may do: ``False`` none; ``"safe"`` (the
default) only the repairs with one reading; ``True`` every repair, the ones
that choose among readings too (see ``guesses``)."""

# The single-edit search's names: one edit chosen among all that could fix it.
_SINGLE_EDITS: Final = frozenset(
    {
        "character_dropped",
        "character_inserted",
        "character_replaced",
        "characters_swapped",
        # The schema picks one of the places a row's lost ``[`` could go.
        "row_opener_added",
    }
)
# Repairs that find the value without choosing: a set of them takes no look.
_FOUND_ONLY: Final = frozenset(
    {
        "fence_stripped",
        "json_label_dropped",
        "prose_trimmed",
        "reasoning_skipped",
        "markup_matched",
        "control_characters_escaped",
    }
)
# What a ``#`` comment is looked for outside of: strings and other comments.
_HASH_OR_SKIPPED: Final = re.compile(r"""["'#]|//|/\*""")


def guesses(
    repairs: tuple[str, ...], text: str, span: tuple[int, int]
) -> tuple[str, ...]:
    r"""The repairs of a value that chose among readings of its text.

    They are the ``*_guessed`` repairs, the single-edit search's fixes (and
    ``row_opener_added``, where a schema picks one of them) and a
    ``#`` comment removed (a ``#`` may be text a lost quote let out of a
    string); ``repair="safe"`` refuses a value that needs one of them. A
    ``//`` or ``/* */`` comment has one reading.

    Args:
        repairs: The repairs the value took, in order.
        text: The reply.
        span: Where the value's text lies in ``text``.

    Returns:
        Those repairs' names, in ``repairs`` order; empty when the value has
        one reading.

    Example:
        >>> repairs = ("single_quotes_replaced", "comment_removed")
        >>> guesses(repairs, "{'a': 1, # note\n}", (0, 16))
        ('comment_removed',)
        >>> guesses(repairs, "{'a': '#1', // note\n}", (0, 20))
        ()
    """
    if _FOUND_ONLY.issuperset(repairs):  # the common case, in one C call
        return ()
    hashed = "comment_removed" in repairs and _hash_outside(text, *span)
    return tuple(
        name
        for name in repairs
        if name.endswith("_guessed")
        or name in _SINGLE_EDITS
        or (hashed and name == "comment_removed")
    )


def _hash_outside(text: str, start: int, end: int) -> bool:
    """Whether a ``#`` lies outside strings and ``//``, ``/* */`` comments.

    A string or ``/*`` comment left open is taken to hold a ``#`` when any
    follows (a refusal, never a guess taken), so the scan stays one pass.
    """
    pos = start
    while (found := _HASH_OR_SKIPPED.search(text, pos, end)) is not None:
        mark = found.group()
        if mark == "#":
            return True
        skipped = (
            skip_string(text, found.start(), end)
            if mark in {'"', "'"}
            else skip_comment(text, found.start(), mark, end)
        )
        if skipped is None:
            return mark != "//" and "#" in text[found.end() : end]
        pos = skipped
    return False
