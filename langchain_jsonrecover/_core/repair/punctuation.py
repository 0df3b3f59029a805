"""The punctuation repairs of the pass: a colon or comma misplaced, doubled or lost.

Each repair here reads one character where the pass expects a ``:`` or a
``,`` (or a key, an item, a value) and decides whether that character has
one reading only. Each returns whether it took the character; the step that
called it refuses the text when none did.

- ``semicolon_as_comma``: a ``;`` after a value, where a comma is due;
- ``colon_as_comma``: a ``:`` after a member's value, then a quoted key and
  its colon (``{"a": 1: "b": 2}``);
- ``equals_as_colon``: a ``=`` after a key, where its colon is due;
- ``colon_inserted``: a quoted key followed directly by its value,
  ``{"a" 1}``;
- ``comma_as_colon``: a ``,`` after a quoted key, then a value that is no
  key (``{"a", 1}``); neither this nor ``colon_inserted`` reads an object
  of two strings alone (``{"a", "b"}``: a set reads as well);
- ``punctuation_dropped``: a ``:`` or ``,`` that no reading uses: right
  after ``{``, ``[``, ``:`` or a comma, or right before ``,``, ``}`` or
  ``]``; a ``,`` between a key and its colon, or after a colon and before
  the value. A doubled comma in an *array* (``[1,,2]``) stays refused: a
  lost item reads as well as a doubled comma.
"""

from __future__ import annotations

from typing import Final

from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.state import Pass, State
from langchain_jsonrecover._core.repair.tokens import match_end

_KEY_FIRST, _KEY, _COLON, _MEMBER, _ITEM_FIRST, _ITEM, _AFTER = State
# What may start a value right after a key whose colon was lost: a quote,
# a number, a container or a JSON literal's first letter.
_VALUE_AFTER_KEY: Final = frozenset('"-0123456789{[tfn')


def _next_char(p: Pass, pos: int) -> str:
    """The first character past the spaces from ``pos`` (``""`` at the end)."""
    after = match_end(tok.SPACE, p.text, pos)
    return p.text[after : after + 1]


def _drop(p: Pass) -> bool:
    """Drop the character at ``pos``: it is punctuation no reading uses."""
    p.pos += 1
    p.repairs["punctuation_dropped"] = None
    return True


def take_after_value(p: Pass, char: str) -> bool:
    """After a value: a ``;`` read as its comma, or a ``:`` before ``,}]`` dropped.

    A ``;`` is a comma only before the next key or item: ``"x";}`` may be a
    string whose closing quote traded places with its last character.

    In an object, a ``:`` after a value, then a quoted key and its colon, is
    the comma (``colon_as_comma``). A ``:`` after a value followed by anything
    else (``{"a": "b": 1}``) is left for the step to refuse: a lost key or a
    lost comma reads as well.
    """
    if char == ";" and _next_char(p, p.pos + 1) not in {"", ",", ";", ":", "}", "]"}:
        p.comma_at = len(p.out)
        p.out.append(",")
        p.pos += 1
        p.repairs["semicolon_as_comma"] = None
        p.state = _KEY if p.stack[-1] == "{" else _ITEM
        return True
    if char == ":" and _next_char(p, p.pos + 1) in {",", "}", "]"}:
        # Not right after a string: ``"x":`` may be ``"x:"`` with its quote
        # and colon swapped.
        return p.text[p.pos - 1] not in "\"'" and _drop(p)
    if char == ":" and p.stack[-1] == "{" and _key_follows(p):
        p.comma_at = len(p.out)
        p.out.append(",")
        p.pos += 1
        p.repairs["colon_as_comma"] = None
        p.state = _KEY
        return True
    return False


def _key_follows(p: Pass) -> bool:
    """Whether a quoted key and its own colon follow the ``:`` at ``pos``.

    Then the ``:`` after a member's value has one reading, a comma
    (``{"a": 1: "b": 2}``): neither a lost key nor a lost value explains a
    key with its colon right after it.
    """
    return match_end(tok.KEY_COLON_AHEAD, p.text, p.pos + 1) > p.pos + 1


def take_at_colon(p: Pass, char: str) -> bool:
    """Where a key's colon is due: a ``=``, a lost colon, a comma, or a stray comma.

    The key was quoted (a bare key is read only with its colon), so a value
    right after it has one reading: its colon was lost.
    """
    if char == "=":
        p.out.append(":")
        p.pos += 1
        p.state = _MEMBER
        p.repairs["equals_as_colon"] = None
        return True
    if char in _VALUE_AFTER_KEY and not _colon_moved(p) and not _set_like(p, p.pos):
        p.out.append(":")
        p.state = _MEMBER
        p.repairs["colon_inserted"] = None
        return True
    if char == ",":
        after = match_end(tok.SPACE, p.text, p.pos + 1)
        following = p.text[after : after + 1]
        if following == ":":
            return _drop(p)
        if (
            following in _VALUE_AFTER_KEY
            and _comma_is_colon(p, after)
            and not _set_like(p, after)
        ):
            p.out.append(":")
            p.pos += 1
            p.state = _MEMBER
            p.repairs["comma_as_colon"] = None
            return True
    return False


def _comma_is_colon(p: Pass, after: int) -> bool:
    """Whether a ``,`` after a quoted key, then a value at ``after``, is its colon.

    Not when a key follows (``{"a", "b": 1}``: a lost value), nor for the
    first key of an object in an array, which may be a stray ``{`` before
    two items (``["x", { "y", "z"]``); the pass may not have noted a comma
    the hot path took, so "first" errs toward refusing.
    """
    if match_end(tok.KEY_AHEAD, p.text, after) > after:
        return False
    return p.parent() != "[" or p.comma_at > p.marks[-1].piece


def _set_like(p: Pass, after: int) -> bool:
    """Whether the object is two strings alone, a set: ``{"a", "b"}``, ``{"a" "b"}``.

    The first key, then a string that closes the object, reads as a member
    whose colon was lost and as two items of a set (an array with the wrong
    brackets): two readings, so neither ``comma_as_colon`` nor
    ``colon_inserted`` reads it. A key whose text holds an escaped quote is
    not told apart here and keeps the colon's reading.
    """
    if match_end(tok.STRING_ENDS_OBJECT, p.text, after) == after:
        return False
    close = p.text.rfind('"', 0, p.pos)
    opened = p.text.rfind('"', 0, close)
    return p.text[:opened].rstrip(" \t\r\n").endswith("{")


def _colon_moved(p: Pass) -> bool:
    """Whether the colon may have traded places with a quote beside it.

    ``"name:" "Ada"`` and ``"name"":Ada"`` read as well as a key holding a
    colon (or a value starting with one) whose own colon was lost.
    """
    text, pos = p.text, p.pos
    quote = pos - 1
    while text[quote] in " \t\r\n":  # the spaces the pass just took
        quote -= 1
    return text[quote - 1] == ":" or text.startswith('":', pos)


def take_stray(p: Pass, char: str) -> bool:
    """Where a key, an item or a value is due: a ``:`` or ``,`` no reading uses.

    A ``,`` where a member's value is due is dropped only when a value
    follows it (``"a":, 1``); ``"a":,}`` has lost its value. A ``,`` where
    an array's next item is due (``[1,,2]``) is kept for the step to refuse:
    a lost item reads as well.
    """
    state = p.state
    following = _next_char(p, p.pos + 1)
    if following in {"", ",", ":"}:
        return False
    if char == ":" and state != _COLON:
        # Not right before a value's quote: ``:"x"`` may be ``":x"`` swapped.
        glued = state not in (_KEY_FIRST, _KEY) and p.text[p.pos + 1] in "\"'"
        return not glued and _drop(p)
    if char == "," and state in (_KEY, _MEMBER) and following not in "}]":
        return _drop(p)
    return False
