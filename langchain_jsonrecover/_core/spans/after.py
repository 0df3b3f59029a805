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
# The rest of a number or a literal glued to a root's closer (``{"a":
# 1}0, "b": 2}``: a closer slipped into ``10``; ``[t]rue, 1]``): the
# structure after it decides, as right after the closer.
_GLUED_REST: Final = r"(?:\.?+[0-9][0-9.eE+-]*+|r?+ue|(?:a?+l)?+se|e|u?+ll|l)?+"
_GLUED_FIRST: Final = ".0123456789ruelas"
"""The characters ``_GLUED_REST`` may start with."""
_KEY: Final = r'"(?:[^"\\\n]++|\\.)*+"[ \t\r\n]*+:'
# After a closed root (and the rest of a number or literal glued to it): a closer
# (perhaps after a comma, group 1), a key (``, "k":`` or ``"k":``, group 2;
# after a comma also ``k":``, ``k:`` or ``'k':``, group 3), bare items then
# a closer (group 4), bare items after a comma then a key (group 5), or the
# next value of a run (``, {`` or ``{``), perhaps after bare items (group 6).
AFTER_ROOT: Final = re.compile(
    rf"{_GLUED_REST}[ \t\r\n]*+(?:(?:,[ \t\r\n]*+)?+([\]}}])"
    rf"|(?:,[ \t\r\n]*+)?+({_KEY})"
    # After a comma, a key a slip left unquoted or half quoted (``, n": 5``,
    # ``, n: 5``, ``, 'n': 5``): a member too, never prose to skip.
    r"""|,[ \t\r\n]*+((?:'(?:[^'\\\n]++|\\.)*+'|[A-Za-z_$][\w$-]*+"?+)"""
    r"[ \t\r\n]*+:)"
    # Bare items, then a closer that the root did not open (``[] false]``,
    # ``[1, 2], 3]``): the root closed too early, its items go on.
    rf"|(?:,[ \t\r\n]*+)?+((?:{_SCALAR}[ \t\r\n]*+,[ \t\r\n]*+)*+{_SCALAR}"
    r"[ \t\r\n]*+[\]}])"
    # Bare items after a comma, then a key (``, 2, "b": 3}``): members.
    rf"|,[ \t\r\n]*+(?:{_SCALAR}[ \t\r\n]*+,[ \t\r\n]*+)++({_KEY})"
    # The next value of the root's run, perhaps after bare items (``, "c",
    # [3]]``): the run is one broken value if a closer ends it.
    rf"|(?:,[ \t\r\n]*+)?+((?:{_SCALAR}[ \t\r\n]*+,[ \t\r\n]*+)*+)[\[{{])"
)

# After a value, a comma then a bare item (``, 1``, ``, "x"``): values listed
# up to there are not all there is (``{}, [], 1, [2]``).
_ITEM_AFTER: Final = re.compile(rf"[ \t\r\n]*+,[ \t\r\n]*+{_SCALAR}")

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


# After a root, text that none of the looks above can read as going on: no
# rest of a number or literal glued to it, and the first visible character
# after it starts none of them (a comma, a closer, a quote, an opener, a
# digit, a minus, ``.`` before a digit, a literal), seen with the characters
# that show it (four more after a ``t``, ``f`` or ``n``), so that a match in
# a window of the text holds in all of it. A lookahead:
# ``flat.FLAT_BARE_OBJECT`` takes a root in prose only when it stands alone.
STANDS_ALONE: Final = (
    r"(?![ruelas])"  # a literal's rest glued on (a number's: in the class below)
    r"(?=[ \t\r\n]*+(?:[^,\]}\"\[{0-9.\-tfn \t\r\n]|\.[^0-9]"
    r"|(?!true|false|null)[tfn][\s\S]{4}))"
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

    A closer (perhaps after a comma or bare items), ``, "key":`` (perhaps
    after bare items) or bare items then a container right after it (``[1,
    2], "c", [3]]``; the next value alone makes a run), the rest of a number
    or a literal glued to it
    before more structure (``{"a": 1}0, "b": 2}``: a ``}`` slipped into
    ``10``), or a quote glued to it before a comma, colon or closer
    (``"Paris"}", "n": 1}``: the ``}`` was inside a string that lost a
    backslash): the value closed too early, and reading it alone would drop
    the rest.

    Example:
        >>> continues_structure('{"a": 1}, "b": 2}', 8, 17)
        True
        >>> continues_structure('[1, 2]0, {"b": 2}]', 6, 18)
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
        text[end] in _GLUED_FIRST  # the rest of a number or a literal glued on
        or found.group(1) is not None
        or (found.group(2) or found.group(3) or found.group(4) or found.group(5))
        is not None
        or bool(found.group(6))  # bare items, then the next value: not a run
    )


def item_follows(text: str, end: int, hi: int) -> bool:
    """Whether a comma then a bare item follow ``end`` (a bounded look, to ``hi``).

    Values apart by commas that go on with a scalar (or follow one:
    :func:`item_before`) are the items of one array whose brackets were
    lost, never a list of the values among them.

    Example:
        >>> item_follows('{}, [], 1, [2]', 6, 14), item_follows('{}, [] and 1', 6, 12)
        (True, False)
    """
    return _ITEM_AFTER.match(text, end, min(hi, end + LOOK)) is not None


def item_before(text: str, start: int, lo: int) -> bool:
    """Whether a bare item and a comma stand right before ``start`` (a bounded look).

    Example:
        >>> item_before('{"a": 1}, 3, {"b": 2}', 13, 0), item_before("so, {}", 4, 0)
        (True, False)
    """
    i = _before_separator(text, start, lo, ",")
    return i >= 0 and (
        text[i] in '"0123456789' or text.endswith(("true", "false", "null"), lo, i + 1)
    )


def _before_separator(text: str, start: int, lo: int, separator: str) -> int:
    """The last visible character before ``separator`` right before ``start``.

    Spaces aside; a bounded look back (``LOOK`` characters, not before ``lo``).

    Returns:
        Its offset, or -1 when the separator or a character before it is not there.
    """
    floor = max(lo, start - LOOK)
    i = _back_over_space(text, start - 1, floor)
    if i < floor or text[i] != separator:
        return -1
    i = _back_over_space(text, i - 1, floor)
    return i if i >= floor else -1


def _back_over_space(text: str, i: int, floor: int) -> int:
    """The last non-space character's offset at or before ``i``, not before ``floor``.

    ``floor - 1`` when there is none.
    """
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    return i


def after_key(text: str, start: int, lo: int) -> bool:
    """Whether a quoted key and its colon stand right before ``start``.

    A bounded look back (``LOOK`` characters, not before ``lo``).

    Example:
        >>> after_key('{"a": [1]}', 6, 0), after_key('see [1]', 4, 0)
        (True, False)
    """
    i = _before_separator(text, start, lo, ":")
    return i >= 0 and text[i] in "\"'"
