"""The far-site scan rules out, on the tokens after them, sites that cannot read.

A closer far before the stop is a site where dropping it would keep the
members after it in its container (a stray closer). Dropped, its container
stays open: where a comma and then a token the container cannot hold follow
it (a ``{`` where an object wants a key, a key where an array wants a value),
or where its container's own closer is followed by one, the text fails right
there (``single_edit_far._MEMBER_NEXT``, ``_goes_on_open``). A bracket swapped
out of a string's end follows the string at once: unless it closes the
container the string is in, the text fails there too (``quote_swaps``).
Those sites are left out before their member is read.

So the search must answer exactly as with them, on replies of 300 B to 30 KB
with each kind of slip at a seeded random place, pretty-printed or compact,
with strings that end in a bracket (as the speed rows' greeting does).
"""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Any

import orjson
import pytest
from _slips import SLIPS, changed_answers, every_far_site, slipped

from langchain_jsonrecover._core.repair import single_edit, single_edit_far
from langchain_jsonrecover._core.repair.single_edit import CONTROL, stop_of
from langchain_jsonrecover._core.repair.single_edit_readings import one_edit_readings

_UNBOUNDED = 1 << 40
_SEEDS = 240
_SLIP_SITES = (
    (r'"tags": ?\[[^\]]*(\])', ""),  # a lost bracket
    (r'"city(")', ""),  # a lost quote
    (r'"id": \d+(,)', ""),  # a lost comma
    (r'"lat": [0-9.]+()', ","),  # a trailing comma
    (r"(\})\s*,", ""),  # a stray closer: one dropped
    (r'[\]}](")', '"]'),  # a bracket swapped out of a string's end
)


def _document(count: int, rng: random.Random) -> Any:
    return {
        "count": count,
        "records": [
            {
                "id": index,
                "name": rng.choice(["Rosa Müller", "José Dubois", "Søren"]),
                "tags": ["beta", "trial", "優先"][: 1 + rng.randrange(3)],
                "address": {"city": "Kraków", "geo": {"lat": 1.5, "lon": -2}},
                "orders": [{"sku": f"SKU-{index}"}] * rng.randrange(3),
                "greeting": f"Dear {{name}}, see {{order_{index}}} [{index}]",
            }
            for index in range(count)
        ],
    }


@cache
def _texts() -> tuple[str, ...]:
    """One slip each, at a random place, in replies of about 300 B to 30 KB."""
    texts = []
    for seed in range(_SEEDS):
        rng = random.Random(seed)  # noqa: S311
        count = rng.choice((1, 2, 4, 8, 16, 40, 64, 100))
        option = orjson.OPT_INDENT_2 if rng.randrange(3) else 0
        text = orjson.dumps(_document(count, rng), option=option).decode()
        pattern, new = _SLIP_SITES[seed % len(_SLIP_SITES)]
        found = list(re.finditer(pattern, text))
        if not found:
            continue
        site = rng.choice(found)
        slipped = text[: site.start(1)] + new + text[site.end(1) :]
        if stop_of(slipped)[0] >= 0:  # not a slip that leaves valid JSON
            texts.append(slipped)
    return tuple(texts)


@cache
def _answers(*, every: bool = False, budget: int | None = None) -> tuple[Any, ...]:
    with pytest.MonkeyPatch.context() as patch:
        if every:
            every_far_site(patch)
        if budget is not None:
            patch.setattr(single_edit, "_BUDGET_EXTRA", budget)
        return tuple(
            (
                single_edit.fix_single_edit(text, max_depth=200),
                one_edit_readings(text, max_depth=200),
            )
            for text in _texts()
        )


def test_the_replies_are_read_and_refused() -> None:
    kinds = {type(fixed).__name__ for fixed, _ in _answers()}
    assert {"Repaired", "Ambiguous"} <= kinds
    assert max(map(len, _texts())) > 30_000


def test_ruling_sites_out_on_the_tokens_after_them_changes_no_answer() -> None:
    old = _answers(every=True)
    new = _answers()
    exact = _answers(every=True, budget=_UNBOUNDED)
    assert changed_answers(old, new, exact) == []


def _sites(text: str, *, every: bool = False) -> int:
    """How many far closers and quote swaps the scan finds before the stop."""
    stop, message = stop_of(text)
    assert stop >= 0
    assert not message.startswith(CONTROL)
    with pytest.MonkeyPatch.context() as patch:
        if every:
            every_far_site(patch)
        far = single_edit_far.find_far_sites(text, stop, max(1, stop - 64))
    return len(far.closers) + len(far.quotes)


def test_the_scan_rules_sites_out_on_most_replies() -> None:
    fewer = [_sites(text) < _sites(text, every=True) for text in _texts()]
    assert sum(fewer) > len(fewer) // 2


def _lost_bracket(count: int) -> str:
    rng = random.Random(0)  # noqa: S311
    document = _document(count, rng)
    text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    found = list(re.finditer(_SLIP_SITES[0][0], text))
    middle = found[len(found) // 2]
    return text[: middle.start(1)] + text[middle.end(1) :]


def test_a_lost_bracket_has_as_many_far_sites_however_many_records_before_it() -> None:
    # Each record before the slip held three: its closer, its address's
    # closer and its greeting's last bracket. Each fails on the tokens after
    # it; so do the pieces read for them, one or two decodes each.
    small, large = (_lost_bracket(count) for count in (40, 80))
    assert _sites(large) == _sites(small) <= 4
    assert _sites(large, every=True) - _sites(small, every=True) >= 3 * 20


def _calls(text: str, *, every: bool = False) -> int:
    """How many times the search hands the decoder a text or a piece."""
    calls = 0
    real = orjson.loads

    def counting(data: str) -> Any:
        nonlocal calls
        calls += 1
        return real(data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(orjson, "loads", counting)
        if every:
            every_far_site(patch)
        single_edit.fix_single_edit(text, max_depth=200)
    return calls


@pytest.mark.parametrize("slip", range(len(SLIPS)), ids=[n for _, _, n in SLIPS])
def test_the_decodes_per_slip_do_not_grow_with_the_records_before_it(
    slip: int,
) -> None:
    # Every site before the container open at the stop is left out: no more
    # decodes with 20 more records before the slip (in the middle record,
    # whose own tags differ), where each record was a far site or more
    # before (its closer, its address's closer).
    small, large = (slipped(count)[slip] for count in (40, 80))
    assert _calls(large) <= _calls(small) + 10
    assert _calls(large, every=True) - _calls(small, every=True) >= 20
