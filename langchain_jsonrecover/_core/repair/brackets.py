"""The repair pass's closing brackets: which open container each one closes.

A bracket of its container's kind closes it. One of the wrong kind is read
as a typo, or as the closer of the container below after a lost closer,
only where one reading fits (``bracket_fixed_guessed``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import orjson

from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.tokens import match_end

if TYPE_CHECKING:
    from langchain_jsonrecover._core.repair.state import Mark, Pass

CLOSER: Final = {"{": "}", "[": "]"}
"""The closing bracket of each opening one."""
_OPENER: Final = {"}": "{", "]": "["}


def close_containers(p: Pass, *, empty: bool) -> bool:
    """Close containers for the bracket at ``p.pos``; ``False`` when it fits none.

    A bracket of the wrong kind is read as a typo only where one reading
    fits: never for an empty container (``{]``: which bracket is wrong?), and
    a missing closer is supplied only for a container that holds no other
    (``[{"a": 1]``), since a closer lost inside a nested one cannot be placed.

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start('{"a": 1]', {})
        >>> p.pos = 7
        >>> close_containers(p, empty=False), p.out, p.repairs
        (True, ['{', '}'], {'bracket_fixed_guessed': None})
    """
    text, pos, stack = p.text, p.pos, p.stack
    char = text[pos]
    top = stack[-1]
    if CLOSER[top] == char:
        p.out.append(char)
        p.pop()
        p.pos = pos + 1
        return True
    if empty:
        return False
    want = _OPENER[char]
    if p.parent() == want:
        if not _close_below(p, char):
            return False
    elif p.opened[want] == 0:
        # Nothing open that this bracket could close: it is the wrong kind,
        # unless it ends the top-level value and a comma says the value goes
        # on (``[{"a": 1}}, {"b": 2}]``: a stray bracket, not a wrong one).
        if len(stack) == 1 and match_end(tok.COMMA_AHEAD, text, pos + 1) > pos + 1:
            return False
        p.out.append(CLOSER[top])
        p.pop()
        p.pos = pos + 1
    else:
        return False
    p.repairs["bracket_fixed_guessed"] = None
    return True


def _close_below(p: Pass, char: str) -> bool:
    """Close for a bracket ``char`` of the wrong kind, the kind of the one below.

    Either the bracket is the wrong kind for the top container and the text
    goes on inside the one below, or the top one's closer is missing and the
    bracket closes the one below: what follows the bracket decides.
    """
    text, pos, stack = p.text, p.pos, p.stack
    top, below = stack[-1], stack[-2]
    nxt = match_end(tok.SPACE, text, pos + 1)
    if text.startswith(CLOSER[top], nxt) and _fits_swap(text, nxt + 1, stack):
        # ``}]`` for ``]}``: two closers swapped, both used.
        p.out.append(CLOSER[top])
        p.pop()
        p.out.append(char)
        p.pop()
        p.pos = nxt + 1
        return True
    comma = match_end(tok.COMMA_AHEAD, text, pos + 1)
    # ``]]`` for ``}]``: the next bracket closes ``below``, so this one
    # is the wrong kind (read as a lost closer, that one would be stray).
    wrong_kind = text.startswith(char, nxt)
    if comma > pos + 1:
        ahead = match_end(tok.LOOK_GAP, text, comma)
        if ahead < len(text):
            is_key = match_end(tok.KEY_AHEAD, text, ahead) > ahead
            wrong_kind = is_key == (below == "{")
    if not wrong_kind and not _may_close(p):
        return False
    p.out.append(CLOSER[top])
    p.pop()
    if not wrong_kind:
        p.out.append(char)
        p.pop()
    p.pos = pos + 1
    return True


def array_may_close(p: Pass, mark: Mark, upto: int | None) -> bool:
    """Whether a lost ``]`` is the only reading of an open array.

    A stray ``[`` reads as well when the array holds one item (``"id": [7,``)
    or an array that has closed (its ``]`` may have been this one's).
    """
    if mark.array_closed:
        return False
    try:
        return len(orjson.loads(p.content(mark, upto) + "]")) >= 2
    except orjson.JSONDecodeError:
        return False


def _may_close(p: Pass) -> bool:
    """Whether the top container's closer is surely what went missing.

    Only when no container of its kind closed inside it (that closer may
    have been this one's), an array holds two items or more (one item may sit
    in a stray ``[``), and the text after the bracket goes on as it may after
    the container below: a comma, a closer, or (at the top level) anything.
    """
    top, mark = p.stack[-1], p.marks[-1]
    if mark.object_closed if top == "{" else mark.array_closed:
        return False
    if top == "[" and not array_may_close(p, mark, None):
        return False
    if len(p.stack) == 2:
        return True
    ahead = match_end(tok.LOOK_GAP, p.text, p.pos + 1)
    return ahead >= len(p.text) or p.text[ahead] in ",]}"


def _fits_swap(text: str, pos: int, stack: list[str]) -> bool:
    """Whether the text at ``pos`` may follow two swapped closers.

    What follows must close or go on in the container below both (``,``, a
    closer or the end), or, when they close the top-level value, anything
    but a comma (``{"a": [{"b": 1}}], "c": 2}`` has a stray ``}``, not a swap).
    """
    ahead = match_end(tok.LOOK_GAP, text, pos)
    if ahead >= len(text):
        return True
    if len(stack) == 2:  # the two closers close the top-level value
        return text[ahead] != ","
    return text[ahead] in ",}]"
