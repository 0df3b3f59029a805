"""Hide reasoning blocks (``<think>…</think>`` and kin) from the JSON scan.

Pure functions on ``str``; no LangChain imports.

Reasoning is replaced by spaces rather than cut out, so every offset found
later (spans, error positions) is still an offset into the model's reply.
"""

from __future__ import annotations

import re
from typing import Final

# One alternation of literal tag names: the regex engine walks the text once.
_TAG: Final = re.compile(r"<(/?)(think|thinking|reasoning)\s*>", re.IGNORECASE)


def mask_reasoning(text: str) -> tuple[str, bool]:
    """Blank out reasoning blocks, keeping every offset of the reply.

    Rules:
    - ``<think>…</think>``, ``<thinking>…</thinking>`` and
      ``<reasoning>…</reasoning>`` are hidden, tags included;
    - a closing tag with no opening one, before any other reasoning tag, hides
      everything before it (chat templates often put the opening tag in the
      prompt, not the reply);
    - an opening tag that is never closed hides the rest of the reply.

    Models open reasoning at the start of a line; a tag elsewhere, or one
    quoted (``"</think>"``), is text, as in ``{"tip": "use <think> tags"}``.

    Args:
        text: The model's reply.

    Returns:
        The reply with reasoning replaced by spaces (the same object when there
        is none), and whether anything was hidden.

    Example:
        >>> mask_reasoning("<think>hm</think>{}")
        ('                 {}', True)
    """
    if "<" not in text:
        return text, False
    hidden: list[tuple[int, int]] = []
    open_at = -1
    open_name = ""
    visible_from = 0
    for match in _TAG.finditer(text):
        closing = match.group(1) == "/"
        name = match.group(2).lower()
        if open_at < 0 and _quoted(text, match.start(), match.end()):
            continue  # a tag in quotes, outside reasoning, is text
        if (
            open_at < 0
            and not closing
            and not _opens_line(text, match.start(), visible_from)
        ):
            continue
        if open_at < 0:
            if not closing:
                open_at, open_name = match.start(), name
            elif not hidden:
                # A lone closing tag opening the reply's tags: what came
                # before it was reasoning (the opening tag was in the prompt).
                hidden.append((0, match.end()))
                visible_from = match.end()
        elif closing and name == open_name:
            hidden.append((open_at, match.end()))
            visible_from = match.end()
            open_at = -1
    if open_at >= 0:
        hidden.append((open_at, len(text)))
    if not hidden:
        return text, False
    parts: list[str] = []
    last = 0
    for start, end in _merge(hidden):
        parts.append(text[last:start])
        parts.append(" " * (end - start))
        last = end
    parts.append(text[last:])
    return "".join(parts), True


def _opens_line(text: str, index: int, visible_from: int) -> bool:
    """Whether only spaces precede ``index`` on its line (or since ``visible_from``)."""
    i = index - 1
    while i >= visible_from and text[i] in " \t":
        i -= 1
    return i < visible_from or text[i] in "\r\n"


def _quoted(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1] == '"') or text.startswith('"', end)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping spans given in increasing order of start."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
