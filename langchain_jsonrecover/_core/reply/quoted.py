r"""Call markup that the reply quotes, as code or in quotes, is not a call.

Pure functions on ``str``; no LangChain imports.

A model shows a call as an example, comments one out, or quotes what an
earlier turn sent: the markup is text. Quoted, by :class:`QuotedMarkup`:

- a code block, when the reply holds more than that one block (prose beside
  it: an example shown): a fenced block (backticks or ``~~~``) or an
  indented one (lines indented four spaces or a tab, after a blank line or
  at the reply's start, outside a fence);
- an HTML comment, ``<code>…</code>`` or ``<pre>…</pre>``; quoted or
  struck-out HTML (``<q>``, ``<blockquote>``, ``<del>``, ``<strike>``),
  markdown strikethrough (``~~…~~`` on one line), a tool's result
  (``<tool_response>``, ``<tool_result>``);
- another role's turn written into the reply: ``<|im_start|>`` or
  ``<|start_header_id|>`` of any role but ``assistant``, ``[INST]…[/INST]``;
- a Python triple-quoted string (three single or three double quotes
  around it);
- a ``>`` quote line, inline code (an odd number of single or double
  backticks before it on its line);
- markup glued to an opening quote (:func:`glued_to_quote`): straight,
  typographic (``“``, ``„``, the single ones too), a guillemet (``«``) or
  a CJK corner bracket (``「``, ``『``).

A code block with nothing beside it but reasoning, whitespace and tokens
(``<s>`` that opens the reply among them) is the model's own wrapper: its
markup is a call. Each search walks the reply
once: linear.
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._core.reply.fences import find_fences
from langchain_jsonrecover._core.reply.markup_tokens import TOKEN_KIND
from langchain_jsonrecover._core.reply.reasoning import merge_spans

_NON_SPACE: Final = re.compile(r"\S")
_COMMENT: Final = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HTML_CODE: Final = re.compile(
    r"<(code|pre|q|blockquote|del|strike|tool_response|tool_result)\b[^<>]*+>"
    r".*?(?:</\1[ \t]*+>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_OTHER_TURN: Final = re.compile(
    r"<\|im_start\|>(?!assistant\b).*?(?:<\|im_end\|>|\Z)"
    r"|<\|start_header_id\|>(?!assistant<).*?(?:<\|eot_id\|>|\Z)"
    r"|\[INST\].*?(?:\[/INST\]|\Z)",
    re.DOTALL,
)
"""Another role's turn written into the reply (a user, tool or system turn)."""
_STRUCK: Final = re.compile(r"(?<!~)~~(?!~)[^\n]*?(?<!~)~~(?!~)")
"""Markdown strikethrough on one line: text struck out."""
_TRIPLE_QUOTED: Final = re.compile(r"('''|\"\"\").*?(?:\1|\Z)", re.DOTALL)
_TILDE_OPEN: Final = re.compile(r"^[ \t]{0,3}(~{3,})[^\n]*+", re.MULTILINE)
_INDENT: Final = re.compile(r" {4}| {0,3}\t")
_INLINE_TICKS: Final = re.compile(r"(?<!`)``?(?!`)|\n")
_QUOTE_LINE: Final = re.compile(r"[ \t]{0,3}>")
_OPENING_QUOTES: Final = "\"'`\u201c\u2018\u201e\u201a\u00ab\u2039\u300c\u300e"
"""Straight quotes, a backtick, typographic opening quotes, guillemets, the
CJK corner brackets (``\u300c``, ``\u300e``)."""

Region = tuple[int, int]


def glued_to_quote(text: str, start: int) -> bool:
    """Whether the token at ``start`` follows an opening quote, glued to it.

    Example:
        >>> glued_to_quote("The user said: \u00ab<tool_call>", 16)
        True
        >>> glued_to_quote("Now: <tool_call>", 5)
        False
    """
    return start > 0 and text[start - 1] in _OPENING_QUOTES


class QuotedMarkup:
    r"""Whether call markup at an offset is quoted by the reply, not written by it.

    Quoted, so text: the forms of this module's rules (a code block beside
    prose, a comment, ``<code>``/``<pre>``, a triple-quoted string, a ``>``
    line, inline code). Offsets are asked in increasing order; :meth:`reset`
    after a call read, whose text may hold backticks or comment openers of
    its own.

    Example:
        >>> quoted = QuotedMarkup("Example:\n```\n<tool_call>{}</tool_call>\n```")
        >>> quoted.inside(13)
        True
        >>> QuotedMarkup("```\n<tool_call>{}</tool_call>\n```").inside(4)
        False
        >>> QuotedMarkup("Example:\n~~~\n<tool_call>{}</tool_call>\n~~~").inside(13)
        True
    """

    __slots__ = (
        "_at",
        "_floor",
        "_quote_line",
        "_region",
        "_regions",
        "_text",
        "_ticks",
    )

    def __init__(self, text: str) -> None:
        self._text = text
        regions = [(m.start(), m.end()) for m in _COMMENT.finditer(text)]
        if "<" in text or "[INST]" in text:
            regions += [(m.start(), m.end()) for m in _HTML_CODE.finditer(text)]
            regions += [(m.start(), m.end()) for m in _OTHER_TURN.finditer(text)]
        if "~~" in text:
            regions += [(m.start(), m.end()) for m in _STRUCK.finditer(text)]
        if "''" in text or '""' in text:
            regions += [(m.start(), m.end()) for m in _TRIPLE_QUOTED.finditer(text)]
        blocks = _code_blocks(text)
        if len(blocks) > 1 or any(not _only_tokens(text, b) for b in blocks):
            regions += blocks
        self._regions = merge_spans(regions)
        self._region = 0
        self._at = 0
        self.reset(0)

    def reset(self, at: int) -> None:
        """Read from ``at`` on: quotes that open before it do not count."""
        if at < self._at:
            self._region = 0
        self._floor = self._at = at
        starts_line = at == 0 or self._text[at - 1] == "\n"
        self._quote_line = starts_line and _QUOTE_LINE.match(self._text, at) is not None
        self._ticks = 0

    def inside(self, index: int) -> bool:
        """Whether markup at ``index`` is quoted (``index`` never decreases)."""
        text = self._text
        for tick in _INLINE_TICKS.finditer(text, self._at, index):
            if tick.group() == "\n":
                self._quote_line = _QUOTE_LINE.match(text, tick.end()) is not None
                self._ticks = 0
            else:
                self._ticks += 1
        self._at = max(self._at, index)
        regions = self._regions
        while self._region < len(regions) and regions[self._region][1] <= index:
            self._region += 1
        if self._region < len(regions):
            start = regions[self._region][0]
            if self._floor <= start <= index:
                return True
        return self._quote_line or self._ticks % 2 == 1


def _code_blocks(text: str) -> list[Region]:
    """The reply's code blocks: backtick and ``~~~`` fences, indented blocks."""
    fences: list[Region] = []
    if "```" in text:
        fences += [(f.start, f.end) for f in find_fences(text)]
    if "~~~" in text:
        fences += _tilde_fences(text)
    fences.sort()
    if "\n    " in text or "\t" in text or text.startswith("    "):
        fences += [b for b in _indented_blocks(text) if not _within(b[0], fences)]
    return sorted(fences)


def _tilde_fences(text: str) -> list[Region]:
    """``~~~`` fences: a closing line of as many tildes or more, or the end."""
    found: list[Region] = []
    pos = 0
    while (opening := _TILDE_OPEN.search(text, pos)) is not None:
        run = opening.group(1)
        closing = re.compile(rf"^[ \t]{{0,3}}{run}~*+[ \t]*+$", re.MULTILINE)
        close = closing.search(text, opening.end())
        end = len(text) if close is None else close.end()
        found.append((opening.start(), end))
        pos = max(end, opening.end() + 1)
    return found


def _indented_blocks(text: str) -> list[Region]:
    """Lines indented four spaces or a tab after a blank line (or at the start)."""
    blocks: list[Region] = []
    start = last = -1
    after_blank = True
    pos = 0
    while True:
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline
        blank = _NON_SPACE.search(text, pos, end) is None
        indented = not blank and _INDENT.match(text, pos, end) is not None
        if start >= 0 and indented:
            last = end
        elif start >= 0 and not blank:
            blocks.append((start, last))
            start = -1
        elif start < 0 and indented and after_blank:
            start, last = pos, end
        after_blank = blank
        if newline < 0:
            break
        pos = newline + 1
    if start >= 0:
        blocks.append((start, last))
    return blocks


def _within(index: int, regions: list[Region]) -> bool:
    """Whether ``index`` lies in one of ``regions``."""
    return any(start <= index < end for start, end in regions)


def _only_tokens(text: str, block: Region) -> bool:
    """Whether only whitespace and tokens stand outside ``block``.

    ``<s>`` that opens the reply is a token (the sequence's first), not HTML.
    """
    before = text[: block[0]]
    if before.lstrip().startswith("<s>"):
        before = before.lstrip()[3:]
    outside = before + " " + text[block[1] :]
    return _NON_SPACE.search(TOKEN_KIND.sub("", outside)) is None
