"""The repair pass reuses what the single-edit search learnt, and answers alike.

Where the pass guessed (``bracket_fixed_guessed`` …), the search checks the
guess. Two of its results are kept rather than learnt again: where orjson
stopped in the candidate (the strict read learnt it), and, when the search
wrote the very text the pass wrote, the value it decoded that text to (the
candidate's value, no second decode). Both save work only: every reply here
is extracted with ``repair=True`` both ways (the old way: the stop learnt
again, the text decoded again), on the fault oracle's replies, slips of the
speed rows' kinds in pretty-printed records of 1 to 100 records, and seeded
slips in compact records, and must give the same answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson
import pytest
from _slips import scattered, seeded_texts, slipped

from langchain_jsonrecover._core.candidates import repair
from langchain_jsonrecover._core.candidates.repair import RepairPass
from langchain_jsonrecover._core.decode.tolerant import stop_in
from langchain_jsonrecover._core.extract import extract
from langchain_jsonrecover._core.found import Extraction
from langchain_jsonrecover._core.repair import single_edit, single_edit_pieces, syntax
from langchain_jsonrecover._core.repair.single_edit_pieces import value_key


@cache
def _texts() -> tuple[str, ...]:
    texts = list(seeded_texts())
    for count in (2, 100):
        texts.extend(slipped(count))
    for seed in (1, 2, 3):
        texts.extend(scattered(12, 8, seed))
    return tuple(texts)


def _answer(found: Any) -> str:
    """The answer, types and key order included (``1`` is not ``1.0``)."""
    if isinstance(found, Extraction):
        return repr((found.value, found.span, found.step, found.repairs))
    return repr(found)


def _forget(patch: pytest.MonkeyPatch) -> None:
    """The old way: the search learns the stop again, each value is decoded again."""
    search = single_edit.fix_single_edit
    learn = RepairPass._repair_text

    def unstopped(text: str, *, max_depth: int, **_: Any) -> Any:
        return search(text, max_depth=max_depth)

    def forgetting(self: RepairPass, start: int, **options: Any) -> Any:
        fixed = learn(self, start, **options)
        self._decoded.clear()
        return fixed

    patch.setattr(repair, "fix_single_edit", unstopped)
    patch.setattr(RepairPass, "_repair_text", forgetting)


@cache
def _answers(*, reuse: bool) -> tuple[str, ...]:
    with pytest.MonkeyPatch.context() as patch:
        if not reuse:
            _forget(patch)
        return tuple(_answer(extract(text, repair=True)) for text in _texts())


def test_the_replies_hold_values_and_errors() -> None:
    answers = _answers(reuse=True)
    assert sum(answer.startswith("(") for answer in answers) > len(answers) // 3
    assert sum(not answer.startswith("(") for answer in answers) > 10


def test_reusing_the_search_changes_no_answer() -> None:
    old, new = _answers(reuse=False), _answers(reuse=True)
    changed = [
        index
        for index, (before, after) in enumerate(zip(old, new, strict=True))
        if before != after
    ]
    assert changed == []


def test_the_search_is_handed_the_stop_the_strict_read_learnt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    search = single_edit.fix_single_edit
    handed: list[bool] = []

    def checking(
        text: str, *, max_depth: int, stopped: Any = None, **known: Any
    ) -> Any:
        if stopped is not None:
            handed.append(stopped == stop_in(text))
        return search(text, max_depth=max_depth, stopped=stopped, **known)

    monkeypatch.setattr(repair, "fix_single_edit", checking)
    for text in _texts():
        extract(text, repair=True)
    assert handed
    assert all(handed)


def test_a_lost_bracket_is_decoded_whole_twice_less(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = slipped(40)[0]  # a lost ``]``: the pass guesses, the search agrees
    real = orjson.loads
    whole: list[int] = []

    def counting(data: str) -> Any:
        whole.append(len(data) >= len(text) - 1)
        return real(data)

    def reads() -> int:
        whole.clear()
        found = extract(text, repair=True)
        assert isinstance(found, Extraction)
        assert found.repairs == ("bracket_fixed_guessed",)
        return sum(whole)

    monkeypatch.setattr(orjson, "loads", counting)
    # The pass over the whole reply (its guess is spliced into the reply
    # since, with the value decoded there: nothing for the search to hand on).
    monkeypatch.setattr(syntax, "_spliced", lambda *_: None)
    now = reads()
    with monkeypatch.context() as patch:
        _forget(patch)
        before = reads()
    assert now == before - 2  # the stop, and the value


def test_a_spliced_guess_is_decoded_whole_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pass's guess is spliced into the reply and decoded there; the
    # search's edit that writes the same text takes that value (``known``),
    # and the check of one against the other keys neither.
    text = slipped(40)[0]  # a lost ``]``
    real = orjson.loads
    whole: list[int] = []
    keyed: list[int] = []

    def counting(data: str) -> Any:
        whole.append(len(data) >= len(text) - 1)
        return real(data)

    def keying(value: Any) -> Any:
        keyed.append(1)
        return value_key(value)

    def reads() -> tuple[int, int]:
        whole.clear()
        keyed.clear()
        found = extract(text, repair=True)
        assert isinstance(found, Extraction)
        assert found.repairs == ("bracket_fixed_guessed",)
        return sum(whole), len(keyed)

    monkeypatch.setattr(orjson, "loads", counting)
    monkeypatch.setattr(repair, "value_key", keying)
    now = reads()
    search = single_edit.fix_single_edit
    with monkeypatch.context() as patch:
        patch.setattr(
            repair,
            "fix_single_edit",
            lambda text, **options: search(text, **{**options, "known": None}),
        )
        before = reads()
    # The strict read, the splice, and the `{` put before the next key (it
    # reads to the end); without the value handed on, that edit's text too.
    assert now == (3, 0)
    assert before == (4, 2)


def test_a_spliced_guess_has_its_depth_checked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The search checks the depth of the edit that writes the pass's text
    # (``decode_whole``); the candidate's decode takes that answer, rather
    # than peeling the same brackets again (``within_depth``).
    text = slipped(40)[0]  # a lost ``]``
    checked: list[int] = []
    for module in (repair, single_edit_pieces):
        real = module.within_depth

        def counting(data: str, value: Any, depth: int, real: Any = real) -> bool:
            checked.append(len(data))
            return bool(real(data, value, depth))

        monkeypatch.setattr(module, "within_depth", counting)
    found = extract(text, repair=True)
    assert isinstance(found, Extraction)
    assert found.repairs == ("bracket_fixed_guessed",)
    assert len(checked) == 1
