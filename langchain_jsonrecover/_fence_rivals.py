r"""A fenced value beside a prose value of the same shape (issue 21, review finding).

Fences come before prose, so ``The format is:\n```json\n{"name": "..."}\n```\n
Here: {"name": "Ada"}`` used to return the fenced format example. The rule:
a fenced value wins over the prose, unless the prose outside the fences holds
an object with the same keys and another value; then the one whose every
string is a placeholder (``...``, ``…``, ``<name>``, ``string``, empty) loses,
and when neither or both are placeholders the reply has two readings.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Final, Literal

from langchain_jsonrecover._candidate_order import find_prose_spans

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_jsonrecover._fences import Fence
    from langchain_jsonrecover._spans import Span

Verdict = Literal["fence", "prose", "several"]

_PLACEHOLDER: Final = re.compile(
    r"(?:\.{2,}|…|<[^<>\n]{0,40}>|\[[^\[\]\n]{0,40}\]|string|str|text|value|)",
    re.IGNORECASE,
)


def is_placeholder(value: Any) -> bool:
    """Whether every leaf of ``value`` is a placeholder string (and it has one).

    Example:
        >>> is_placeholder({"n": "...", "t": ["<tag>"]}), is_placeholder({"n": "Ada"})
        (True, False)
    """
    leaves: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            leaves.append(item)
    return bool(leaves) and all(
        isinstance(leaf, str) and _PLACEHOLDER.fullmatch(leaf.strip()) is not None
        for leaf in leaves
    )


def settle_fence(
    text: str, fences: Sequence[Fence], value: Any, *, max_depth: int
) -> tuple[Verdict, Span | None]:
    r"""Whether the fenced ``value`` answers, or a prose object of its shape does.

    Returns:
        ``("fence", None)`` when no prose object has the fenced value's keys
        and another value, or when that object is a placeholder and the fence
        is not; ``("prose", span)`` when the fenced value is the placeholder;
        ``("several", span)`` otherwise.

    Example:
        >>> from langchain_jsonrecover._fences import find_fences
        >>> text = 'Format:\n```json\n{"n": "..."}\n```\nHere: {"n": "Ada"}'
        >>> settle_fence(text, find_fences(text), {"n": "..."}, max_depth=64)[0]
        'prose'
    """
    if not isinstance(value, dict) or not _brace_outside(text, fences):
        return "fence", None
    keys = set(value)
    for span in find_prose_spans(text, 0, fences, max_depth=max_depth):
        if not span.is_object or not span.closed:
            continue
        try:
            other = json.loads(text[span.start : span.end])
        except (ValueError, RecursionError):
            continue
        if not isinstance(other, dict) or set(other) != keys or other == value:
            continue
        fenced_example, prose_example = is_placeholder(value), is_placeholder(other)
        if prose_example and not fenced_example:
            continue
        return ("prose" if fenced_example and not prose_example else "several"), span
    return "fence", None


def _brace_outside(text: str, fences: Sequence[Fence]) -> bool:
    """Whether a ``{`` stands outside every fence (a cheap test first)."""
    last = 0
    for fence in fences:
        if fence.start >= 0 and text.find("{", last, fence.start) >= 0:
            return True
        last = max(last, fence.end)
    return text.find("{", last) >= 0
