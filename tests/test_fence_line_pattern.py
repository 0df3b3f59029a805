"""The fence-marker pattern of the prose reader reads a run of blanks once.

``_FENCE_LINE`` takes the blanks before a fence marker only from the start of
their run, so ``sub`` over a long line of blanks that no backtick ends (a
blanked ``<think>`` block, a label padded with spaces) is linear; it was
quadratic. These tests pin that it removes, matches and finds exactly what
the unguarded pattern did, and that such replies read their value.
"""

from __future__ import annotations

import random
import re

import pytest

from langchain_jsonrecover import extract_json
from langchain_jsonrecover._core.candidates.mention import (
    _FENCE_LINE,
    _unfenced,
    lead_of,
)

UNGUARDED = re.compile(r"[ \t]*+`{3,}+[\w+.#-]*+[ \t]*+")
"""The pattern before the guard: the same matches, quadratic on a blank run."""

ALPHABET = [" ", " ", "\t", "`", "`", "`", "a", "-", "\n", ".", "é", "+"]


def _random_lines(count: int) -> list[str]:
    rng = random.Random(20261207)  # noqa: S311 - test data
    return [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))
        for _ in range(count)
    ]


def test_guarded_pattern_gives_what_the_unguarded_one_gave() -> None:
    lines = [
        *_random_lines(20_000),
        "```json",
        "  ```json  ",
        "Here: ```json ```",
        "\t``` ```python ",
        " " * 50 + "x",
    ]
    for line in lines:
        assert _FENCE_LINE.sub("", line) == UNGUARDED.sub("", line), line
        assert _unfenced(line) == UNGUARDED.sub("", line), line
        assert [m.span() for m in _FENCE_LINE.finditer(line)] == [
            m.span() for m in UNGUARDED.finditer(line)
        ], line
        guarded, unguarded = _FENCE_LINE.match(line), UNGUARDED.match(line)
        assert (guarded and guarded.span()) == (unguarded and unguarded.span()), line


def test_lead_of_a_value_after_fence_markers_is_the_label() -> None:
    text = 'Format:\n  ```json  \n{"a": 1}\n```'
    assert lead_of(text, text.index("{")) == "Format:"


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("Answer:" + " " * 200_000 + '{"a": 1} ok {b}', id="padded_label"),
        pytest.param(
            "<think>" + "word " * 40_000 + '</think>\n{"a": 1} and {"b": 2}',
            id="one_line_think",
        ),
    ],
)
def test_a_long_line_of_blanks_before_the_value_is_read(reply: str) -> None:
    # Quadratic before: about 0.5 s at 20,000 blanks, so minutes here.
    assert extract_json(reply).value == {"a": 1}
