"""A value's lead is read for a format label at its end only (issue 24).

``rival_of_example`` asks whether the text before the chosen value ends in a
label (``Output format:``) or a frame (``in the requested format:``). The
patterns are anchored at the lead's end, but were searched from its start:
a megabyte of ``{`` or of ``word `` before a value was read by every pattern.
:func:`is_example` reads only the lead's last words. These tests show it
answers as the whole-lead searches did (on seeded leads built to reach the
window's edges: long words, runs of blanks, letters that fold to ASCII under
``IGNORECASE``), and that its pattern work does not grow with the lead.
"""

from __future__ import annotations

import random
import re
import sys
from typing import TYPE_CHECKING

import pytest
from _counting import Tally, count_patterns

from langchain_jsonrecover._core.candidates import placeholder
from langchain_jsonrecover._core.candidates.placeholder import is_example

if TYPE_CHECKING:
    from collections.abc import Callable

SEEDS = range(40)
LEADS_PER_SEED = 150

PIECES = (
    "format", "Format", "FORMAT", "examples", "e.g.", "e.g", "sample", "Schema",
    "templates.", "expected", "output", "responses", "answer", "json", "is",
    "would", "be", "looks", "like", ":", ".", "in", "In", "IN", "the",
    "requested", "this", "An", "example", "(in", "*format*", "x", "{", "}",
    '{"a":', "word", "here",
    # Letters that fold to ASCII ones under IGNORECASE: long s (s), Kelvin
    # sign (k), dotted and dotless i (i), and a ligature that folds to none.
    "\u017fample", "exampl\u0435", "\u0130n", "\u0131n", "\u212aey", "\ufb01le",
    "\u017fchema", "j\u017fon", "\u0131nfo",
)  # fmt: skip
BLANKS = (" ", " ", "  ", "\t", "\u00a0", "\u2003", "\x1c", "\x85", "\u3000")


def _whole_lead(lead: str) -> bool:
    """The check as it was: every pattern searched over the whole lead."""
    lead = lead.strip()
    framed = placeholder._IN_FORMAT.search(lead)
    if framed is not None:
        return placeholder._LABEL_WORD.search(lead, 0, framed.start()) is not None
    return placeholder._LABEL.search(lead) is not None


def _random_lead(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 14)):
        roll = rng.random()
        if roll < 0.1:  # a long word: the window's edge falls inside it
            parts.append(rng.choice("{x:") * rng.randrange(20, 200))
        elif roll < 0.15:  # a long run of blanks inside a label
            parts.append(rng.choice(BLANKS) * rng.randrange(20, 200))
        else:
            parts.append(rng.choice(PIECES))
        parts.append(rng.choice((*BLANKS, "")))
    return rng.choice(("", " ", "\n")) + "".join(parts) + rng.choice(("", " ", ":"))


def _seeded_leads(seed: int) -> list[str]:
    rng = random.Random(seed)  # noqa: S311 - test data
    return [_random_lead(rng) for _ in range(LEADS_PER_SEED)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("searched_whole", [0, placeholder._SEARCHED_WHOLE])
def test_the_last_words_answer_as_the_whole_lead(
    monkeypatch: pytest.MonkeyPatch, seed: int, searched_whole: int
) -> None:
    # With no lead searched whole, every lead is read by its last words.
    monkeypatch.setattr(placeholder, "_SEARCHED_WHOLE", searched_whole)
    leads = _seeded_leads(seed)
    assert [is_example(lead) for lead in leads] == [_whole_lead(x) for x in leads]
    # Both answers occur, or the equality would show little.
    assert len({_whole_lead(lead) for lead in leads}) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_the_frame_is_found_where_search_finds_it(seed: int) -> None:
    for lead in map(str.strip, _seeded_leads(seed)):
        words = placeholder._last_words(lead, placeholder._IN_WORDS)
        found = placeholder._IN_FORMAT.search(lead)
        assert placeholder._in_format(lead, words) == (found and found.start())
        whole = placeholder._LABEL.search(lead)
        near = placeholder._LABEL.search(lead, placeholder._label_from(lead, words))
        assert (near and near.span()) == (whole and whole.span())


@pytest.mark.parametrize("seed", SEEDS)
def test_the_last_words_are_the_blank_separated_words(seed: int) -> None:
    for lead in map(str.strip, _seeded_leads(seed)):
        runs = [m.span() for m in re.finditer(r"\S+", lead)]
        assert placeholder._last_words(lead, 6) == runs[-6:]


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        pytest.param("Output format:", True, id="label"),
        pytest.param("The sample output looks  like :", True, id="five_words"),
        pytest.param("templates. responses looks like:", True, id="longest_label"),
        pytest.param("Reply in the requested format:", False, id="frame"),
        pytest.param("An example in JSON format:", True, id="label_word_then_frame"),
        pytest.param(
            "An example, then reply in the format:", True, id="far_label_word"
        ),
        pytest.param("in " + "{" * 500, False, id="frame_over_a_long_word"),
        pytest.param("example in " + "{" * 500, True, id="label_then_long_frame"),
        pytest.param("x" * 500 + " Format:", True, id="long_word_then_label"),
        pytest.param("x" * 500 + "Format:", False, id="label_inside_a_word"),
        pytest.param("(" + "x" * 500 + " (format:", True, id="after_a_bracket"),
        pytest.param("Format" + " " * 500 + "output:", True, id="label_over_blanks"),
        pytest.param("\u017famples:", True, id="long_s_folds"),
        pytest.param("\u0130n the requested format:", False, id="dotted_i_folds"),
        pytest.param("e.g.:", True, id="e_g"),
        pytest.param("", False, id="empty"),
    ],
)
def test_labels_and_frames_at_the_window_edges(lead: str, *, expected: bool) -> None:
    assert is_example(lead) is expected
    assert _whole_lead(lead) is expected


def test_the_label_bound_is_reached() -> None:
    # The longest label: the bound on its non-blanks is tight, not guessed.
    longest = "templatees. responses looks like:"
    match = placeholder._LABEL.fullmatch(longest)
    assert match is not None
    assert len("".join(longest.split())) == placeholder._LABEL_CHARS


LONG_LEADS = [
    ("run_of_braces", lambda n: "{" * n),
    ("words", lambda n: "word " * n),
    ("words_then_a_label", lambda n: "word " * n + "Output format:"),
]


def _pattern_work(monkeypatch: pytest.MonkeyPatch, lead: str) -> tuple[Tally, bool]:
    tally = Tally()
    with monkeypatch.context() as patch:
        count_patterns(patch, placeholder, lambda _name: tally.charge)
        return tally, is_example(lead)


@pytest.mark.parametrize("build", [pytest.param(b, id=name) for name, b in LONG_LEADS])
def test_the_pattern_work_does_not_grow_with_the_lead(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, small_answer = _pattern_work(monkeypatch, build(20_000))
    large, large_answer = _pattern_work(monkeypatch, build(40_000))
    assert small_answer == large_answer == _whole_lead(build(20_000))
    assert (large.calls, large.chars) == (small.calls, small.chars)
    assert small.chars < 200, small


FRAMED_LEADS = [
    ("words_then_a_frame", lambda n: "word " * n + "in the requested format:"),
    ("frame_over_a_long_word", lambda n: "in " + "{" * n),
]


@pytest.mark.parametrize(
    "build", [pytest.param(b, id=name) for name, b in FRAMED_LEADS]
)
def test_a_frame_reads_the_lead_once(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    # ``Reply in the requested format:`` is the answer, so framed, unless a
    # label word comes anywhere before the frame (that search reads the lead
    # before it); a frame's last word is matched whole, however long.
    small, small_answer = _pattern_work(monkeypatch, build(20_000))
    large, large_answer = _pattern_work(monkeypatch, build(40_000))
    assert small_answer is large_answer is False
    assert large.calls == small.calls
    assert large.chars <= 2 * small.chars


def test_the_whole_lead_search_grew_with_the_lead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The count tells: the searches from the lead's start read all of it.
    tallies = [Tally(), Tally()]
    for n, tally in zip((20_000, 40_000), tallies, strict=True):
        with monkeypatch.context() as patch:
            count_patterns(patch, placeholder, lambda _name: tally.charge)  # noqa: B023
            _whole_lead("{" * n)
    assert tallies[1].chars >= 2 * tallies[0].chars >= 80_000


def test_a_label_letter_matches_only_what_casefolds_to_it() -> None:
    # The ground of the substring pre-check: a character that IGNORECASE
    # matches to a letter of a label word casefolds to that very letter.
    every = "".join(map(chr, [*range(0xD800), *range(0xE000, sys.maxunicode + 1)]))
    letters = set("".join(placeholder._PLAIN_WORDS))
    folds = {
        (letter, char.casefold())
        for letter in letters
        for char in re.findall(re.escape(letter), every, re.IGNORECASE)
    }
    assert folds == {(letter, letter) for letter in letters}
    assert ("s", "s") in folds  # the long s was among the matches
    assert re.fullmatch("s", "\u017f", re.IGNORECASE) is not None


@pytest.mark.parametrize(
    "lead",
    ["Here is the export you asked for:", "\u017fAMPLE OUTPUT:", "E.G.:", "Ans:"],
)
def test_the_pre_check_answers_as_the_patterns(lead: str) -> None:
    assert is_example(lead) is _whole_lead(lead)
    if is_example(lead):
        assert placeholder._may_hold_label_word(lead)
