"""Readings of Python-printed values that have one reading: tuples as lists.

Pure functions on ``str``; no LangChain imports. The repair pass
(``repair.syntax``) reads single quotes and ``True``/``None``; a model that
prints its answer the way Python prints a dict writes tuples too
(``{'tags': ('a', 'b')}``). ``tuples_listed`` rewrites them as arrays, only
where nothing else could be meant:

- the value is Python-printed (a single-quoted string or a Python literal's
  word outside the ``"`` strings), so ``(`` is Python's tuple;
- every ``(`` outside strings stands where a value stands (after ``:``,
  ``,``, ``[`` or ``(``) and its ``)`` closes it before any other closer: a
  ``(`` after a word (``Person(``, ``f(x)``) is a call, not a tuple, and the
  whole rewrite is declined.

The rewrite keeps every offset (one character for one), so the candidate's
span stays where it was.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.syntax import Repaired
from langchain_jsonrecover._core.repair.syntax import repair as repair_syntax

TUPLES_LISTED: Final = "tuples_listed"
STRAY_BRACE: Final = "stray_closer_dropped"
"""A whole root and one ``}`` after it, nothing else (``{"a": "x"}\n}``), read
with a schema: the ``}`` is dropped and the schema takes the root or not, as a
stray ``]`` is read (family 7). Without a schema the reply stays an error, as
with a ``]`` (the single-edit search reads a short one, as before)."""
_VALUE_BEFORE: Final = ":,[("
_SPACE: Final = " \t\r\n"
_PAIRS: Final = {"(": ")", "[": "]", "{": "}"}


def tuples_listed(text: str) -> str | None:
    """The value with its Python tuples written as arrays, or ``None``.

    Args:
        text: A candidate, from its opener; the rewrite stops where the root
            value closes.

    Returns:
        The same text with each tuple's ``(`` and ``)`` replaced by ``[`` and
        ``]``; ``None`` when it holds no tuple, is not Python-printed, or has a
        ``(`` that is not a tuple's (see the module's note).

    Example:
        >>> tuples_listed("{'tags': ('a', 'b'), 'n': None}")
        "{'tags': ['a', 'b'], 'n': None}"
        >>> tuples_listed('{"tags": ("a", "b")}') is None  # not Python-printed
        True
        >>> tuples_listed("{'p': Point(1, 2)}") is None  # a call, not a tuple
        True
    """
    if "(" not in text:
        # No tuple, and a ``)`` without one closes nothing: declined, in C.
        return None
    out = list(text)
    stack: list[str] = []
    outside: list[str] = []
    prev = ""
    i = 0
    while i < len(text):
        char = text[i]
        if char in "\"'":
            end = _string_end(text, i)
            if end < 0:
                return None
            if char == "'":
                outside.append("'")
            prev, i = char, end
            continue
        if char in _PAIRS:
            if char == "(":
                if prev not in _VALUE_BEFORE:
                    return None
                out[i] = "["
            stack.append(char)
        elif char in ")]}":
            if not stack or _PAIRS[stack.pop()] != char:
                return None
            if char == ")":
                out[i] = "]"
            if not stack:
                break
        elif char not in _SPACE:
            outside.append(char)
        if char not in _SPACE:
            prev = char
        i += 1
    written = "".join(out)
    if written == text or stack:
        return None
    if "'" not in outside and tok.PYTHON_LITERAL_WORD.search("".join(outside)) is None:
        return None
    return written


def read_tuples(text: str, entities: bool) -> Repaired | None:
    """The repair pass's reading of ``text`` with its tuples listed, or ``None``.

    Example:
        >>> read_tuples("{'tags': ('a', 'b')}", False).repairs
        ('single_quotes_replaced', 'tuples_listed')
    """
    listed = tuples_listed(text)
    if listed is None:
        return None
    fixed = repair_syntax(listed, entities=entities)
    if fixed is None or fixed.truncated:
        return None
    return dataclasses.replace(fixed, repairs=(*fixed.repairs, TUPLES_LISTED))


def _string_end(text: str, start: int) -> int:
    """Just after the string that opens at ``start``, or ``-1`` if it never closes."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == quote:
            return i + 1
        if char == "\n":
            return -1
        i += 1
    return -1
