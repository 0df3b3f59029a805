"""Where a candidate's opener sits: in a string of its line, or in a larger value.

Pure functions on ``str``; no LangChain imports. The repair pass and the
single-edit search read a candidate from its opener; these say when that
opener is not where a value starts (see ``RepairPass``).
"""

from __future__ import annotations

import re
from typing import Final

# A double quote no backslash escapes.
UNESCAPED_QUOTE: Final = re.compile(r'(?<!\\)"')
# Right before a candidate: a quote, a key's colon, or a comma after a value.
INSIDE_STRUCTURE: Final = re.compile(
    r'(?:"[ \t]*+:?+|[\]}"0-9el][ \t\r\n]*+,)[ \t\r\n]*+\Z'
)

_LOOK_BACK: Final = 64
_LINE_LOOK_BACK: Final = 4096


def inside_structure(text: str, start: int) -> bool:
    """Whether the opener at ``start`` follows a quote, a key's colon or a comma.

    Such a candidate is a value inside a larger one whose start the reply
    lost (``"a": {…}``) or text inside a string (``"{a": 1}``): the
    single-edit search, which reads from the candidate's opener, would take
    the part for the whole.
    """
    return INSIDE_STRUCTURE.search(text, max(0, start - _LOOK_BACK), start) is not None


def inside_string(text: str, start: int) -> bool:
    r"""Whether the opener at ``start`` sits inside a string of its line.

    An odd number of unescaped quotes between the line's start and the opener
    (strings do not span lines): a bracket in a value's text, such as the code
    or the escaped JSON of ``"title": "cfg = {\"a\": 1}"`` in a reply that
    lost its own opener. Repairing from there would answer the part for the
    whole. Only the last ``_LINE_LOOK_BACK`` characters are counted, so many
    candidates on one long line cost no more than that each.
    """
    line = max(text.rfind("\n", 0, start) + 1, start - _LINE_LOOK_BACK)
    return len(UNESCAPED_QUOTE.findall(text, line, start)) % 2 == 1
