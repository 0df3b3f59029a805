r"""What a caller's JSON-capturing pattern sees of a reply, and where it captures.

Pure functions on ``str``; no LangChain imports.

``RegexJsonOutputParser``'s pattern names the markup it wants
(``<tool_call>(.*?)</tool_call>``, ``\[TOOL_CALLS\]\s*(\[.*\])``), so it runs on
the reply as written. Only reasoning is hidden (blanked, offsets kept):
``<think>``-style blocks, and harmony's ``analysis`` messages, with its
``commentary`` messages too when a ``final`` message is present. A capture that
touches reasoning is skipped.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Literal

from langchain_jsonrecover._core.candidates.find import NON_SPACE, strip_space
from langchain_jsonrecover._core.candidates.kinds import Candidate, Place
from langchain_jsonrecover._core.candidates.repair import reads_markup_as_data
from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.repair.single_edit_readings import read_inner_quotes
from langchain_jsonrecover._core.repair.syntax import repair as repair_syntax
from langchain_jsonrecover._core.reply.fences import find_fences
from langchain_jsonrecover._core.reply.reasoning import (
    blank,
    harmony_messages,
    merge_spans,
    think_spans,
)

if TYPE_CHECKING:
    import re

__all__ = ["find_capture", "pattern_view", "repair_capture"]


def pattern_view(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The reply with only its reasoning blanked, and the blanked spans.

    Args:
        text: The model's reply.

    Returns:
        The reply (same offsets; ``text`` itself when nothing is reasoning)
        and the reasoning spans, in order, not overlapping.

    Example:
        >>> view, hidden = pattern_view("<think>{1}</think><tool_call>{}</tool_call>")
        >>> view.strip(), hidden
        ('<tool_call>{}</tool_call>', [(0, 18)])
    """
    if "<" not in text and "THINK]" not in text:
        return text, []
    thinking = think_spans(text)
    unthought = blank(text, thinking)
    messages = harmony_messages(unthought)
    has_final = any(m.channel == "final" for m in messages)
    harmony = [
        (m.start, m.end)
        for m in messages
        if m.channel == "analysis" or (has_final and m.channel == "commentary")
    ]
    hidden = merge_spans([*thinking, *harmony])
    return blank(text, hidden), hidden


def find_capture(
    view: str,
    pattern: re.Pattern[str],
    prefer: Literal["first", "last"],
    hidden: list[tuple[int, int]] | None = None,
) -> tuple[int, int, bool] | None:
    """Where the pattern's capture lies, stripped and out of its fence.

    A match whose capture touches a ``hidden`` span is skipped.

    Args:
        view: The text the pattern runs on.
        pattern: A compiled pattern with one capture group.
        prefer: ``"last"`` keeps the last match instead of the first.
        hidden: Spans a capture may not touch.

    Returns:
        The capture's start and end, and whether a fence was taken off; or
        ``None`` when nothing (or only whitespace) was captured.

    Example:
        >>> import re
        >>> find_capture("a <j> [1] </j>", re.compile(r"<j>(.*?)</j>"), "first")
        (6, 9, False)
    """
    spans = hidden or []
    starts = [s for s, _ in spans]
    match = None
    for found in pattern.finditer(view):
        if found.start(1) < 0 or _touches(spans, starts, found.start(1), found.end(1)):
            continue
        match = found
        if prefer == "first":
            break
    if match is None:
        return None
    start, end = strip_space(view, match.start(1), match.end(1))
    fenced = view.startswith("```", start, end)
    if fenced:
        fence = find_fences(view[start:end])[0]
        start, end = strip_space(view, start + fence.body_start, start + fence.body_end)
    return None if start == end else (start, end, fenced)


def _touches(
    spans: list[tuple[int, int]], starts: list[int], start: int, end: int
) -> bool:
    """Whether ``[start, end)`` overlaps one of the sorted, disjoint spans."""
    i = bisect_right(starts, start)
    # The span starting at or before ``start`` may reach into it; the next may
    # start before ``end``.
    return any(s < end and start < e for s, e in spans[max(i - 1, 0) : i + 1])


def repair_capture(
    masked: str, place: Place, max_depth: int, source: str | None = None
) -> Candidate | None:
    """The capture with its syntax repaired, when the repair reads all of it.

    ``source`` is the reply as written when ``masked`` blanked its markup:
    a token the repair would read as data inside a string is then two
    readings, and no repair is made.

    Example:
        >>> place = Place(0, 6, (), "regex", closed=True, whole=True)
        >>> repair_capture("{'a':1}", place, 10) is None
        True
    """
    text = masked[place.start : place.end]
    fixed = repair_syntax(text) or read_inner_quotes(text, max_depth=max_depth)
    if (
        fixed is None
        or fixed.truncated
        or (
            source is not None
            and reads_markup_as_data(source[: place.end], text, place.start, fixed)
        )
        or NON_SPACE.search(masked, place.start + fixed.end, place.end) is not None
    ):
        return None
    result = decode(fixed.text, max_depth=max_depth, allow_trailing=False)
    if not isinstance(result, Decoded):
        return None
    repairs = (*place.repairs, *fixed.repairs)
    return Candidate(place.start, place.end, "regex", repairs, value=result.value)
