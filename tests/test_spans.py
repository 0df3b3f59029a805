"""The span finder and the string/comment skipper it shares with other scans."""

from __future__ import annotations

import pytest

from langchain_jsonrecover._skip import skip_comment, skip_string
from langchain_jsonrecover._spans import find_spans, json_extent

SpanShape = tuple[int, int, bool, bool]  # start, end, closed, broken


def spans(text: str) -> list[SpanShape]:
    found = find_spans(text, 0, len(text), max_depth=200, budget=[10 * len(text)])
    return [(s.start, s.end, s.closed, s.broken) for s in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("prose only", [], id="no bracket"),
        pytest.param('x {"a": 1} y', [(2, 10, True, False)], id="one object"),
        pytest.param(
            "see [1]. and [2]",
            [(4, 7, True, False), (13, 16, True, False)],
            id="two arrays",
        ),
        pytest.param("{name} and {x}", [], id="prose braces"),
        pytest.param('{"a": "}"}', [(0, 10, True, False)], id="closer in a string"),
        pytest.param("{'a': '}'}", [(0, 10, True, False)], id="single-quoted dict"),
        pytest.param('{"a": 1, /* } */ "b": 2}', [(0, 24, True, False)], id="comment"),
        pytest.param(
            '{"a": [1}', [(0, 9, False, False)], id="wrong closer inside JSON"
        ),
        pytest.param(
            '{"a": 1}}, "b": 2}', [(0, 18, True, True)], id="root closed early"
        ),
        pytest.param('{"a": [1, 2', [(0, 11, False, False)], id="cut off"),
        pytest.param("[[[[[[1]]]]]]", [(0, 13, True, False)], id="run of openers"),
    ],
)
def test_find_spans(text: str, expected: list[SpanShape]) -> None:
    assert spans(text) == expected


@pytest.mark.parametrize(
    ("text", "start", "hi", "expected"),
    [
        pytest.param('"ab" x', 0, None, 4, id="double quotes"),
        pytest.param("'a\\'b' x", 0, None, 6, id="escaped single quote"),
        pytest.param('x "a\\\\" y', 2, None, 7, id="escaped backslash"),
        pytest.param('"a\nb"', 0, None, 5, id="raw newline inside"),
        pytest.param('"abc"', 0, 3, None, id="closing quote past hi"),
        pytest.param('"abc', 0, None, None, id="unclosed"),
    ],
)
def test_skip_string(
    text: str, start: int, hi: int | None, expected: int | None
) -> None:
    assert skip_string(text, start, hi) == expected


@pytest.mark.parametrize(
    ("text", "opener", "expected"),
    [
        pytest.param("// a\nb", "//", 5, id="line comment"),
        pytest.param("# a\nb", "#", 4, id="hash comment"),
        pytest.param("/* a */b", "/*", 7, id="block comment"),
        pytest.param("/* a", "/*", None, id="unclosed block"),
    ],
)
def test_skip_comment(text: str, opener: str, expected: int | None) -> None:
    assert skip_comment(text, 0, opener) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": "```"} and more', 12, id="backticks in a string"),
        pytest.param('{"a": [1, // ]\n 2]} x', 19, id="comment hides a closer"),
        pytest.param('{"a": "x', 8, id="cut in a string"),
        pytest.param("{x} y", None, id="not plain JSON"),
    ],
)
def test_json_extent(text: str, expected: int | None) -> None:
    assert json_extent(text, 0) == expected
