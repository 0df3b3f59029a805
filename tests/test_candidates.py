"""The candidates of a prepared reply, in the order they are tried (``_candidates``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.candidates.read import iter_candidates
from langchain_jsonrecover._core.decode.tolerant import Stopped
from langchain_jsonrecover._core.reply.markup import prepare_reply

SCAN = Scan(max_depth=200)


def _read(reply: str, scan: Scan = SCAN) -> list[tuple[str, Any, str | None]]:
    return [
        (c.step, c.value, c.failure.kind if c.failure else None)
        for c in iter_candidates(prepare_reply(reply), scan)
    ]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(
            "[1] or {}",
            [("raw", [1], None), ("prose", {}, None)],
            id="the_reply_itself_then_prose",
        ),
        pytest.param(
            '{"a": 1} then [2]',
            [("raw", {"a": 1}, None), ("prose", [2], None)],
            id="objects_before_arrays_after_the_reply_itself",
        ),
        pytest.param(
            'See [2] and {"a": 1}',
            [("prose", {"a": 1}, None), ("prose", [2], None)],
            id="objects_before_arrays_in_prose",
        ),
        pytest.param(
            'Sure ```json\n{"a": 1}\n``` and {"b": 2}',
            [("fence", {"a": 1}, None)],
            id="a_fence_hides_the_prose",
        ),
        pytest.param(
            '```\n{"a": 1}\n```\n```json\n[2]\n```',
            [("fence", [2], None), ("fence", {"a": 1}, None)],
            id="json_tagged_fences_before_untagged",
        ),
        pytest.param(
            '```python\nx = {"a": 1}\n```\n{"b": 2}',
            [("prose", {"b": 2}, None)],
            id="a_block_of_code_is_no_candidate",
        ),
        pytest.param(
            '<think>{"x": 1}</think> [3]',
            [("raw", [3], None)],
            id="reasoning_is_no_candidate",
        ),
        pytest.param('x {"a": 1', [("prose", None, "truncated")], id="cut_at_the_end"),
        pytest.param(
            'x {"a": 1 and more',
            [("prose", None, "invalid_json")],
            id="not_closed_before_prose",
        ),
        pytest.param("no json", [], id="nothing"),
    ],
)
def test_candidates_come_in_order(
    reply: str, expected: list[tuple[str, Any, str | None]]
) -> None:
    assert _read(reply) == expected


@pytest.mark.parametrize(
    ("reply", "scan", "expected"),
    [
        pytest.param("36", SCAN, [], id="a_scalar_is_no_candidate_by_default"),
        pytest.param(
            "36", Scan(200, scalars=True), [("raw", 36, None)], id="scalars_asked_for"
        ),
        pytest.param(
            'x {"a": [1, 2, ',
            Scan(200, close_truncated=True),
            [("prose", {"a": [1, 2]}, None)],
            id="closed_when_asked",
        ),
        pytest.param(
            'x {"a": 12',
            Scan(200, close_truncated=True, final_only=True),
            [("prose", {}, None)],
            id="a_number_at_the_cut_is_not_final",
        ),
    ],
)
def test_scan_options(
    reply: str, scan: Scan, expected: list[tuple[str, Any, str | None]]
) -> None:
    assert _read(reply, scan) == expected


def test_repairs_say_how_each_was_found() -> None:
    found = list(iter_candidates(prepare_reply('json\n{"a": 1}'), SCAN))
    assert [c.repairs for c in found] == [("json_label_dropped",)]
    found = list(iter_candidates(prepare_reply('Sure ```json\n{"a": 1}\n```'), SCAN))
    assert [c.repairs for c in found] == [("fence_stripped",)]


def test_reading_keeps_every_option_of_the_scan() -> None:
    # ``Scan.reading`` names each field (faster than ``dataclasses.replace``):
    # a field added to ``Scan`` and left out there fails here.
    options: dict[str, Any] = {}
    for field in dataclasses.fields(Scan):
        if field.name == "max_depth":
            options[field.name] = 7
        elif field.type == "bool":
            options[field.name] = not field.default
    scan = Scan(**options)
    stop = Stopped(3, "trailing comma is not allowed")
    assert scan.reading(stop) == dataclasses.replace(scan, stop=stop)
    assert len(options) == len(dataclasses.fields(Scan)) - 1  # all but the stop
    assert scan.reading(None) is scan
