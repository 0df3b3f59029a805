"""Helpers of the candidate scan: prose spans, their order, values that stand together.

Pure functions on ``str``; no LangChain imports.

Objects come before arrays, in text order (``prefer="last"``: reversed), and
the reply's own value first (:func:`order_spans`). Values apart only by
whitespace or one comma (``{"a": 1}{"b": 2}``, JSON Lines) are several values
in one place, never one answer (:func:`glued_runs`, :func:`values_after`):
the candidate layer fails them, or lists them for a schema that wants a list.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.reply.fences import Fence
from langchain_jsonrecover._core.spans.find import find_spans
from langchain_jsonrecover._core.spans.kinds import Span

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_jsonrecover._core.candidates.kinds import Candidate, Place
    from langchain_jsonrecover._core.decode.tolerant import Stopped


SEVERAL: Final = "several_values"
SEVERAL_REASON: Final = (
    "several JSON values stand together (JSON Lines, or values glued one after "
    "the other): which one is the answer?"
)
_CITATION_MAX: Final = 9999
_GAP: Final = re.compile(r"[ \t\r\n]*+,?+[ \t\r\n]*+")
_NON_SPACE: Final = re.compile(r"\S")
_BRACKETS: Final = re.compile(r"[\s\[\]{},]*+")
# A span's fields read in C, over every span at once (JSON-like prose holds
# one per brace): its start, end, closed, is_object and empty.
_STARTS: Final = itemgetter(0)
_ENDS: Final = itemgetter(1)
_CLOSED: Final = itemgetter(2)
_OBJECTS: Final = itemgetter(3)
_EMPTIES: Final = itemgetter(4)


def order_spans(
    text: str, spans: Sequence[Span], raw: int, *, last: bool
) -> list[Span]:
    """The prose spans in the order they are tried: objects before arrays.

    The reply's own value (the span it starts with) comes first when it is an
    object, or an array that nothing visible follows; an array that starts
    the reply and that prose follows (``[2] The filing says {...}``) is a
    citation like any other, tried after the objects. Within each group,
    text order (``last``: reversed, and the reply's own object is no longer
    first); empty brackets after the others.

    Example:
        >>> spans = [Span(0, 3, True, False, False), Span(8, 16, True, True, False)]
        >>> [s.start for s in order_spans('[2] see {"a": 1}', spans, 0, last=False)]
        [8, 0]
    """
    if len(spans) < 2 or (not last and _objects_in_text_order(spans)):
        # One span; or the key below is (not own, start), and the own one
        # starts at ``raw``, before any other: text order.
        return list(spans)
    sign = -1 if last else 1

    def key(span: Span) -> tuple[bool, bool, bool, int]:
        own = span.start == raw and (
            (span.is_object and not last) or _NON_SPACE.search(text, span.end) is None
        )
        return (not own, span.empty, not span.is_object, sign * span.start)

    return sorted(spans, key=key)


def glued_runs(text: str, spans: Sequence[Span]) -> list[list[Span]]:
    r"""Runs of two or more spans apart only by spaces or a comma.

    Each is closed but the last span of the prose, which may be cut off
    (``{"a": 1}\n{"b": 2`` is JSON Lines cut in its second value, never the
    first value alone). A citation (an array of reference numbers) beside an object is
    not glued to it:
    ``{"a": 1} [4]`` stays two candidates, objects first. Each gap is read
    once, so the look is linear in the reply.

    Example:
        >>> text = '{"a": 1}{"b": 2} and [3]'
        >>> spans = [Span(0, 8, True, True, False), Span(8, 16, True, True, False),
        ...          Span(21, 24, True, False, False)]
        >>> [[s.start for s in run] for run in glued_runs(text, spans)]
        [[0, 8]]
    """
    if len(spans) < 2 or not _any_glued(text, spans):
        return []
    runs: list[list[Span]] = []
    current: list[Span] = []
    for span in spans:
        if (
            current
            and current[-1].closed
            and (span.closed or span is spans[-1])
            and not span.nested
            and _GAP.fullmatch(text, current[-1].end, span.start) is not None
            and not _citation_beside_object(current[-1], span)
        ):
            current.append(span)
            continue
        if len(current) > 1:
            runs.append(current)
        current = [span]
    if len(current) > 1:
        runs.append(current)
    return runs


def _objects_in_text_order(spans: Sequence[Span]) -> bool:
    """Whether the spans are all objects, none empty, in text order (read in C)."""
    if not all(map(_OBJECTS, spans)) or any(map(_EMPTIES, spans)):
        return False
    starts = list(map(_STARTS, spans))
    return starts == sorted(starts)


def _any_glued(text: str, spans: Sequence[Span]) -> bool:
    """Whether two spans in a row are apart only by spaces or a comma (in C)."""
    ends = map(_ENDS, spans[:-1])
    return any(map(_GAP.fullmatch, repeat(text), ends, map(_STARTS, spans[1:])))


def _citation_beside_object(left: Span, right: Span) -> bool:
    """Whether one span is an object and the other an array of numbers (``[4]``)."""
    if left.is_object == right.is_object:
        return False
    return _is_citation(right if left.is_object else left)


def fold_runs(text: str, spans: list[Span]) -> tuple[list[Span], dict[int, list[Span]]]:
    """The spans with each glued run folded into one span, and the runs by start.

    Example:
        >>> text = '{"a": 1}{"b": 2}'
        >>> spans = [Span(0, 8, True, True, False), Span(8, 16, True, True, False)]
        >>> folded, runs = fold_runs(text, spans)
        >>> [(s.start, s.end) for s in folded], list(runs)
        ([(0, 16)], [0])
    """
    runs = {run[0].start: run for run in glued_runs(text, spans)} if spans else {}
    if not runs:
        return spans, runs
    members = {span.start for run in runs.values() for span in run}
    kept = [span for span in spans if span.start not in members]
    return kept + [_merged(run) for run in runs.values()], runs


def _merged(run: Sequence[Span]) -> Span:
    """One span over a run of glued spans (an object if any of its values is)."""
    is_object = any(span.is_object for span in run)
    return Span(
        run[0].start, run[-1].end, closed=True, is_object=is_object, empty=False
    )


def another_value(text: str, end: int, max_depth: int) -> bool:
    """Whether a whole value follows ``end`` after spaces or a comma (glued).

    Example:
        >>> another_value('{"a": 1} {"b": 2}', 8, 200), another_value("[1] and", 3, 200)
        (True, False)
    """
    if not value_follows(text, end, len(text)):
        return False
    rest = values_after(text, end, len(text), max_depth=max_depth)
    return rest is not None and bool(rest[0])


def values_after(
    text: str, end: int, hi: int, *, max_depth: int
) -> tuple[list[Any], int] | None:
    r"""The values that follow a value ending at ``end``, up to ``hi`` (a block's end).

    Each next value starts with ``{`` or ``[`` after whitespace or one comma;
    the first text that does not stops the run (a note after the values).

    Returns:
        The values and where the last one ends; ``None`` when one of them does
        not decode (several values, one broken).

    Example:
        >>> values_after('{"a": 1}\n{"b": 2}\n[3]', 8, 21, max_depth=9)
        ([{'b': 2}, [3]], 21)
    """
    values: list[Any] = []
    while True:
        gap = _GAP.match(text, end, hi)
        pos = gap.end() if gap is not None else end
        if pos >= hi or text[pos] not in "{[":
            return values, end
        result = decode(text[pos:hi], max_depth=max_depth, allow_trailing=True)
        if not isinstance(result, Decoded):
            return None
        values.append(result.value)
        end = pos + result.end


def find_prose_spans(
    text: str,
    lo: int,
    fences: Sequence[Fence],
    *,
    max_depth: int,
    stop: Stopped | None = None,
) -> list[Span]:
    """The JSON-like spans from ``lo`` on, outside the fences.

    ``stop``: where orjson stopped in all of ``text``, if a read learnt it.
    """
    budget = [2 * len(text) + 1024]
    spans: list[Span] = []
    gap_start = lo
    for fence in fences:
        if fence.start > gap_start:
            spans += find_spans(
                text, gap_start, fence.start, max_depth=max_depth, budget=budget
            )
        gap_start = max(gap_start, fence.end)
    end = len(text)
    spans += find_spans(
        text, gap_start, end, max_depth=max_depth, budget=budget, stop=stop
    )
    if not all(map(_CLOSED, spans)) and any(
        not s.closed and s.end < end for s in spans
    ):
        # A JSON span runs into a "fence": the backticks were inside its
        # strings. Read the prose again as one piece.
        spans = find_spans(text, lo, end, max_depth=max_depth, budget=budget, stop=stop)
    return spans


def value_follows(text: str, end: int, hi: int) -> bool:
    """Whether another value (``{`` or ``[``) follows ``end``, after spaces or a comma.

    Example:
        >>> value_follows('{"a": 1}, {"b": 2}', 8, 18), value_follows('{} note', 2, 7)
        (True, False)
    """
    gap = _GAP.match(text, end, hi)
    pos = gap.end() if gap is not None else end
    return pos < hi and text[pos] in "{["


def closer_follows(text: str, end: int, hi: int) -> bool:
    """Whether the next visible character before ``hi`` is a ``]`` or ``}``."""
    found = _NON_SPACE.search(text, end, hi)
    return found is not None and found.group() in "]}"


def only_brackets(text: str, start: int, end: int) -> bool:
    r"""Whether ``text[start:end]`` holds brackets, commas and spaces only (strays).

    Example:
        >>> only_brackets('{"a": 1}[\n', 8, 10), only_brackets('{"a": 1}{"b', 8, 11)
        (True, False)
    """
    return _BRACKETS.fullmatch(text, start, end) is not None


def value_in_rest(text: str, start: int, end: int, *, max_depth: int) -> bool:
    r"""Whether a JSON-like value (not a citation) stands in ``text[start:end]``.

    Read only when text follows a block's first value (rare): a block that
    holds a second value after a note (``[1]\n\nSee: {...}``) holds several.

    Example:
        >>> value_in_rest('{"a": 1} and {"b": 2}', 8, 21, max_depth=9)
        True
        >>> value_in_rest('{"a": 1} see [3]', 8, 16, max_depth=9)
        False
    """
    budget = [2 * (end - start) + 1024]
    spans = find_spans(text, start, end, max_depth=max_depth, budget=budget)
    return any(span.closed and not _is_citation(span) for span in spans)


def _is_citation(span: Span) -> bool:
    """An array of reference numbers only (``[4]``, ``[1, 2]``).

    Whole numbers from 0 to 9999: ``[2.5, 0.1]`` or ``[-3]`` is data, so it
    and an object beside it are two values, never a citation and the answer.
    """
    value = span.decoded.value if span.decoded is not None else None
    return isinstance(value, list) and all(
        type(v) is int and 0 <= v <= _CITATION_MAX for v in value
    )


def block_is_broken(text: str, start: int, end: int, *, max_depth: int) -> bool:
    """Whether the structure of a block shows its first value is part of a broken one.

    Read only when text follows the first value inside the block (rare).
    """
    budget = [2 * (end - start) + 1024]
    spans = find_spans(text, start, end, max_depth=max_depth, budget=budget)
    return bool(spans) and spans[0].broken


def shift_fence(fence: Fence, offset: int) -> Fence:
    """``fence`` found in ``text[offset:]``, in offsets of ``text``."""
    return Fence(
        fence.start + offset,
        fence.end + offset,
        fence.body_start + offset,
        fence.body_end + offset,
        fence.tag,
        closed=fence.closed,
    )


def has_prose(text: str, start: int, end: int, *, check_before: bool) -> bool:
    """Whether visible text stands before ``start`` or after ``end``."""
    if check_before and _NON_SPACE.search(text, 0, start) is not None:
        return True
    return _NON_SPACE.search(text, end) is not None


def reuse_guess(
    known: tuple[Place, Candidate] | None, place: Place
) -> Candidate | None:
    """The guess's reading, when decoding ``place`` would give the same.

    A value that ended inside the block is what any text starting where it
    does and holding it reads to; anything else holds for the same place only.
    """
    if known is None:
        return None
    guessed, candidate = known
    if (guessed.start, guessed.repairs) != (place.start, place.repairs):
        return None
    if candidate.failure is None and candidate.end <= place.end:
        return candidate
    return candidate if guessed == place else None
