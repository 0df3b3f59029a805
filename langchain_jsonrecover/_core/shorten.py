"""Model input cut short wherever we quote it: feedback, errors, events.

Pure functions on ``str``; no LangChain imports, no package imports (any
module can use them). A reply can be megabytes, and so can one key or one
value inside it; a message that quotes it (a field's path, pydantic's or
jsonschema's message, a foreign parser's error) is cut here, one way
everywhere: the start of the text, then ``…``.
"""

from __future__ import annotations

import re
from typing import Final

VALUE_WIDTH: Final = 60
"""The most characters quoted of one piece of model input: a value, a key, a
tag (the width ``_schema`` cuts offending values to)."""

TEXT_WIDTH: Final = 300
"""The most characters of a path or a message that may quote model input."""

_LONG_RUN: Final = re.compile(rf"\S{{{VALUE_WIDTH + 1},}}")


def shorten(text: str, width: int = VALUE_WIDTH) -> str:
    """The start of ``text``, at most ``width`` characters (``…`` marks a cut).

    Example:
        >>> shorten("abcdef", 4)
        'abc…'
        >>> shorten("abc", 4)
        'abc'
    """
    if len(text) <= width:
        return text
    return text[: width - 1] + "…"


def shorten_quoting(text: str, width: int = TEXT_WIDTH) -> str:
    """A text that may quote model input, cut short: each long word, then all.

    Every run of more than :data:`VALUE_WIDTH` non-space characters (a key,
    a tag, a value quoted in a message) is cut to that width, so the words
    around it survive; then the whole text is cut to ``width``. Linear in the
    text.

    Example:
        >>> out = shorten_quoting(f"Input tag '{'x' * 10**6}' found using 'kind'")
        >>> len(out), out.endswith("xx… found using 'kind'")
        (89, True)
    """
    if len(text) > VALUE_WIDTH:
        text = _LONG_RUN.sub(lambda run: shorten(run.group()), text)
    return shorten(text, width)
