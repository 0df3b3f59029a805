"""The punctuation repairs of the pass: a colon or comma misplaced or lost.

Each repair here reads one character where the pass expects a ``:`` or a
``,`` (or a key, an item, a value) and decides whether that character has
one reading only. Each returns whether it took the character; the step that
called it refuses the text when none did.

- ``semicolon_as_comma``: a ``;`` after a value, where a comma is due;
- ``equals_as_colon``: a ``=`` after a key, where its colon is due;
- ``colon_inserted``: a quoted key followed directly by its value,
  ``{"a" 1}``;
"""

from __future__ import annotations

from typing import Final

from langchain_jsonrecover import _repair_tokens as tok
from langchain_jsonrecover._repair_state import Pass, State
from langchain_jsonrecover._repair_tokens import match_end

_KEY, _MEMBER, _ITEM = State.KEY, State.MEMBER, State.ITEM
# What may start a value right after a key whose colon was lost: a quote,
# a number, a container or a JSON literal's first letter.
_VALUE_AFTER_KEY: Final = frozenset('"-0123456789{[tfn')


def _next_char(p: Pass, pos: int) -> str:
    """The first character past the spaces from ``pos`` (``""`` at the end)."""
    after = match_end(tok.SPACE, p.text, pos)
    return p.text[after : after + 1]


def take_after_value(p: Pass, char: str) -> bool:
    """After a value: a ``;`` read as its comma.

    A ``;`` is a comma only before the next key or item: ``"x";}`` may be a
    string whose closing quote traded places with its last character.
    """
    if char == ";" and _next_char(p, p.pos + 1) not in {"", ",", ";", ":", "}", "]"}:
        p.comma_at = len(p.out)
        p.out.append(",")
        p.pos += 1
        p.repairs["semicolon_as_comma"] = None
        p.state = _KEY if p.stack[-1] == "{" else _ITEM
        return True
    return False


def take_at_colon(p: Pass, char: str) -> bool:
    """Where a key's colon is due: a ``=``, a lost colon.

    The key was quoted (a bare key is read only with its colon), so a value
    right after it has one reading: its colon was lost.
    """
    if char == "=":
        p.out.append(":")
        p.pos += 1
        p.state = _MEMBER
        p.repairs["equals_as_colon"] = None
        return True
    if char in _VALUE_AFTER_KEY and not _colon_moved(p):
        p.out.append(":")
        p.state = _MEMBER
        p.repairs["colon_inserted"] = None
        return True
    return False


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
