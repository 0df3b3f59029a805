"""Patterns searched without an anchor do not start again inside a run.

A pattern that opens with a repeated class (``[ \\t]*+``, ``\\s*``) and is
searched (``search``, ``sub``) is tried at each position of a long run that
then fails: each try reads the rest of the run, so the work grows with the
square of the run. The fixed patterns start a run only at its first character
(a lookbehind guard), or are read in one pass by a function.

Each fix is shown equivalent to the pattern it replaces (same matches, same
substitutions, on random strings from the pattern's alphabet and on the real
replies), and linear by counting, never by a clock: what the tries at every
start read (the guarded head of the pattern, matched at each position), or
what the one-pass function reads (:class:`CountingStr`, :class:`CountingPattern`).
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

import pytest
from _counting import CountingStr, Tally, count_patterns
from _real_replies import load_real_cases

from langchain_jsonrecover._core.decode import close, joins
from langchain_jsonrecover._core.prompts import retry

if TYPE_CHECKING:
    from collections.abc import Callable

N = 4_000
"""The smaller run; each growth test also runs at twice this."""

OLD_FENCE_CLOSE = re.compile(r"\r?\n?[ \t]*+```[ \t\r\n]*+\Z")
OLD_TROUBLESHOOTING = re.compile(r"\s*For troubleshooting, visit: \S+\s*$")
OLD_CLOSERS_THEN_WORDS = re.compile(
    r"([\]}](?:[ \t]*+[\]}])*+)[.,;:!?]?+[ \t]++[^\s\]}]"
)
OLD_CLOSERS_AT_END = re.compile(r"([\]}](?:[ \t]*+[\]}])*+)[ \t\r\n]*+\Z")
PYDANTIC_WORDS = "For further information visit https://errors.pydantic.dev/"

FENCE_PIECES = [" ", " ", "\t", "\r", "\n", "`", "```", "x", "\r\n"]
TROUBLESHOOTING_PIECES = [
    " ",
    "\u00a0",
    "\t",
    "\n",
    "x",
    "For troubleshooting, visit: ",
    "https://x.y/z",
    "For troubleshooting, visit:",
]
CLOSER_PIECES = ["]", "}", "]", " ", "\t", "\n", "\r", ".", "!", "x", "{", "["]
PYDANTIC_PIECES = [" ", "\u00a0", "\t", "\n", "\n", "\r", "x", PYDANTIC_WORDS, "2.7/v/"]


def _random_texts(pieces: list[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)  # noqa: S311 - test data
    return [
        "".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        for _ in range(count)
    ]


def _texts(pieces: list[str], seed: int) -> list[str]:
    """Random strings of ``pieces``; the real replies, alone and in a message."""
    replies = [case.input for case in load_real_cases()]
    framed = [f"Invalid: {reply}\n {piece}x\n" for reply in replies for piece in pieces]
    return _random_texts(pieces, 3_000, seed) + replies + framed


def _spans(pattern: re.Pattern[str], text: str) -> tuple[int, int] | None:
    found = pattern.search(text)
    return found.span() if found else None


@pytest.mark.parametrize("seed", [1, 2])
def test_the_fence_close_finds_what_it_found(seed: int) -> None:
    texts = _texts(FENCE_PIECES, seed)
    assert sum(_spans(OLD_FENCE_CLOSE, t) is not None for t in texts) > 100
    for text in texts:
        assert _spans(joins._FENCE_CLOSE, text) == _spans(OLD_FENCE_CLOSE, text), text


@pytest.mark.parametrize("seed", [1, 2])
def test_the_troubleshooting_line_is_cut_as_it_was(seed: int) -> None:
    texts = _texts(TROUBLESHOOTING_PIECES, seed)
    assert sum(OLD_TROUBLESHOOTING.search(t) is not None for t in texts) > 100
    for text in texts:
        assert retry._TROUBLESHOOTING.sub("", text) == OLD_TROUBLESHOOTING.sub(
            "", text
        ), text


@pytest.mark.parametrize("seed", [1, 2])
def test_pydantic_links_are_cut_as_the_pattern_cuts_them(seed: int) -> None:
    texts = _texts(PYDANTIC_PIECES, seed)
    assert sum(retry._PYDANTIC_LINK.search(t) is not None for t in texts) > 100
    for text in texts:
        expected = retry._PYDANTIC_LINK.sub("", text)
        assert retry._without_pydantic_links(text) == expected, text


def _closer_runs(pattern: re.Pattern[str], text: str) -> list[tuple[int, int, int]]:
    """Each match's run of closers and its end; its start, spaces aside."""
    runs = []
    for found in pattern.finditer(text, 1):
        assert not text[found.start() : found.start(1)].strip(" \t")
        runs.append((*found.span(1), found.end()))
    return runs


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (close._CLOSERS_THEN_WORDS, OLD_CLOSERS_THEN_WORDS),
        (close._CLOSERS_AT_END, OLD_CLOSERS_AT_END),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_runs_of_closers_are_found_as_they_were(
    new: re.Pattern[str], old: re.Pattern[str], seed: int
) -> None:
    # Both callers read from just past a quote (the string's own, or the last).
    texts = ['"' + text for text in _texts(CLOSER_PIECES, seed)]
    assert sum(bool(_closer_runs(old, t)) for t in texts) > 100
    for text in texts:
        assert _closer_runs(new, text) == _closer_runs(old, text), text
        assert (new.search(text, 1) is None) == (old.search(text, 1) is None), text


# --- linear by counting ------------------------------------------------------


def _tries_read(head: re.Pattern[str], text: str) -> Tally:
    """What a search's tries at every position read of the run it opens with."""
    tally = Tally()
    for at in range(len(text)):
        found = head.match(text, at)
        tally.charge(found.end() - at if found else 0)
    return tally


CLOSER_RUN = r"(?<![\]} \t])[ \t]*+([\]}](?:[ \t]*+[\]}])*+)"
GUARDED: list[tuple[re.Pattern[str], str, str, str]] = [
    (joins._FENCE_CLOSE, r"\r?\n?", r"(?<![ \t])[ \t]*+", " "),
    (joins._FENCE_CLOSE, r"\r?\n?", r"(?<![ \t])[ \t]*+", "\t "),
    (retry._TROUBLESHOOTING, "", r"(?<!\s)\s*", " \n"),
    (close._CLOSERS_THEN_WORDS, "", CLOSER_RUN, "]"),
    (close._CLOSERS_THEN_WORDS, "", CLOSER_RUN, "} "),
    (close._CLOSERS_AT_END, "", CLOSER_RUN, "]\t"),
]


@pytest.mark.parametrize(("pattern", "lead", "head", "fill"), GUARDED)
def test_a_guarded_search_reads_a_run_once(
    pattern: re.Pattern[str], lead: str, head: str, fill: str
) -> None:
    assert pattern.pattern.startswith(lead + head)
    guarded, bare = re.compile(head), re.compile(head.split(")", 1)[1])

    def build(n: int) -> str:
        return "x" + fill * n + "\nx"

    small, large = (_tries_read(guarded, build(n)) for n in (N, 2 * N))
    assert large.grew_linearly_from(small), (small, large)
    # The count tells: without the guard, the tries grow with the square.
    bare_small, bare_large = (_tries_read(bare, build(n)) for n in (N, 2 * N))
    assert not bare_large.grew_linearly_from(bare_small), (bare_small, bare_large)
    assert pattern.search(build(N)) is None


def _pydantic_work(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Tally, str]:
    tally = Tally()
    with monkeypatch.context() as patch:
        count_patterns(patch, retry, lambda _name: tally.charge)
        kept = retry._without_pydantic_links(CountingStr(text, tally.charge))
    return tally, kept


PYDANTIC_RUNS: list[tuple[str, Callable[[int], str]]] = [
    ("blank_lines", lambda n: "x" + " \n" * n + "x"),
    ("blank_lines_then_a_link", lambda n: "x" + " \n" * n + PYDANTIC_WORDS + "2\nx"),
    (
        "links_in_blank_lines",
        lambda n: (" \n" * 50 + PYDANTIC_WORDS + "2\n") * (n // 50),
    ),
    ("spaces_before_links", lambda n: ("x" + " " * 50 + PYDANTIC_WORDS) * (n // 50)),
]


@pytest.mark.parametrize(
    "build", [pytest.param(b, id=name) for name, b in PYDANTIC_RUNS]
)
def test_pydantic_links_are_cut_in_one_pass(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, small_kept = _pydantic_work(monkeypatch, build(N))
    large, large_kept = _pydantic_work(monkeypatch, build(2 * N))
    assert large.grew_linearly_from(small), (small, large)
    for n, kept in ((N, small_kept), (2 * N, large_kept)):
        assert kept == retry._PYDANTIC_LINK.sub("", build(n))


def test_a_reply_of_blank_lines_keeps_its_feedback() -> None:
    reply = " \n" * N + "{oops"
    message = (
        f"Failed to parse Answer from completion {reply}. Got: 1 validation error\n"
        f"  {PYDANTIC_WORDS}2.7/v/missing\n"
        "For troubleshooting, visit: https://python.langchain.com/x "
    )
    cleaned = retry.clean_parser_message(message, reply)
    assert "pydantic.dev" not in cleaned
    assert "troubleshooting" not in cleaned
    assert "your reply" in cleaned
