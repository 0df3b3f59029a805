r"""Call markup that the reply's own layout or sentence holds back is no call.

Pure functions on ``str``; no LangChain imports.

A model writes its call markup alone, or after a lead line. Markup set
anywhere else is talked about, not sent (issue 21): the reply then makes no
call, and the re-ask asks for a proper one. Held back, by
:class:`HeldBack`, whatever the language:

- a sentence around it: prose on its line both before and after it, or a
  line before it that does not end its sentence (``Before I run <tool_call>…``,
  ``Soll ich [TOOL_CALLS]… ausführen?``, ``在您确认之前我不会运行 <tool_call>…``:
  the text before it ends in a letter, a digit, a comma or a dash);
- a place on the page where no call is made: a list item (``1.``, ``-``,
  ``*``, ``a)``), a table cell, a heading, emphasis (``*``, ``**``, ``_``,
  ``<s>``, ``<em>``, ``<b>`` … glued before it; an HTML ``<li>``, ``<td>``,
  ``<p>`` or heading), ``<details>`` or ``<summary>``, or a line that a
  speaker opens (``User:``, ``Human:``, ``Assistant:``, ``AI:``, ``Q:``,
  ``A:``, and the user's name in French, German, Spanish, Portuguese,
  Italian, Russian, Chinese and Japanese): a transcript written out;
- the words around it (:func:`.mention.mentioned`):
  a condition, a negation, a proposal, an option, a draft, an example or a
  question, in English, those eight languages and seven more, a label
  (``Step 1:``, ``Plan:``, ``Bad:``), a call described or reported as
  already made, or a next line that asks for the go-ahead.

``<s>`` that opens the reply is the sequence's first token, not emphasis.
Each test reads the lines around the markup: linear in the reply.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.candidates.mention import mentioned

if TYPE_CHECKING:
    from collections.abc import Sequence

_LINE_PLACE: Final = re.compile(
    r"[ \t]*+(?:"
    r"(?:[-*+\u2022]|\d{1,3}[.)]|[a-zA-Z][.)]|\[[ xX]\])[ \t]"  # a list item
    r"|\|"  # a table row
    r"|\#{1,6}(?:[ \t]|$)"  # a heading
    r"|(?:user|human|assistant|ai|bot|q|a|utilisateur|benutzer|nutzer|usuario"
    r"|usu\u00e1rio|utente"
    r"|\u043f\u043e\u043b\u044c\u0437\u043e\u0432\u0430\u0442\u0435\u043b\u044c"
    r"|\u7528\u6237|\u30e6\u30fc\u30b6\u30fc)[ \t]*+[:\uff1a]"  # another speaker
    r")",
    re.IGNORECASE,
)
"""How a line opens when markup on it is an item, a cell, a heading or
another speaker's words."""
_EMPHASIS: Final = re.compile(
    r"(?:[*_~]|<(?:s|u|i|b|em|strong|mark|del|ins|li|td|th|p|h[1-6])>)[ \t]*+\Z",
    re.IGNORECASE,
)
"""Emphasis, an HTML list item, table cell, paragraph or heading opened right
before the markup."""
_DETAILS: Final = re.compile(r"<(/?)(?:details|summary)\b[^<>]*+>", re.IGNORECASE)
_OPEN_SENTENCE: Final = re.compile(r"[\w,;\-\u2013\u2014(\[\"'\u3001\uff0c]\Z")
"""The text before markup on its line ends inside a sentence."""
_WORDY: Final = re.compile(r"\w")
_START_TOKEN: Final = re.compile(r"\s*+<s>", re.IGNORECASE)
_TAG: Final = re.compile(r"<[^<>\n]{0,40}>")
"""An HTML tag or a token left in the prose: no words of a sentence."""


class HeldBack:
    r"""Whether call markup in one reply is held back, so no call.

    Built once per reply (the ``<details>`` regions are found once); asked
    for each call's span.

    Args:
        text: The reply as written.
        prose: The reply with reasoning and every call's markup blanked
            (same offsets).
        spans: The markup's spans, in order: a call's place is where the
            markup that opens it starts (``<tool_call>`` before
            ``<function=…>`` on the next line).

    Example:
        >>> call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
        >>> blank = " " * len(call)
        >>> HeldBack(f"Soll ich {call} ausführen?",
        ...          f"Soll ich {blank} ausführen?")(9, 9 + len(call))
        True
        >>> HeldBack(f"Sure.\n{call}", f"Sure.\n{blank}")(6, 6 + len(call))
        False
    """

    __slots__ = ("_details", "_opens", "_prose", "_text")

    def __init__(
        self, text: str, prose: str, spans: Sequence[tuple[int, int]] = ()
    ) -> None:
        self._text = text
        self._prose = prose
        self._details = _details_regions(text) if "<" in text else []
        self._opens = {end: start for start, end in spans}

    def __call__(self, start: int, end: int) -> bool:
        """Whether the markup at ``text[start:end]`` is held back."""
        text, prose = self._text, self._prose
        start = self._opening(start)
        line_start = text.rfind("\n", 0, start) + 1
        if _placed(text, line_start, start) or any(
            s <= start < e for s, e in self._details
        ):
            return True
        before = _TAG.sub(" ", prose[line_start:start]).strip()
        line_end = prose.find("\n", end)
        after = prose[end : len(prose) if line_end < 0 else line_end]
        after = _TAG.sub(" ", after).strip()
        if before and (
            _OPEN_SENTENCE.search(before) is not None
            or (_WORDY.search(before) is not None and _WORDY.search(after) is not None)
        ):
            return True
        return mentioned(prose, start, end, markup=True)

    def _opening(self, start: int) -> int:
        """Where the markup that opens the call at ``start`` starts."""
        text = self._text
        while True:
            before = start
            while before > 0 and text[before - 1].isspace():
                before -= 1
            opened = self._opens.get(before)
            if opened is None or opened >= start:
                return start
            start = opened


def _placed(text: str, line_start: int, start: int) -> bool:
    """Whether the markup's place says it is shown: an item, a cell, emphasis."""
    if _LINE_PLACE.match(text, line_start) is not None:
        return True
    lead = text[line_start:start]
    emphasis = _EMPHASIS.search(lead)
    if emphasis is None:
        return False
    # "<s>" that opens the reply is the first token of the sequence.
    return not (
        lead[emphasis.start() :].lstrip().lower().startswith("<s>")
        and _START_TOKEN.fullmatch(text, 0, line_start + emphasis.end()) is not None
    )


def _details_regions(text: str) -> list[tuple[int, int]]:
    """The spans inside ``<details>`` or ``<summary>`` (to its close, or the end)."""
    regions: list[tuple[int, int]] = []
    depth = opened = 0
    for tag in _DETAILS.finditer(text):
        if not tag.group(1):
            if depth == 0:
                opened = tag.end()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                regions.append((opened, tag.start()))
    if depth > 0:
        regions.append((opened, len(text)))
    return regions
