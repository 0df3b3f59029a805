"""Markup inside JSON strings is text: a seeded slice of ``benchmarks/fuzz_markup.py``.

Replies whose strings hold tool-call markup, reasoning tags and special
tokens, with one fault or none (a lost or extra quote flips how quotes pair
up after it), in a fence, after a faulty block, after reasoning, sometimes
cut. No entry point may give a value whose string lost its markup to the
blanking (the token's characters as spaces). The benchmark runs many more
cases, through every entry point, and judges every value.
"""

from __future__ import annotations

import contextlib
import random
import sys
from pathlib import Path
from typing import Any, Final

import pytest
from langchain_core.messages import AIMessageChunk

from langchain_jsonrecover import TruncationRecoveringOutputParser
from langchain_jsonrecover._core.extract import Extraction, extract

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from fuzz_markup import make_case

_BLANKED: Final = "   "
"""Three spaces: what a blanked token leaves (no original string holds them)."""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _answers(text: str) -> list[Any]:
    """The values the entry points give (errors left out)."""
    found: list[Any] = []
    for repair in (False, "safe", True):
        result = extract(text, repair=repair)
        if isinstance(result, Extraction):
            found.append(result.value)
    result = extract(text, close_truncated=True, repair=True)
    if isinstance(result, Extraction):
        found.append(result.value)
    parser = TruncationRecoveringOutputParser(repair=True)
    chunks = [AIMessageChunk(content=text[i : i + 7]) for i in range(0, len(text), 7)]
    with contextlib.suppress(ValueError):  # OutputParserException: an answer
        found.extend(parser.transform(iter(chunks)))
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_string_loses_its_markup(seed: int) -> None:
    rng = random.Random(seed)  # noqa: S311 - seeded cases, not secrets
    blanked: list[tuple[str, Any]] = []
    for _ in range(150):
        case = make_case(rng)
        blanked.extend(
            (case.text, value)
            for value in _answers(case.text)
            if any(_BLANKED in s for s in _strings(value))
        )
    assert blanked == [], blanked[:3]
