"""Repair only the object a slip is in, and splice it back into the text.

Pure functions on ``str``; no LangChain imports.

Where orjson stops at a slip, the text before the stop is strict JSON, which
the repair pass copies as it stands: its reading of the whole text can differ
from the text only from the container the slip is in. :func:`repair_object`
finds the innermost object open at the stop (by orjson calls on short
slices, in C), runs the pass over that object alone, splices what it wrote
back between the text before the object and the text after it, and decodes
the whole once. A reply of many records with one lost comma costs a pass
over one record instead of over every record.

The result is the whole pass's, or ``None`` (the caller then runs that
pass). It is ``None`` wherever the object's reading could depend on the text
outside it: when the pass refused the object, ran out of text inside it, or
made a repair other than the local ones of :data:`LOCAL` (a ``*_guessed``
repair reads what follows, and the containers around, to choose); and when
the spliced text is not strict JSON to its end (a second slip after the
object, prose after the value). The caller has checked what else makes the
pass read strict JSON otherwise than orjson does (typographic or fullwidth
quotes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.decode.skip import skeleton_outside_strings
from langchain_jsonrecover._core.decode.tolerant import TRAILING, loads_within
from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.walk import DEEPEST, rewrite, rewrite_within

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_jsonrecover._core.decode.tolerant import Stopped

LOCAL: Final = frozenset(
    {
        "comma_inserted",
        "trailing_comma_removed",
        "python_literal_replaced",
        "key_quoted",
    }
)
"""The repairs the pass decides from the object's own tokens: a splice that
needs any other is left to the whole pass."""
_TRIES: Final = 16
"""Openers tried back from the stop: past them the object is far (a slip in a
long array), and the whole pass reads the text."""
_AFTER_STOP: Final = 64
"""Characters past the stop each slice keeps, for orjson to see the same slip."""
_WHITE: Final = " \t\r\n"
_ROUNDS: Final = 16
"""Levels of brackets closed before the object that :func:`open_at` pairs
off (one pass in C each); past them the whole pass reads the text."""
_PAIRS: Final = (b"{}", b"[]")


def repair_object(
    text: str, stop: Stopped
) -> tuple[str, tuple[str, ...], int, Any] | None:
    """The pass's reading of ``text`` when its slip is inside one object.

    Args:
        text: The candidate, from its opening bracket.
        stop: Where orjson stopped in ``text``, and why.

    Returns:
        The strict text, its repairs, the offset just after the value in
        ``text`` and the decoded value; or ``None`` (see the module).

    Example:
        >>> from langchain_jsonrecover._core.decode.tolerant import stop_in
        >>> text = '[{"a": 1}, {"b": 2 "c": 3}]'
        >>> repair_object(text, stop_in(text))[:3]
        ('[{"a": 1}, {"b": 2, "c": 3}]', ('comma_inserted',), 27)
    """
    start = _innermost_object(text, stop)
    if start <= 0:
        return None  # none, or the whole value: the pass reads it as it would
    repairs: dict[str, None] = {}
    found = rewrite(text[start:], repairs)
    if found is None or found[1] or not repairs:
        return None
    out, _, end = found
    end += start
    if not LOCAL.issuperset(repairs):
        # A guess reads the containers around the object: the pass resumed
        # at the object, as it stands there when it reads all of the text.
        outer = open_at(text, start)
        repairs = {}
        found = None if outer is None else rewrite_within(text, start, outer, repairs)
        if found is None or found[1]:
            return None
        out, _, end = found
    spliced = text[:start] + out + text[end:]
    try:
        # orjson reads 1024 levels, as the pass does: no refusal for depth.
        value, _ = loads_within(spliced, DEEPEST)
    except orjson.JSONDecodeError:
        return None
    return spliced.rstrip(_WHITE), tuple(repairs), len(text.rstrip(_WHITE)), value


def _innermost_object(text: str, stop: Stopped) -> int:
    """The offset of the innermost object open where orjson stopped, or -1.

    See :func:`open_back`: orjson reading from it stops where it stopped in
    the whole text and for the same reason.
    """
    if stop.msg.startswith(TRAILING):
        return -1  # the value closed before the stop: no object is open there
    return open_back(text, stop.pos, stop.pos, lambda msg: msg == stop.msg)


def open_back(
    text: str, pos: int, stop: int, same: Callable[[str], bool], openers: str = "{"
) -> int:
    """The last opener before ``pos`` whose container is open at ``stop``, or -1.

    ``stop`` is where orjson stopped in ``text``. An opener (one of
    ``openers``) is it when it is outside strings and orjson, reading from
    it, stops at ``stop`` for a reason ``same`` takes for the one it stopped
    for in the whole text: it then read the same tokens up to there, inside
    that container (had the container closed before, orjson would have
    stopped at what follows it). Tried back for ``_TRIES`` openers.

    Example:
        >>> text = '[{"a": 1}, {"b": [2 3]}]'
        >>> open_back(text, 20, 20, bool, "{["), open_back(text, 20, 20, bool)
        (17, 11)
    """
    hi = stop + _AFTER_STOP
    for _ in range(_TRIES):
        pos = max(text.rfind(opener, 0, pos) for opener in openers)
        if pos < 0:
            return -1
        try:
            orjson.loads(text[pos:hi])
        except orjson.JSONDecodeError as exc:
            if exc.pos == stop - pos and same(exc.msg):
                line = text.rfind("\n", 0, pos) + 1
                outside = tok.STRICT_LINE.match(text, line, pos)
                if outside is not None and outside.end() == pos:
                    return pos
    return -1


def open_at(text: str, start: int) -> str | None:
    """The containers open at ``start`` (outermost first); ``text`` before it is strict.

    The brackets outside strings before ``start`` are taken in C
    (``skeleton_outside_strings``), and the pairs that close before it are
    dropped, one level of nesting per round; ``None`` past :data:`_ROUNDS`.

    Example:
        >>> open_at('{"a": [{"b": "]"}, {"c": 1', 19)
        '{['
    """
    skeleton, _ = skeleton_outside_strings(
        text[:start].encode("utf-8", "surrogatepass"), fold=False
    )
    for _ in range(_ROUNDS):
        paired = skeleton.replace(_PAIRS[0], b"").replace(_PAIRS[1], b"")
        if paired == skeleton:
            return paired.decode() if paired.strip(b"{[") == b"" else None
        skeleton = paired
    return None
