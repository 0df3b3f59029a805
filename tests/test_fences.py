"""Fence finding: where blocks open and close, and what their tags say."""

from __future__ import annotations

import itertools

import pytest

from langchain_jsonrecover._fences import find_fences, outer_fence

Block = tuple[str, str, bool]  # tag, body, closed


def blocks(text: str) -> list[Block]:
    return [
        (f.tag, text[f.body_start : f.body_end], f.closed) for f in find_fences(text)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("no fence here", [], id="no fence"),
        pytest.param(
            "a\n```json\n{}\n```\nb", [("json", "{}\n", True)], id="one block"
        ),
        pytest.param(
            "```JSON\n[1]\n```\n```py\nx\n```",
            [("json", "[1]\n", True), ("py", "x\n", True)],
            id="two blocks, tag lowered",
        ),
        pytest.param(
            '```json {"a": 1}```', [("json", ' {"a": 1}', True)], id="one-line block"
        ),
        pytest.param(
            "````\nx ``` y\n````", [("", "x ``` y\n", True)], id="longer marker"
        ),
        pytest.param(
            "```json\n{}\n   ```", [("json", "{}\n   ", True)], id="indented close"
        ),
        pytest.param(
            '```json\n{"a": 1}```', [("json", '{"a": 1}', True)], id="close mid-line"
        ),
        pytest.param("```json\n{", [("json", "{", False)], id="unclosed"),
        pytest.param('"```json" is a tag', [], id="after a quote"),
        pytest.param(
            "```json\n```json\n```json\n",
            [("json", "", True), ("json", "", False)],
            id="repeated openers",
        ),
    ],
)
def test_find_fences(text: str, expected: list[Block]) -> None:
    assert blocks(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Here:\n```json\n{}\n```\nBye", ("json", "{}\n"), id="one block"),
        pytest.param("```json\n{}\nno close", None, id="one run only"),
        pytest.param("```json\n{} x```", None, id="last run not at a line start"),
    ],
)
def test_outer_fence(text: str, expected: tuple[str, str] | None) -> None:
    fence = outer_fence(text)
    found = (
        None if fence is None else (fence.tag, text[fence.body_start : fence.body_end])
    )
    assert found == expected


def test_many_fences_are_found_in_order() -> None:
    text = "```json\n{}\n```\n" * 1000
    fences = find_fences(text)
    assert len(fences) == 1000
    assert all(a.end <= b.start for a, b in itertools.pairwise(fences))
