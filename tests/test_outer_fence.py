"""The outer fence guess reads the opening line by one pattern (issue 24).

``outer_fence`` guesses the reply's one block from its first run of backticks
to its last. Its opening line is read by one pattern (a tag, then blanks to
the line's end) where it was read by the tag's pattern and a search for more;
``_read_text`` hands it the first run it has found already. These tests show
the guesses are those of the reading before, on seeded texts of runs, tags,
blanks of every kind, quotes and one-line blocks.
"""

from __future__ import annotations

import random
import re

import pytest

from langchain_jsonrecover._core.reply import fences
from langchain_jsonrecover._core.reply.fences import outer_fence
from langchain_jsonrecover._core.reply.probe import find_token

OUTER_PIECES = (
    "```", "````", "`````", "`", "``", "json", "JSON", "py", "c++", "x.y-z#", "\n",
    "\r\n", " ", "\t", "\x0b", "\u00a0", "\u3000", "\x85", '"', "'", '{"a": 1}',
    "[1, 2]", "Here:", "tail {b}", '"```"', "é",
)  # fmt: skip


def _outer_texts(seed: int) -> list[str]:
    """Random pieces; every other text a block whose lines are random pieces."""
    rng = random.Random(seed)  # noqa: S311 - test data

    def pieces(most: int) -> str:
        return "".join(rng.choice(OUTER_PIECES) for _ in range(rng.randrange(most)))

    return [
        pieces(16)
        if i % 2
        else f"{pieces(3)}```{pieces(3)}\n{pieces(4)}\n{pieces(2)}```{pieces(3)}"
        for i in range(300)
    ]


_TAG_WORD = re.compile(r"[A-Za-z0-9_+.#-]*")


def _opening_by_two_searches(text: str, after: int, line_end: int) -> tuple[str, int]:
    """The opening line read as it was: the tag, then a search for more."""
    tag = _TAG_WORD.match(text, after, line_end)
    tag_end = tag.end() if tag else after
    if re.compile(r"\S").search(text, tag_end, line_end) is not None:
        return text[after:tag_end].lower(), tag_end
    return text[after:tag_end].lower(), min(line_end + 1, len(text))


@pytest.mark.parametrize("seed", range(12))
def test_outer_fence_shortcuts_change_no_guess(seed: int) -> None:
    # The opening line read by one pattern gives what the tag and a search
    # for more gave; the first run handed in by the caller changes nothing.
    texts = _outer_texts(seed)
    fast = [outer_fence(text, find_token(text, "```")) for text in texts]
    assert fast == [outer_fence(text) for text in texts]
    for text in texts:
        after = text.find("```") + 3
        line_end = text.find("\n", after)
        for end in {len(text), line_end if line_end >= 0 else len(text)}:
            expected = _opening_by_two_searches(text, after, end)
            assert fences._opening(text, after, end) == expected
    # Guesses were made, on both kinds of opening line (a body on its own
    # line, a one-line block).
    kinds = {
        text[fence.body_start - 1] == "\n"
        for text, fence in zip(texts, fast, strict=True)
        if fence is not None
    }
    assert kinds == {True, False}


def _outer_by_helpers(text: str) -> fences.Fence | None:
    """The guess as it was read before its common cases went inline."""
    start = find_token(text, "```")
    if start < 0 or fences._quoted(text, start):
        return None
    after = start + fences._run_length(text, start)
    last = text.rfind("```")
    while last > after and text[last - 1] == "`":
        last -= 1
    if last <= after:
        return None
    newline = text.find("\n", after, last)
    tag, body_start = fences._opening(text, after, newline if newline >= 0 else last)
    if body_start > last or not fences._starts_line(text, last, body_start):
        return None
    end = last + fences._run_length(text, last)
    return fences.Fence(start, end, body_start, last, tag, closed=True)


@pytest.mark.parametrize("seed", range(12))
def test_inline_common_cases_change_no_guess(seed: int) -> None:
    # A run of three, a closing run after a newline and a ```json line are
    # read inline; the guesses are those the helpers give, on the seeded
    # texts and on blocks opened by ```json (runs of four, CRLF, blanks).
    rng = random.Random(seed)  # noqa: S311 - test data
    opened = []
    for _ in range(300):
        head = rng.choice(OUTER_PIECES) + rng.choice(("```", "````")) + "json"
        line_end = rng.choice(("\n", "\r\n", " \n", "\n\n", ""))
        body = rng.choice(OUTER_PIECES) + rng.choice(("\n", "\r\n", " ", "\t", ""))
        closing = rng.choice(("```", "````", "`````", "``")) + rng.choice(OUTER_PIECES)
        opened.append(head + line_end + body + closing)
    texts = _outer_texts(seed) + opened
    guesses = [outer_fence(text) for text in texts]
    assert guesses == [_outer_by_helpers(text) for text in texts]
    json_lines = sum(
        guess is not None and text[guess.body_start - 5 : guess.body_start] == "json\n"
        for text, guess in zip(texts, guesses, strict=True)
    )
    assert json_lines > 30
