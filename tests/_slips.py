"""Replies with one slip, for tests that compare two ways of searching for it.

The syntax oracle's faulted replies (every fault kind, seeded), slips of the
speed rows' kinds in pretty-printed records (``benchmarks/_live.py``), and
one-character slips at seeded random places of compact records, where every
quote stands beside a bracket, comma or colon.
"""

from __future__ import annotations

import random
import re
from functools import cache
from typing import TYPE_CHECKING, Any, Final

import orjson
from _oracle import FIXED_SEED, generate

from langchain_jsonrecover._core.repair import single_edit, single_edit_far

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest

CASES = 320
"""Oracle replies per seed (every fault kind about 28 times)."""

SLIPS: Final = (
    (r'"tags": \[\n[^\]]*\n\s*(\])', "", "lost_bracket"),
    (r'"city(")', "", "lost_quote"),
    (r'"id": \d+(,)', "", "lost_comma"),
    (r'"lat": 1.5()', ",", "trailing_comma"),
)
"""Where :func:`slipped` puts a lost ``]``, closing quote or comma, and a
trailing comma: the group's text is replaced by the second item."""


def records(count: int, *, indent: bool = True) -> str:
    """Records as a model writes them: pretty-printed (indent 2), or compact."""
    rows = [
        {
            "id": index,
            "name": f"Rosa Müller {index}",
            "tags": ["beta", "trial", "優先"][: 1 + index % 3],
            "address": {"city": "Kraków", "zip": f"{index:05}", "geo": {"lat": 1.5}},
            "orders": [{"sku": f"SKU-{index}", "qty": index % 4}],
            "note": 'Dear {name}, see {order} [1], "quoted", \\path',
        }
        for index in range(count)
    ]
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps({"count": count, "records": rows}, option=option).decode()


def slipped(count: int) -> list[str]:
    """The records with each slip of :data:`SLIPS` in the middle one."""
    text = records(count)
    texts = []
    for pattern, new, _ in SLIPS:
        found = list(re.finditer(pattern, text))
        middle = found[len(found) // 2]
        texts.append(text[: middle.start(1)] + new + text[middle.end(1) :])
    return texts


def scattered(count: int, slips: int, seed: int) -> list[str]:
    """Compact records, each with one slip at a random place.

    A quote swapped with the character before or after it, a bracket dropped,
    or a bracket moved to before a comma or closer further on or back.
    """
    rng = random.Random(seed)  # noqa: S311
    text = records(count, indent=False)
    quotes = [found.start() for found in re.finditer('"', text)]
    brackets = [found.start() for found in re.finditer(r"[\[\]{}]", text)]
    stops = [found.start() for found in re.finditer(r"[,\]}]", text)]
    texts = []
    for _ in range(slips):
        at = rng.choice(quotes) - rng.randrange(2)
        texts.append(text[:at] + text[at + 1] + text[at] + text[at + 2 :])
        at = rng.choice(brackets)
        texts.append(text[:at] + text[at + 1 :])
        at, to = rng.choice(brackets), rng.choice(stops)
        if at < to:
            texts.append(text[:at] + text[at + 1 : to] + text[at] + text[to:])
        else:
            texts.append(text[:to] + text[at] + text[to:at] + text[at + 1 :])
    return texts


@cache
def seeded_texts() -> tuple[str, ...]:
    """Each faulted payload from its first opener on, and the slips of the speed rows."""
    texts = []
    for seed in (FIXED_SEED, 1):
        for case in generate(seed, CASES):
            starts = [
                at for at in (case.payload.find("{"), case.payload.find("[")) if at >= 0
            ]
            if starts:
                texts.append(case.payload[min(starts) :])
    for count in (1, 8, 40):
        texts.extend(slipped(count))
    return tuple(texts)


def every_far_site(patch: pytest.MonkeyPatch) -> None:
    """Make the single-edit search try the edits it rules out on the tokens after them.

    A closer dropped before a comma and a token its container cannot hold
    there (``single_edit_far._MEMBER_NEXT``), or before its container's
    closer followed by one (``_goes_on_open``), a bracket swapped out of
    a string where it cannot follow it (``quote_swaps``'s ``inner``), and
    any edit before the innermost container open at the stop
    (``before_innermost``), and the sites before it (``open_before``,
    ``open_near``).
    """
    patch.setattr(single_edit, "before_innermost", lambda *_: False)
    patch.setattr(single_edit_far, "open_before", lambda *_: (0, [], [-1]))
    patch.setattr(single_edit_far, "open_near", lambda *_: None)
    comma = re.compile(r"[ \t\r\n]*+,")
    patch.setattr(single_edit_far, "_MEMBER_NEXT", {"}": comma, "]": comma})
    patch.setattr(single_edit_far, "_goes_on_open", lambda *_: True)
    quote_swaps = single_edit_far.quote_swaps

    def any_bracket(*args: Any, **options: Any) -> Any:
        return quote_swaps(*args, **{**options, "inner": ""})

    patch.setattr(single_edit_far, "quote_swaps", any_bracket)


def changed_answers(
    old: Sequence[Any], new: Sequence[Any], exact: Sequence[Any]
) -> list[int]:
    """Where ``new`` answers otherwise than ``old`` (the indexes).

    Where the old search ran out of budget (its answer is not ``exact``'s, the
    old search's with no budget at all), the new one may read as ``exact``.
    """
    return [
        index
        for index, (before, after, unbounded) in enumerate(
            zip(old, new, exact, strict=True)
        )
        if after != before and not (before != unbounded and after == unbounded)
    ]
