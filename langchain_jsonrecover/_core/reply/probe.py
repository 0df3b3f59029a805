"""Find a token that starts with a rare character: ``str.find`` for it first.

Pure functions on ``str``; no LangChain imports.

A search for a whole token (``"<|message|>"``) or a regex scan walks every
character of the reply, and on a long reply that is most of its cost beside
``orjson.loads``: the regex engine's scan is about as slow as decoding, and a
substring search slows down on text full of spaces. Looking for the token's
first character alone (``<``, rare in JSON and prose) takes a fraction of
that; the token is then checked where that character is. After a few such
places that are not the token, the rest is left to the full search, so text
full of the character costs what it did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

_PROBES: Final = 8
"""Places of the first character checked one by one before a full search."""


def find_token(text: str, token: str, start: int = 0) -> int:
    """``text.find(token, start)``, found through the token's first character.

    Example:
        >>> find_token("a < b <|end|>", "<|end|>")
        6
        >>> find_token("no token", "<|end|>")
        -1
    """
    pos = text.find(token[0], start)
    for _ in range(_PROBES):
        if pos < 0 or text.startswith(token, pos):
            return pos
        pos = text.find(token[0], pos + 1)
    return pos if pos < 0 else text.find(token, pos)


def led_matches(
    pattern: re.Pattern[str], text: str, lead: str
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern whose every match starts with ``lead``.

    The regex scan starts at the first ``lead`` after the last match (a match
    never starts elsewhere, and none is empty), so the matches are those of
    ``finditer``, and the text between a match and the next ``lead`` is
    skipped by ``str.find``.

    Example:
        >>> import re
        >>> [m.group() for m in led_matches(re.compile(r"<b>|<i>"), "<a><b> <i>", "<")]
        ['<b>', '<i>']
    """
    pos = text.find(lead)
    while pos >= 0:
        found = pattern.search(text, pos)
        if found is None:
            return
        yield found
        pos = text.find(lead, found.end())
