"""The single-edit search's piece check changes no answer, only the work.

Before the whole edited text is decoded, the search reads the edited member
alone, in its containers (``single_edit_pieces.member_piece``): a piece that does
not read on rules the edit out. That is a filter, never a reading of its own,
so with it the search must answer exactly as without it, on every reply.
Here both run on the fault oracle's replies (one fault each, seeded) and on
slips of the speed rows' kinds: the search with the check, and the search with it
turned off (``_PAST`` empty), which is the search as it was. Where the old
search ran out of its budget it answered ``None``; the new one, which spends
the budget only on the edits the check lets through, may read the reply
there, and must then read it as the old one does with no budget at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
import pytest
from _counting import GROWTH
from _slips import (
    CASES,
    SLIPS,
    changed_answers,
    every_far_site,
    seeded_texts,
    slipped,
)

from langchain_jsonrecover._core.repair import single_edit
from langchain_jsonrecover._core.repair.single_edit import fix_single_edit
from langchain_jsonrecover._core.repair.single_edit_readings import one_edit_readings
from langchain_jsonrecover._core.repair.syntax import Repaired

_UNBOUNDED = 1 << 40


@cache
def _answers(*, check: bool, budget: int | None = None) -> tuple[Any, ...]:
    """The search's answers and readings on every text, with the check or without."""
    with pytest.MonkeyPatch.context() as patch:
        if not check:
            patch.setattr(single_edit, "_PAST", ())
        if budget is not None:
            patch.setattr(single_edit, "_BUDGET_EXTRA", budget)
        return tuple(
            (
                fix_single_edit(text, max_depth=200),
                one_edit_readings(text, max_depth=200),
            )
            for text in seeded_texts()
        )


def _work(
    text: str,
    monkeypatch: pytest.MonkeyPatch,
    *,
    check: bool = True,
    every: bool = False,
) -> Work:
    """What the search hands the decoder on ``text`` (``every``: every far site)."""
    work = Work()
    real = orjson.loads

    def counting(data: str) -> Any:
        work.read += len(data)
        work.whole += len(data) >= len(text) - 1
        return real(data)

    with monkeypatch.context() as patch:
        patch.setattr(orjson, "loads", counting)
        if not check:
            patch.setattr(single_edit, "_PAST", ())
        if every:
            every_far_site(patch)
        assert isinstance(fix_single_edit(text, max_depth=200), Repaired)
    return work


@dataclass
class Work:
    """Characters the decoder was handed, and how many times the whole text."""

    read: int = 0
    whole: int = 0


def test_the_replies_hold_every_kind_of_answer() -> None:
    kinds = {type(fixed).__name__ for fixed, _ in _answers(check=True)}
    assert kinds == {"Repaired", "Ambiguous", "NoneType"}
    assert len(seeded_texts()) >= 2 * CASES


def test_the_check_changes_no_answer() -> None:
    old = _answers(check=False)
    new = _answers(check=True)
    exact = _answers(check=False, budget=_UNBOUNDED)
    assert changed_answers(old, new, exact) == []


@pytest.mark.parametrize("slip", range(len(SLIPS)), ids=[n for _, _, n in SLIPS])
def test_the_check_spares_reading_the_text_once_per_edit(
    slip: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every far site the scan finds, as before it ruled some out on the
    # tokens after them: each one the check rules out is not read whole.
    text = slipped(40)[slip]
    before = _work(text, monkeypatch, check=False, every=True)
    after = _work(text, monkeypatch, every=True)
    assert after.read * 4 < before.read


@pytest.mark.parametrize("slip", range(len(SLIPS)), ids=[n for _, _, n in SLIPS])
def test_the_work_per_slip_grows_with_the_reply_not_with_reply_times_edits(
    slip: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Twice the records: twice the far sites and the same few edits that read
    # on, each of those decoded whole once. Without the check every far site
    # is decoded whole: four times the work.
    small, large = (_work(slipped(n)[slip], monkeypatch) for n in (40, 80))
    assert large.read <= GROWTH * small.read
    assert large.whole <= small.whole + 2
