"""Find markdown code fences in a reply.

Pure functions on ``str``; no LangChain imports.

Fences are found with ``str.find``; every search starts where the previous one
stopped, and a failed search for a closing line is remembered, so the whole
reply is walked a bounded number of times however many backticks it holds.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import orjson

from langchain_jsonrecover._core.decode.tolerant import END_OF_DATA, TRAILING
from langchain_jsonrecover._core.reply.probe import find_token

#: Info-string tags that mark a block as JSON (compared in lower case).
JSON_TAGS: Final = frozenset({"json", "jsonc", "json5"})

_TAG_WORD: Final = re.compile(r"[A-Za-z0-9_+.#-]*")
_TAG_LINE: Final = re.compile(r"([A-Za-z0-9_+.#-]*+)\s*+\Z")
"""An opening line holding a tag and blanks only (matched up to its end)."""
_BACKTICKS: Final = re.compile(r"`++")
# An opening fence in one call: the run, the tag, then spaces to a newline
# (group 3) or to the end; anything else on the line makes a one-line block.
_HEAD: Final = re.compile(r"(`++)([A-Za-z0-9_+.#-]*+)[^\S\n]*+(\n)?+")


class Fence(NamedTuple):
    """One fenced block: where it is and what its info string says.

    A named tuple, not a frozen dataclass: it is as immutable, and a reply
    may hold a fence every few characters, so building one must be cheap.
    """

    start: int
    """Offset of the opening backticks."""
    end: int
    """Offset just after the closing backticks (the reply's length if unclosed)."""
    body_start: int
    """Offset of the first character of the body."""
    body_end: int
    """Offset just after the body."""
    tag: str
    """The info string's first word, in lower case; ``""`` when there is none."""
    closed: bool
    """Whether a closing fence was found."""

    @property
    def is_json(self) -> bool:
        """Whether the tag names JSON."""
        return self.tag in JSON_TAGS


def find_fences(text: str) -> list[Fence]:
    r"""List the fenced blocks of ``text`` in order.

    An opening fence is a run of three or more backticks anywhere but right
    after a quote (``"```json`` starts a string's content); its info
    string runs to the end of the line (a one-line block such as
    ```` ```json {"a": 1}``` ```` has its body on that line). The closing fence
    is the first run at least as long that starts a line (after indentation);
    failing that, the first such run anywhere (a model writing ```` }``` ````);
    failing that, the block runs to the end of the reply, unclosed.

    Args:
        text: The reply, possibly with reasoning masked.

    Returns:
        The fences, in text order, not overlapping.

    Example:
        >>> [f.tag for f in find_fences("a\n```json\n{}\n```\n```py\nx\n```")]
        ['json', 'py']
    """
    fences: list[Fence] = []
    length = len(text)
    # Per marker length: the offset from which no such run starts a line,
    # learnt from a failed search, so that no later search repeats it.
    no_line_start_from: dict[int, int] = {}
    pos = 0
    while (start := find_token(text, "```", pos)) >= 0:
        head = _HEAD.match(text, start)
        if head is None:  # pragma: no cover - a run of three always matches
            return fences
        run_end = head.end(1)
        if start and text[start - 1] in "\"'":
            pos = run_end  # glued to a quote: a string's content, not a fence
            continue
        tag_end = head.end(2)
        head_end = head.end()
        one_line = head.start(3) < 0 and head_end < length
        body_start = tag_end if one_line else head_end
        tag = text[run_end:tag_end].lower()
        close = _find_close(
            text, run_end - start, body_start, no_line_start_from, one_line=one_line
        )
        if close < 0:
            fences.append(Fence(start, length, body_start, length, tag, closed=False))
            return fences
        pos = close + _run_length(text, close)
        fences.append(Fence(start, pos, body_start, close, tag, closed=True))
    return fences


def outer_fence(text: str, first: int | None = None) -> Fence | None:
    r"""The block from the first fence to the last run of backticks, if any.

    A guess for the common reply with one fenced block, found in two short
    searches (from the start, and from the end) instead of a walk through the
    body. The guess is right when the body decodes as JSON: JSON text cannot
    hold a line that starts with backticks, so no fence closes earlier, and no
    other block follows.

    Args:
        text: The reply (reasoning masked).
        first: Where the first run of three backticks starts, when the caller
            has found it (``find_token(text, "```")``).

    Returns:
        The guessed block, or ``None`` when the last run does not start a line
        or there is only one run.

    Example:
        >>> fence = outer_fence('Here:\n```json\n{"a": 1}\n```\nBye')
        >>> fence.tag, fence.body_start, fence.body_end
        ('json', 14, 23)
    """
    start = find_token(text, "```") if first is None else first
    if start < 0 or _quoted(text, start):
        return None
    # Each step's common case inline (a run of three, a closing line that
    # starts after a newline): on a 300-byte reply the calls cost as much
    # as the searches.
    after = start + 3 if text[start + 3 : start + 4] != "`" else _run_end(text, start)
    last = text.rfind("```")
    while last > after and text[last - 1] == "`":
        last -= 1
    if last <= after:
        return None
    newline = text.find("\n", after, last)
    if newline >= 0 and text[after:newline] == "json":
        tag, body_start = "json", newline + 1  # the common line, as _opening reads it
    else:
        tag, body_start = _opening(text, after, newline if newline >= 0 else last)
    if body_start > last or (
        text[last - 1] != "\n" and not _starts_line(text, last, body_start)
    ):
        return None
    end = last + 3 if text[last + 3 : last + 4] != "`" else _run_end(text, last)
    return Fence(start, end, body_start, last, tag, closed=True)


def _quoted(text: str, start: int) -> bool:
    """Backticks glued to a quote are a string's content, not a fence."""
    return start > 0 and text[start - 1] in "\"'"


def _opening(text: str, after: int, line_end: int) -> tuple[str, int]:
    """The tag of an opening fence (its run ends at ``after``); its body's start."""
    opening = _TAG_LINE.match(text, after, line_end)
    if opening is not None:  # the common line: a tag, then blanks to its end
        return opening.group(1).lower(), line_end + (line_end < len(text))
    # More on the line: a one-line block, its body right after the tag.
    tag = _TAG_WORD.match(text, after, line_end)
    tag_end = tag.end() if tag else after
    return text[after:tag_end].lower(), tag_end


def _find_close(
    text: str,
    size: int,
    body_start: int,
    no_line_start_from: dict[int, int],
    *,
    one_line: bool = False,
) -> int:
    """Find the closing run of ``size`` or more backticks for a block's body."""
    marker = "`" * size
    # No line-start run of length >= m after P rules out every longer length too.
    limit = len(text) + 1
    if no_line_start_from:
        for length, pos in no_line_start_from.items():
            if length <= size and pos < limit:
                limit = pos
    search = body_start
    # The first run after the body's start, once a search has met it: a
    # search that met none read to the end (an unclosed block, as a cut
    # reply leaves it), and no second search repeats that read. Each search
    # goes through one backtick (``find_token``): a memchr, where a search
    # for three costs up to fifty times as much on non-Latin-1 text.
    first = -2
    while search < limit:
        found = find_token(text, marker, search)
        if first == -2:
            first = found
        if found < 0:
            break
        if (
            found == body_start
            or text[found - 1] in "\r\n"
            or (text[found - 1] in " \t" and _starts_line(text, found, body_start))
        ):
            return found
        search = found + _run_length(text, found)
    no_line_start_from[size] = min(no_line_start_from.get(size, body_start), body_start)
    if first == -2:  # the limit stopped the walk before any search
        # No closing line: the first run anywhere (`}```` at the end of a line).
        first = find_token(text, marker, body_start)
    if one_line and first >= 0:
        return _json_close(text, marker, body_start, first)
    return first


def _json_close(text: str, marker: str, body_start: int, first: int) -> int:
    """The close of a one-line block whose first run may be inside a string.

    ```` ```json ["```"]``` ```` holds a run in its string: the body up to
    the first run (`` ["``) is a JSON array or object cut inside it. Then
    the line is read on: when that value runs over the first run and a run
    follows it (after spaces), that run closes the block. No other run
    could: the body up to a later run starts with that whole value, and the
    backticks after it are no JSON. Any other body keeps the first run (as
    before: a bare string there is prose as likely as JSON).
    """
    if text[body_start:first].lstrip(" \t\r\n")[:1] not in ("[", "{"):
        return first
    # Windows that double from the first run, so that a value cut short
    # costs what it reads, not the rest of a long line (a line of such
    # blocks stays linear); the last one ends at the end of the line.
    end, last = first, False
    while True:
        try:
            orjson.loads(text[body_start:end])
        except orjson.JSONDecodeError as exc:
            at = body_start + exc.pos
            if exc.msg.startswith(TRAILING) and text.startswith(marker, at):
                return at
            if not exc.msg.startswith(END_OF_DATA) or last:
                return first
        else:
            if end == first or text.startswith(marker, end):
                return end  # the value and spaces up to a run
            if last:
                return first
        start, end = end, min(len(text), end + (end - body_start))
        line_end = text.find("\n", start, end)
        if line_end >= 0 or end == len(text):
            end, last = (line_end if line_end >= 0 else end), True


def _starts_line(text: str, index: int, body_start: int) -> bool:
    """Whether only spaces or tabs stand between ``index`` and a line start."""
    i = index - 1
    while i >= body_start and text[i] in " \t":
        i -= 1
    return i < body_start or text[i] in "\r\n"


def _run_length(text: str, start: int) -> int:
    """Length of the run of backticks starting at ``start`` (three at least)."""
    if not text.startswith("`", start + 3):
        return 3  # the common fence: no regex call
    return _run_end(text, start) - start


def _run_end(text: str, start: int) -> int:
    """Where the run of backticks starting at ``start`` ends."""
    run = _BACKTICKS.match(text, start)
    return run.end() if run is not None else start
