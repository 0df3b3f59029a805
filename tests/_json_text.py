"""Where strict JSON text's strings are: one scan for the test generators.

The generators fault known originals (strict JSON, as ``json.dumps`` writes
it) only where a fault changes the structure, never inside a string's text.

Example:
    >>> list(structural('{"a": "}"}'))
    [(0, '{'), (1, '"'), (3, '"'), (6, '"'), (8, '"'), (9, '}')]
    >>> outside_strings('["x"]')
    [True, False, False, False, True, True]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterator

_TOKEN: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\],]', re.DOTALL)
"""A string whole, or a bracket or comma."""


def structural(text: str) -> Iterator[tuple[int, str]]:
    """Each bracket, comma and quote outside strings' text, and its offset."""
    for token in _TOKEN.finditer(text):
        at, end = token.span()
        yield at, text[at]
        if text[at] == '"':
            yield end - 1, '"'


def outside_strings(text: str) -> list[bool]:
    """For each offset and the end, whether it is outside every string.

    A string's quotes count as inside it: a fault there changes a string.
    """
    outside = [True] * (len(text) + 1)
    for token in _TOKEN.finditer(text):
        at, end = token.span()
        if text[at] == '"':
            outside[at:end] = [False] * (end - at)
    return outside
