"""The single-edit search leaves out edits that can give it nothing new.

It also passes over, in C, the strings far before the stop that hold no site
(``single_edit_far._tokens``): the far sites are those of a scan of every
token, on every reply and wherever the window starts.

Six kinds, each left out before it is read, never a reading of its own:

- a quote far before the stop swapped with a comma or colon beside it
  (``"a":`` made ``"a:"``): the string is then followed by a value, or the
  separator by another (``single_edit_far.quote_swaps``), and the text fails
  there, before the stop. ``CROSSED`` set to every neighbour tries them again;
- a bracket, comma or colon inserted on the other side of a space outside
  strings (``1 ]`` for ``1] ``): the same tokens, so the same value
  (``kept_edits(distinct=True)``; ``distinct=False`` tries them again);
- an edit near the stop that puts first a character JSON lets not come
  after the token before it, in the container open there (``[,``, ``1 {``,
  ``["a":``, a string's opening quote dropped): the text fails right there
  (``single_edit_checks.cannot_follow``; a bracket, comma, colon or quote
  that ``follows`` does not let come there is not even put), at the stop
  too where it is outside strings, and none after the stop where what
  stands there may not come there;
- a quote put inside a string, or swapped with the last character of its
  text, before a character that cannot follow a string in a container
  (``"be"ta"``, ``"bet"a``): the text fails right after it
  (``single_edit_near._AFTER_STRING``);
- at the closing quote of a string the decoder read, a bracket, comma or
  colon put before it (more of its text: the stop stays where it was), a
  quote put before it, or the quote dropped, escaped or swapped where the
  string then takes in a line break (``single_edit_checks.closing_quote_fails``).

So the search must answer exactly as it did with them, on every reply: the
oracle's faulted replies, the slips of the speed rows, and slips at random
places of compact records, where every quote stands beside a separator. Where
the search with them ran out of its budget (``None``), the one without may
read the reply, as the search with no budget at all does.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from _slips import (
    SLIPS,
    every_far_site,
    records,
    scattered,
    seeded_texts,
    slipped,
)

from langchain_jsonrecover._core.candidates.repair import _same_value
from langchain_jsonrecover._core.repair import (
    single_edit,
    single_edit_checks,
    single_edit_far,
    single_edit_near,
    single_edit_open,
)
from langchain_jsonrecover._core.repair.single_edit import (
    CONTROL,
    fix_single_edit,
    stop_of,
)
from langchain_jsonrecover._core.repair.single_edit_far import _TOKEN
from langchain_jsonrecover._core.repair.single_edit_readings import one_edit_readings
from langchain_jsonrecover._core.repair.syntax import Repaired

if TYPE_CHECKING:
    from collections.abc import Iterator

_EVERY_NEIGHBOUR = frozenset("{}[],:")
_UNBOUNDED = 1 << 40


class _Every:
    """Holds every character."""

    def __contains__(self, char: object) -> bool:
        return True


@cache
def _texts() -> tuple[str, ...]:
    texts = [*seeded_texts(), *slipped(100)]  # 100 records: 30 KB compact
    for count, seed in ((40, 0), (12, 1), (4, 2)):
        texts.extend(scattered(count, 40, seed))
    return tuple(texts)


def _trying_all(patch: pytest.MonkeyPatch) -> None:
    """Make the search try again the edits it leaves out."""
    patch.setattr(single_edit_far, "CROSSED", _EVERY_NEIGHBOUR)
    kept_edits = single_edit.kept_edits

    def every_insert(*args: Any, **options: Any) -> Any:
        return kept_edits(*args, **{**options, "distinct": False})

    patch.setattr(single_edit, "kept_edits", every_insert)
    patch.setattr(single_edit_near, "cannot_follow", lambda *_: False)
    patch.setattr(single_edit_near, "follows", lambda *_: single_edit_checks.ANY)
    patch.setattr(single_edit_near, "closing_quote_fails", lambda *_: False)
    patch.setattr(single_edit_near, "_AFTER_STRING", _Every())
    every_far_site(patch)


def _answer(text: str) -> tuple[Any, ...]:
    return fix_single_edit(text, max_depth=200), one_edit_readings(text, max_depth=200)


@cache
def _answers(*, every: bool = False) -> tuple[Any, ...]:
    """The search's answer and readings on every text."""
    with pytest.MonkeyPatch.context() as patch:
        if every:
            _trying_all(patch)
        return tuple(_answer(text) for text in _texts())


def test_the_replies_hold_every_kind_of_answer() -> None:
    kinds = {type(fixed).__name__ for fixed, _ in _answers()}
    assert kinds == {"Repaired", "Ambiguous", "NoneType"}
    swapped = [text for text in _texts() if re.search(r'[^\\]":"|\\"",', text)]
    assert len(swapped) >= 100


def test_leaving_them_out_changes_no_answer() -> None:
    old = _answers(every=True)
    new = _answers()
    changed = [
        index
        for index, (before, after) in enumerate(zip(old, new, strict=True))
        if after != before
    ]
    with pytest.MonkeyPatch.context() as patch:
        _trying_all(patch)
        patch.setattr(single_edit, "_BUDGET_EXTRA", _UNBOUNDED)
        unbounded = {index: _answer(_texts()[index]) for index in changed}
    # Where the old search ran out of budget, the new one may read as the old
    # one does with no budget at all.
    assert [
        index
        for index in changed
        if old[index] == unbounded[index] or new[index] != unbounded[index]
    ] == []


def _far(text: str, back: int) -> dict[str, Any] | None:
    """The far sites of ``text``, for a window ``back`` before the stop."""
    stop, message = stop_of(text)
    if stop < 0 or message.startswith(CONTROL) or text[:1] not in "[{":
        return None
    far = single_edit_far.find_far_sites(text, stop, max(0, stop - back))
    return {name: getattr(far, name) for name in far.__slots__}


def test_the_far_sites_are_those_of_a_scan_of_every_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(5)  # noqa: S311
    starts = [(text, back) for text in _texts() for back in (64, rng.randrange(999))]
    fast = [_far(text, back) for text, back in starts]
    assert sum(far is not None and bool(far["quotes"]) for far in fast) > 100

    def every_token(
        text: str, lo: int, stop: int, begin: int
    ) -> Iterator[tuple[int, int]]:
        del lo
        return (token.span() for token in _TOKEN.finditer(text, begin, stop))

    monkeypatch.setattr(single_edit_far, "_tokens", every_token)
    assert [_far(text, back) for text, back in starts] == fast


def test_the_far_sites_are_alike_where_the_scan_starts_at_the_container_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ``open_near`` finds the container open at the stop and its parent by
    # orjson, and only the kinds of those around them: every site and the
    # containers around it are those of ``open_before``'s scan, but for the
    # openers around the parent (and the parent's own context), which no
    # edit reads (``before_innermost`` rules their edits out).
    rng = random.Random(7)  # noqa: S311
    starts = [(text, back) for text in _texts() for back in (64, rng.randrange(999))]
    near = [_far(text, back) for text, back in starts]
    with monkeypatch.context() as patch:
        patch.setattr(single_edit_far, "open_near", lambda *_: None)
        scanned = [_far(text, back) for text, back in starts]
    taken = 0
    for (text, _), new, old in zip(starts, near, scanned, strict=True):
        if new is None or old is None or not new["outer"]:
            assert new == old
            continue
        taken += 1
        outer = len(old["stack"]) - len(new["stack"])
        assert old["stack"][outer:] == new["stack"]
        assert new["outer"] == "".join(text[at] for at in old["stack"][:outer])
        assert old["openers"][outer:] == new["openers"]
        dropped = set(old["stack"][: outer + 1])
        assert new["contexts"] == {
            at: context for at, context in old["contexts"].items() if at not in dropped
        }
        for name in ("slots", "quotes", "child", "child_ends", "strings", "closers"):
            assert new[name] == old[name], name
        assert new["near"] == old["near"]
    assert taken > 100


@dataclass
class Work:
    """The decoder's calls, and how many of them read the whole text."""

    calls: int = 0
    whole: int = 0


def _work(text: str, monkeypatch: pytest.MonkeyPatch, *, every: bool = False) -> Work:
    work = Work()
    real = orjson.loads

    def counting(data: str) -> Any:
        work.calls += 1
        work.whole += len(data) >= len(text) - 1
        return real(data)

    with monkeypatch.context() as patch:
        patch.setattr(orjson, "loads", counting)
        if every:
            _trying_all(patch)
        assert isinstance(fix_single_edit(text, max_depth=200), Repaired)
    return work


@pytest.mark.parametrize("slip", range(len(SLIPS)), ids=[n for _, _, n in SLIPS])
def test_the_far_sites_grow_with_the_records_not_with_their_keys(
    slip: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 more records: one far site each (the record's closer before a comma),
    # where every key was one too (its quote beside the colon).
    small, large = (_work(slipped(count)[slip], monkeypatch) for count in (40, 80))
    assert large.calls - small.calls <= 2 * 40
    old_small, old_large = (
        _work(slipped(count)[slip], monkeypatch, every=True) for count in (40, 80)
    )
    assert old_large.calls - old_small.calls > 4 * 40


@pytest.mark.parametrize("slip", range(len(SLIPS)), ids=[n for _, _, n in SLIPS])
def test_the_checks_near_the_stop_leave_out_most_edits_of_a_slip(
    slip: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each edit near the stop read costs a decoder call (its piece): the edits
    # that fail where they are put, in the container open there, or at a
    # closing quote, are no longer read (the lost bracket: 59 calls, was 140).
    text = slipped(40)[slip]
    new = _work(text, monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(single_edit_near, "cannot_follow", lambda *_: False)
        patch.setattr(single_edit_near, "follows", lambda *_: single_edit_checks.ANY)
        patch.setattr(single_edit_near, "closing_quote_fails", lambda *_: False)
        old = _work(text, patch)
    assert 5 * new.calls < 3 * old.calls


def test_what_follows_an_opener_or_separator_is_what_may_start_there() -> None:
    # ``follows`` answers from a table of its own; ``cannot_follow`` asks it of
    # brackets, separators and quotes, and the table of JSON of the rest.
    checks = single_edit_checks
    for last, nexts in checks._NEXT.items():
        assert set(checks._OPENED[last]) == nexts & checks._TOKEN_ENDS
    assert set(checks.ANY) == checks._TOKEN_ENDS


@pytest.mark.parametrize(
    ("text", "fixed"),
    [("[01]", "[0,1]"), ("[1, 02]", "[1, 0,2]")],
    ids=["first_item", "second_item"],
)
def test_an_edit_past_the_stop_is_made_where_what_stands_there_may(
    text: str, fixed: str
) -> None:
    # orjson stops at the 0 (no leading zero), which may come there: the
    # comma after it still reads the text. Where what stands at the stop may
    # not come there (``[1 2]``: the 2), no edit after it is made.
    found = fix_single_edit(text, max_depth=200)
    assert isinstance(found, Repaired)
    assert found.text == fixed


def _lost_bracket(indent: int) -> str:
    text = json.dumps(orjson.loads(records(40)), indent=indent, ensure_ascii=False)
    found = list(re.finditer(SLIPS[0][0], text))
    middle = found[len(found) // 2]
    return text[: middle.start(1)] + text[middle.end(1) :]


def test_a_lost_bracket_is_read_whole_as_often_however_wide_the_indent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The ``]`` fits before and after each space of the line break that
    # follows the last item: one value, read whole once.
    narrow, wide = (_work(_lost_bracket(indent), monkeypatch) for indent in (2, 8))
    assert wide.whole == narrow.whole <= 4
    assert _work(_lost_bracket(8), monkeypatch, every=True).whole > 3 * wide.whole


@pytest.mark.parametrize(
    ("value", "text", "same"),
    [
        ([1, 2], "[1, 2]", True),
        ([1 << 64], "[18446744073709551616]", True),
        ([1, 2], "[1, 3]", False),
    ],
    ids=["same", "big_integer", "other"],
)
def test_a_fix_that_carries_its_value_compares_as_orjson_reads_its_text(
    value: Any, text: str, *, same: bool
) -> None:
    # The search hands its value on (big integers exact); checked against the
    # repair pass's reading, it counts as its text reads (big integers exact).
    carried = Repaired(text, (), truncated=False, end=len(text), value=(value,))
    passed = Repaired(text, (), truncated=False, end=len(text))
    assert _same_value(carried, passed) is same


def _open_by_walk(text: str, lo: int, stop: int) -> tuple[int, list[int], list[int]]:
    """``open_before`` by a walk in Python, character by character."""
    openers: list[int] = []
    commas = [-1]
    after, start = 0, -1  # just past the last bracket; where the scan starts
    snapshot: tuple[list[int], list[int]] = ([], [-1])  # the state at ``after``
    state = snapshot
    at = 0
    while at < stop:
        char = text[at]
        if char == '"':  # a string: past its closing quote, or a lone quote
            end = at + 1
            while end < stop and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= stop:
                break
            at = end
        elif char == ",":
            commas[-1] = at
        elif char in "[]{}":
            if start < 0 and at >= lo:
                start, state = after, snapshot
            if char in "[{":
                openers.append(at)
                commas.append(-1)
            elif openers:
                openers.pop()
                commas.pop()
            after = at + 1
            snapshot = (openers.copy(), commas.copy())
        at += 1
    if start < 0:
        start, state = after, snapshot
    if not openers:
        return 0, [], [-1]
    if openers[-1] < start:
        return openers[-1], openers[:-1], commas[:-1]
    return start, *state


def _nested(rng: random.Random, depth: int) -> str:
    """A value nested up to ``depth`` levels, with brackets and escapes in strings."""
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(['"a"', '"[{"', '"\\""', '"}\\\\"', "1", "null"])
    items = [_nested(rng, depth - 1) for _ in range(rng.randrange(4))]
    if rng.random() < 0.5:
        return "[" + ", ".join(items) + "]"
    return "{" + ", ".join(f'"k{at}": {item}' for at, item in enumerate(items)) + "}"


def test_the_containers_open_before_the_scan_are_those_of_a_walk() -> None:
    # ``open_before`` takes the brackets in C and reads only the gaps of the
    # levels it returns for their last comma; a walk reads every character
    # (replies, and values nested nine deep cut anywhere).
    rng = random.Random(11)  # noqa: S311
    cases = 0
    nested = [_nested(rng, 9) for _ in range(300)]
    for text in [*_texts()[::3], *nested]:
        stop = stop_of(text)[0]
        for end in {stop, rng.randrange(len(text) + 1)} - {-1}:
            for lo in {1, max(1, end - 64), end, rng.randrange(end + 1)}:
                cases += 1
                walked = _open_by_walk(text, lo, end)
                assert single_edit_open.open_before(text, lo, end) == walked
    assert cases > 1000


def _splits_number_whole(text: str, at: int) -> bool:
    """``splits_number`` as first written: the number's regex always tried."""
    before = text[max(0, at - 32) : at].rstrip(" ")
    right = text[at : at + 32].lstrip(" ")
    spaced = text[at - 1 : at] == " " or text[at : at + 1] == " "
    number = re.search(r"-?[0-9.eE+]*+\Z", before)
    return before[-1:].isdigit() and (
        (
            right[:1].isdigit()
            and spaced
            and number is not None
            and number.group().lstrip("-") == "0"
        )
        or (right[:1] == "-" and right[1:2].isdigit() and not spaced)
    )


def test_the_checks_near_an_edit_answer_as_read_on_the_whole_text_before_it() -> None:
    # ``_last_solid`` looks back a short stretch first (all of the text only
    # where that is all space), and ``splits_number`` tries its regex last.
    rng = random.Random(13)  # noqa: S311
    pieces = ["0", "7", "-", ".", "e", " ", "  ", "\n", "\u3000", ",", "[", "]", '"a"']
    texts = [" " * 300 + "1", "[1, " + "\u2028 " * 200, "", " "]
    texts += ["".join(rng.choices(pieces, k=rng.randrange(60))) for _ in range(400)]
    texts += [" " * rng.randrange(600) + text for text in texts[:60]]
    solid = single_edit_checks._last_solid
    splits = single_edit_checks.splits_number
    for text in texts:
        for at in range(len(text) + 1):
            assert solid(text, at) == text[:at].rstrip()[-1:]
            if at:
                assert splits(text, at) == _splits_number_whole(text, at)
