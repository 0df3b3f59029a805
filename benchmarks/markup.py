"""What preparing a reply costs: ``prepare_reply`` beside ``orjson.loads``.

What it measures
    The median of 5 rounds (10 calls each) of ``prepare_reply`` (reasoning,
    tool-call markup and special tokens blanked), of ``mask_reasoning`` (what
    the extraction calls today) and of ``orjson.loads`` on the same ~180 KB
    JSON, for replies with no markup (the fast path) and with markup.

How to run
    python benchmarks/markup.py
"""

from __future__ import annotations

import statistics
import timeit
from functools import partial
from typing import TYPE_CHECKING

import orjson

from langchain_jsonrecover._core.reply.markup import prepare_reply
from langchain_jsonrecover._core.reply.reasoning import mask_reasoning

if TYPE_CHECKING:
    from collections.abc import Callable

ROWS = 3000


def _replies() -> list[tuple[str, str, str]]:
    """``(name, reply, the JSON inside it)`` for each row."""
    items = [
        {"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i * 0.5}
        for i in range(ROWS)
    ]
    array = orjson.dumps(items).decode()
    plain = orjson.dumps(
        {str(i): {"name": f"item {i}", "score": i * 0.5} for i in range(ROWS * 2)}
    ).decode()
    html = orjson.dumps(
        [{"id": i, "name": f"item <b>{i}</b>"} for i in range(ROWS)]
    ).decode()
    envelope = orjson.dumps({"name": "f", "arguments": {"items": items}}).decode()
    return [
        ("no [ or <", plain, plain),
        ("array", array, array),
        ("fenced array", f"```json\n{array}\n```", array),
        ("tags in strings", html, html),
        ("<tool_call> envelope", f"<tool_call>{envelope}</tool_call>", envelope),
        ("array then <|im_end|>", f"{array}<|im_end|>", array),
        ("<think> then array", f"<think>hm</think>\n{array}", array),
    ]


def _median_us(call: Callable[[], object]) -> float:
    return statistics.median(timeit.repeat(call, number=10, repeat=5)) / 10 * 1e6


def main() -> None:
    """Print one row per reply: chars, then microseconds per call."""
    print(f"{'reply':24} {'chars':>7} {'prepare':>9} {'mask':>9} {'orjson':>9}")
    for name, reply, json_text in _replies():
        prepare = _median_us(partial(prepare_reply, reply))
        mask = _median_us(partial(mask_reasoning, reply))
        decode = _median_us(partial(orjson.loads, json_text))
        print(
            f"{name:24} {len(reply):7} {prepare:7.0f}us {mask:7.0f}us {decode:7.0f}us"
        )


if __name__ == "__main__":
    main()
