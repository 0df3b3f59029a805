"""The span finder's stack of open brackets: one frame per bracket, runs held as one.

Pure functions on ``str``; no LangChain imports.

A run of identical frames (``[[[[`` inside JSON, ``{{{{`` in prose) is held
as one frame and pushed, popped or closed by a run of closers in C (string
slicing and counting), so a megabyte of brackets costs a few operations per
run, not per bracket.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.decode.skip import (
    COMMENT_END,
    skeleton_outside_strings,
    skip_comment,
    skip_string,
)
from langchain_jsonrecover._core.spans.kinds import JSON, MAYBE, PROSE, classify

if TYPE_CHECKING:
    from langchain_jsonrecover._core.decode.tolerant import DecodeFailure

_OPENER_RUN: Final = re.compile(r"[\[{]++")
_CLOSER_OF: Final = {"{": "}", "[": "]"}
_CLOSER_RUNS: Final = {"{": re.compile(r"\}++"), "[": re.compile(r"\]++")}


def _frame_tokens(also: str) -> re.Pattern[str]:
    """Brackets, the characters ``also``, and the openers of comments."""
    return re.compile(f"[\\[\\]{{}}{also}]|//|/\\*|#")


# What the scan looks for inside a frame: brackets only in prose; quotes and
# comments in JSON (single quotes too in a Python-style dict), and colons
# where the first key was in doubt.
_PROSE_TOKENS: Final = re.compile(r"[\[\]{}]")
JSON_TOKENS: Final = _frame_tokens('"')
_MAYBE_TOKENS: Final = _frame_tokens('":')
_JSON_TOKENS_SQ: Final = _frame_tokens("\"'")
_MAYBE_TOKENS_SQ: Final = _frame_tokens("\":'")


class Frame:
    __slots__ = (
        "broken",
        "char",
        "empty",
        "failed",
        "has_colon",
        "in_json",
        "mark",
        "mode",
        "nested",
        "run",
        "squote",
        "start",
        "strings",
    )

    def __init__(  # noqa: PLR0917
        self,
        start: int,
        char: str,
        mode: int,
        empty: bool,
        mark: int,
        in_json: bool,
        strings: bool,
    ) -> None:
        self.start = start
        self.char = char
        self.mode = mode
        self.empty = empty
        self.mark = mark
        self.in_json = in_json
        self.strings = strings
        self.squote = False
        self.has_colon = False
        self.broken = False
        self.nested = False
        # A root the decoder failed on: where the text it read ended, and why.
        self.failed: tuple[int, DecodeFailure] | None = None
        # A run of identical frames held as one (``[[[[`` inside JSON, ``{{{{``
        # in prose): the brackets of the units, and how many remain; ``char``
        # is the top unit's bracket.
        self.run = ""


def pop_frame(stack: list[Frame], open_count: dict[str, int]) -> tuple[Frame, str]:
    """Pop the top frame (one unit of a run frame); return it and its bracket."""
    frame = stack[-1]
    char = frame.char
    open_count[char] -= 1
    count = len(frame.run)
    if count > 1:
        frame.run = frame.run[: count - 1]  # the unit's frame does nothing on close
        frame.char = frame.run[-1]
    else:
        stack.pop()
    return frame, char


def close_run(
    text: str, i: int, hi: int, stack: list[Frame], open_count: dict[str, int]
) -> int:
    """Close, in C, units of a top run frame with a run of their closer at ``i``.

    Returns:
        How many closers were used (0 when the top is no run frame that they
        close); the run frame keeps at least one unit, closed by the scan.
    """
    top = stack[-1]
    want = top.char
    if len(top.run) < 3 or _CLOSER_OF[want] != text[i]:
        return 0
    closers = _CLOSER_RUNS[want].match(text, i, hi)
    units = len(top.run) - len(top.run.rstrip(want))
    count = min(closers.end() - i if closers else 0, units, len(top.run) - 1)
    if count < 2:
        return 0
    top.run = top.run[:-count]
    top.char = top.run[-1]
    open_count[want] -= count
    return count


def pop_run_until(stack: list[Frame], open_count: dict[str, int], want: str) -> None:
    """Drop, in C, the units of a top run frame above its last ``want`` bracket."""
    frame = stack[-1]
    keep = frame.run.rfind(want) + 1
    dropped = frame.run[keep:]
    open_count["{"] -= dropped.count("{")
    open_count["["] -= dropped.count("[")
    if keep:
        frame.run = frame.run[:keep]
        frame.char = want
    else:
        stack.pop()


def tokens_of(frame: Frame) -> re.Pattern[str]:
    """What the scan looks for inside a frame: brackets, and its strings' quotes."""
    if not frame.strings:
        return _PROSE_TOKENS
    if frame.mode == MAYBE:
        return _MAYBE_TOKENS_SQ if frame.squote else _MAYBE_TOKENS
    return _JSON_TOKENS_SQ if frame.squote else JSON_TOKENS


def push_run(
    text: str, pos: int, hi: int, stack: list[Frame], open_count: dict[str, int]
) -> int:
    """Push the openers of a run that follow the top frame's, as one frame.

    Each opener but the run's last is followed by an opener, so all are
    alike: inside JSON, frames of JSON that close no candidate; in prose,
    ``{`` frames of prose (up to the first ``[``, which may start a
    candidate). The last opener is left to the scan, to be classified by what
    follows it.

    Returns:
        Where the scan resumes.
    """
    top = stack[-1]
    found = _OPENER_RUN.match(text, pos, hi)
    end = found.end() - 1 if found is not None else pos
    in_json = top.in_json or top.mode == JSON
    if not in_json:
        if top.mode != PROSE:
            return pos
        square = text.find("[", pos, end)
        if square >= 0:
            end = square
    if end - pos < 2:  # too short to be worth a run frame
        return pos
    run = Frame(
        pos,
        text[end - 1],
        JSON if in_json else PROSE,
        empty=False,
        mark=top.mark,
        in_json=in_json,
        strings=top.strings,
    )
    run.squote = top.squote
    run.run = text[pos:end]
    stack.append(run)
    open_count["{"] += run.run.count("{")
    open_count["["] += run.run.count("[")
    return end


def json_extent(text: str, start: int) -> int | None:
    """Where a plainly-JSON span starting at ``start`` ends (string-aware).

    Used to keep backticks inside the strings of a reply that is JSON from
    being taken for a fence.

    Args:
        text: The reply.
        start: Offset of a ``{`` or ``[``.

    Returns:
        The offset just after its closing bracket, the reply's length when it
        never closes, or ``None`` when the bracket does not open plain JSON.

    Example:
        >>> json_extent('{"a": "```"} and more', 0)
        12
    """
    mode, _ = classify(text, start, len(text))
    if mode != JSON:
        return None
    depth = 0
    pos = start
    while True:
        found = JSON_TOKENS.search(text, pos)
        if found is None:
            return len(text)
        char = found.group()
        if char == '"' or char in COMMENT_END:
            end = (
                skip_string(text, found.start())
                if char == '"'
                else skip_comment(text, found.start(), char)
            )
            if end is None:
                return len(text)
            pos = end
            continue
        depth += 1 if char in "[{" else -1
        pos = found.end()
        if depth == 0:
            return pos


_WINDOW: Final = 256
"""The first stretch :func:`skip_nested` reads; it doubles while none stops it."""
_LEAST_WINDOW: Final = 128
"""A stretch this short that stops the skip is left to the token walk."""
_PEEL_ROUNDS: Final = 32
"""Rounds of pair peeling a stretch may take, and the most frames the skip
leaves open; a stretch nesting deeper is left to the walk (which holds a run
of openers as one frame)."""


def skip_nested(
    text: str, pos: int, hi: int, depth: int, ends: tuple[int, ...] = ()
) -> tuple[int, int]:
    """Skip, in C, the stretch of a JSON root that the token walk reads blindly.

    Inside a root of plain JSON (its frame not single-quoted), the walk of
    :func:`~langchain_jsonrecover._core.spans.find.find_spans` skips each
    double-quoted string whole, pushes a frame per opener and pops one per
    closer, whatever their kinds (a closer of the wrong kind is a typo that
    closes the top frame); nothing it holds there adds a span. Only a closer
    at the root's own level (which closes it or marks it broken), a comment
    or a single quote outside the strings needs the walk. This reads the
    text from ``pos`` in stretches, each as one skeleton taken in C (its
    strings dropped by pairing the quotes, escapes marked first, its closed
    pairs peeled), and stops before the stretch that holds one of those:
    stretches double while they pass; once one does not, they halve (a
    binary search for it), so the work stays linear in what is skipped.
    Guesses at ``ends`` come first: one stretch to the last of them (before
    the root's likely closer); when it passes, the skip stops there (a root
    with one slip inside is skipped in one stretch, not twenty). Else a
    stretch to each earlier end, each once (where the decoder stopped: all
    before is JSON), and the first that does not pass leaves the rest to the
    search.

    Args:
        text: The reply.
        pos: Where the walk stands: inside the root, between tokens.
        hi: Where the scan stops.
        depth: How many frames the walk holds above the root's.
        ends: Offsets, increasing, where a stretch may end: guesses, each
            checked as any stretch is (a wrong one costs one stretch); the
            last, where the walk is needed.

    Returns:
        Where the walk resumes (``pos`` when nothing was skipped; the quote
        of a string still open at a stretch's end), and the frames it holds
        there above the root's.

    Example:
        >>> text = '{"a": [1, {"b": "]"}], ' + '"c": {"d": [2]}, ' * 20 + '"e": 3,}'
        >>> at, depth = skip_nested(text, 1, len(text), 0)
        >>> len(text), at, depth  # the walk reads the last 114 characters
        (371, 257, 2)
        >>> skip_nested('{"a": ' + '[[1, 2], ' * 30, 1, 276, 0)
        (275, 30)
    """
    at = pos
    if ends and ends[-1] <= hi:
        size, folded = _stretch(text[at : ends[-1]])
        taken = _taken(folded, depth) if size else None
        if taken is not None:
            return at + size, taken
    for end in ends[:-1]:
        if end > hi:
            break
        size, folded = _stretch(text[at:end])
        taken = _taken(folded, depth) if size else None
        if taken is None:
            break
        depth = taken
        at += size
    window, least = _WINDOW, _LEAST_WINDOW
    grow = 2  # doubling until a stretch stops the skip; then only halving
    while at < hi:
        size, folded = _stretch(text[at : min(hi, at + window)])
        if not size:  # the stretch is one string, or backslashes: widen it
            if at + window >= hi:
                break
            window *= 2
            least = window  # never narrower again until a stretch passes
            continue
        taken = _taken(folded, depth)
        if taken is None:
            if window <= least:
                break
            window, grow = window // 2, 1
            continue
        depth = taken
        at += size
        window, least = window * grow, _LEAST_WINDOW
    return at, depth


def _taken(folded: bytes, depth: int) -> int | None:
    """The depth after a stretch whose peeled skeleton is ``folded``, if taken.

    The skip takes only closers then openers, and no closer of the root's own
    level (``None``: the stretch is left).
    """
    closers = len(folded) - len(folded.lstrip(b")"))
    deeper = len(folded) - 2 * closers
    if (
        closers > depth
        or depth + deeper > _PEEL_ROUNDS  # a deep run: the walk holds it as one
        or folded.translate(None, b"()")
        or b"()" in folded
    ):
        return None
    return depth + deeper


def _stretch(chunk: str) -> tuple[int, bytes]:
    """How much of a stretch the skip may read, and its peeled skeleton.

    The stretch ends before a run of backslashes (never split), before an
    opener that only spaces follow (the walk classifies it: a single quote
    after it makes it single-quoted), and before the quote of a string it
    does not close. The skeleton keeps the brackets outside the strings,
    folded to ``(`` and ``)`` with their closed pairs peeled, and anything
    outside the strings that the walk would read otherwise (a quote, a
    comment opener, an escape mark).
    """
    chunk = chunk.rstrip("\\")
    if chunk[-1:].isspace() or chunk.endswith(("[", "{")):
        chunk = chunk.rstrip()
        if chunk.endswith(("[", "{")):
            chunk = chunk[:-1]
    size = len(chunk)
    raw = chunk.encode("utf-8", "surrogatepass")
    # An escape mark outside the strings (a backslash there) stops the skip.
    skeleton, opened = skeleton_outside_strings(raw)
    if opened >= 0:  # a string runs past the stretch: stop at its quote
        size = len(raw[:opened].decode("utf-8", "surrogatepass"))
    for _ in range(_PEEL_ROUNDS):
        peeled = skeleton.replace(b"()", b"")
        if len(peeled) == len(skeleton):
            break
        skeleton = peeled
    return size, skeleton
