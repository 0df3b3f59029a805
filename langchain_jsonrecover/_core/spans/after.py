"""What follows a closed root: whether the reply went on as if it had not closed.

And what comes right before a root: a key and its colon (a member's value).

Pure functions on ``str``; no LangChain imports. Each look past a root is
bounded (``LOOK`` characters), so that many roots cost a bounded look each and
the span scan stays linear in the reply.
"""

from __future__ import annotations

import re
from typing import Final

# How far past a closed root the look for more structure reaches (a bound, so
# that many roots cost a bounded look each).
LOOK: Final = 256
# A bare JSON scalar: a string, a number or a literal.
_SCALAR: Final = r'(?:"(?:[^"\\\n]++|\\.)*+"|-?+[0-9][0-9.eE+-]*+|true|false|null)'
# After a closed root: a closer (perhaps after a comma), a key (``, "k":`` or
# ``"k":``; after a comma also ``k":``, ``k:`` or ``'k':``), or the next value
# of a run (``, {`` or ``{``).
AFTER_ROOT: Final = re.compile(
    r"[ \t\r\n]*+(?:(?:,[ \t\r\n]*+)?+([\]}])"
    r'|(?:,[ \t\r\n]*+)?+("(?:[^"\\\n]++|\\.)*+"[ \t\r\n]*+:)'
    # After a comma, a key a slip left unquoted or half quoted (``, n": 5``,
    # ``, n: 5``, ``, 'n': 5``): a member too, never prose to skip.
    r"""|,[ \t\r\n]*+((?:'(?:[^'\\\n]++|\\.)*+'|[A-Za-z_$][\w$-]*+"?+)"""
    r"[ \t\r\n]*+:)"
    # Bare items, then a closer that the root did not open (``[] false]``,
    # ``[1, 2], 3]``): the root closed too early, its items go on.
    rf"|(?:,[ \t\r\n]*+)?+((?:{_SCALAR}[ \t\r\n]*+,[ \t\r\n]*+)*+{_SCALAR}"
    r"[ \t\r\n]*+[\]}])"
    r"|(?:,[ \t\r\n]*+)?+[\[{])"
)

QUOTE_AFTER_ROOT: Final = re.compile(r'"[ \t\r\n]*+[,:}\]]')

# After a closed root, up to the end of the text: a comma, or a key the end
# cut (``}, "n`` or ``}, "n"``): the root closed too early and the reply
# went on with a member that the cut removed (issue 21, family 20), so
# reading the root alone would drop it. Matched only up to the scan's limit.
CUT_KEY_AFTER_ROOT: Final = re.compile(
    r'[ \t\r\n]*+(?:,[ \t\r\n]*+(?:"(?:[^"\\\n]++|\\.)*+\\?"?[ \t\r\n]*+)?+'
    # Without a comma, a key begun (``} "n``); a lone quote is no key: it
    # closes a reply quoted whole (``"{"a": 1}"``, one reading, the value).
    r'|"(?:[^"\\\n]++|\\.)++\\?"?[ \t\r\n]*+)\Z'
)


def cut_key_after(text: str, end: int, hi: int) -> bool:
    """Whether a comma or a cut key alone follows ``end`` up to ``hi``.

    Example:
        >>> cut_key_after('{"a": 1}, "n', 8, 12), cut_key_after('{"a": 1} ', 8, 9)
        (True, False)
    """
    if hi - end > LOOK:
        return False  # a bounded look, as for AFTER_ROOT: linear in the reply
    rest = text[end:hi]
    return bool(rest.strip()) and CUT_KEY_AFTER_ROOT.match(text, end, hi) is not None


def continues_structure(text: str, end: int, hi: int) -> bool:
    """Whether the text after a value that ends at ``end`` goes on as if it had not.

    A closer (perhaps after a comma) or ``, "key":`` right after it, or a
    quote glued to it before a comma, colon or closer (``"Paris"}", "n": 1}``:
    the ``}`` was inside a string that lost a backslash): the value closed
    too early, and reading it alone would drop the rest.

    Example:
        >>> continues_structure('{"a": 1}, "b": 2}', 8, 17)
        True
        >>> continues_structure('{"a": 1}, {"b": 2}', 8, 18)
        False
    """
    if QUOTE_AFTER_ROOT.match(text, end, min(hi, end + LOOK)):
        return True
    if cut_key_after(text, end, hi):
        return True
    found = AFTER_ROOT.match(text, end, min(hi, end + LOOK))
    return found is not None and (
        found.group(1) is not None
        or (found.group(2) or found.group(3) or found.group(4)) is not None
    )


def after_key(text: str, start: int, lo: int) -> bool:
    """Whether a quoted key and its colon stand right before ``start``.

    A bounded look back (``LOOK`` characters, not before ``lo``).

    Example:
        >>> after_key('{"a": [1]}', 6, 0), after_key('see [1]', 4, 0)
        (True, False)
    """
    i = start - 1
    floor = max(lo, start - LOOK)
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    if i < floor or text[i] != ":":
        return False
    i -= 1
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    return i >= floor and text[i] in "\"'"
