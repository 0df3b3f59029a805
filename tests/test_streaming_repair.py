"""Streaming with ``repair=True``: a partial never shows what the final repair moves.

The final repair may put a value into a container whose opener was lost
(``{"tags": "a", "b"]``) or read a lost ``{`` before it (``{"args": "q": 1}``);
so with repair the root's last member waits until the next one starts.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _chunked_chat import ChunkedChat
from _oracle import generate
from langchain_core.outputs import Generation
from test_repair_two_readings import PARSERS

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
)


def _holds_only_final(partial: Any, final: Any) -> bool:
    """Whether every member or item the partial shows is in the final value as is."""
    if isinstance(partial, dict):
        return isinstance(final, dict) and all(
            key in final and final[key] == value for key, value in partial.items()
        )
    if isinstance(partial, list):
        return isinstance(final, list) and bool(final[: len(partial)] == partial)
    return bool(partial == final)


async def _astream(chain: Any) -> list[Any]:
    return [item async for item in chain.astream("hi")]


RESTRUCTURED = [
    # The final repair moves the value that arrived before the fault.
    ('{"tags": "a", "b"], "n": 1}', {"tags": ["a", "b"], "n": 1}),
    ('{"args": "q": 1}, "n": 2}', {"args": {"q": 1}, "n": 2}),
    ('{"id": 7, "tags": "red", "blue"], "ok": true}', None),
    ('{"user": "name": "Ada", "age": 36}, "n": 2}', None),
    ('[{"a": "x", "b"]}]', None),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize(("reply", "value"), RESTRUCTURED)
def test_no_partial_shows_a_value_the_final_repair_moves(
    reply: str, value: Any, make: Any, seed: int
) -> None:
    parser = make()
    chain = ChunkedChat(reply=reply, seed=seed) | parser
    try:
        final = parser.parse(reply)
    except JsonRecoveryError:
        with pytest.raises(JsonRecoveryError):
            list(chain.stream("hi"))
        return
    if value is not None:
        assert final == value
    for items in (list(chain.stream("hi")), asyncio.run(_astream(chain))):
        assert items[-1] == final
        for item in items[:-1]:
            assert _holds_only_final(item, final), (item, final)


def test_a_closed_string_the_repair_puts_in_a_list_is_never_shown() -> None:
    reply = '{"tags": "a", "b"], "n": 1}'
    parser = JsonFenceOutputParser(repair=True)
    for seed in range(8):
        items = list((ChunkedChat(reply=reply, seed=seed) | parser).stream("hi"))
        assert {"tags": "a"} not in items
        assert items[-1] == {"tags": ["a", "b"], "n": 1}


@pytest.mark.parametrize("make", PARSERS)
def test_with_repair_a_member_shows_once_the_next_one_starts(make: Any) -> None:
    parser = make()
    text = '{"name": "Ada", "age": 36, "city": "Par'

    def partial(end: int) -> Any:
        return parser.parse_result([Generation(text=text[:end])], partial=True)

    assert partial(len('{"name": "Ad')) == {}
    assert partial(len('{"name": "Ada", "a')) == {}
    assert partial(len('{"name": "Ada", "age": 36, "ci')) == {"name": "Ada"}
    assert partial(len(text)) == {"name": "Ada", "age": 36}
    # Without repair the partial holds the string at the cut.
    plain = JsonFenceOutputParser()
    assert plain.parse_result([Generation(text=text)], partial=True)["city"] == "Par"


def test_faulted_replies_stream_only_final_values() -> None:
    # The syntax oracle's bracket faults, each prefix read as a partial.
    kinds = {"missing_opener", "bracket_deleted", "bracket_swapped", "stray_closer"}
    cases = [case for case in generate(11, 240) if case.fault in kinds]
    parser = JsonFenceOutputParser(repair=True)
    checked = 0
    for case in cases:
        try:
            final = parser.parse(case.reply)
        except JsonRecoveryError:
            continue
        step = max(1, len(case.reply) // 60)
        for end in range(1, len(case.reply), step):
            gen = [Generation(text=case.reply[:end])]
            item = parser.parse_result(gen, partial=True)
            if item not in (None, {}, []):
                assert _holds_only_final(item, final), (case.reply[:end], item)
                checked += 1
    assert checked > 100
