"""The fence finder (``_fences``): which blocks a reply holds, and at what cost.

Each row is a reply and the blocks ``find_fences`` must list: tag, body,
whether it closed. ``outer_fence`` (the one-block guess) must agree with
``find_fences`` where it makes a guess. Work is counted, never timed.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest
from _counting import CountingStr, Tally, as_params, assert_linear_work, measure

from langchain_jsonrecover._core.reply.fences import Fence, find_fences, outer_fence

if TYPE_CHECKING:
    from collections.abc import Callable

# Each row: the reply, then its blocks as (tag, body, closed).
FOUND = [
    pytest.param("no fences here", [], id="no_backticks_no_fence"),
    pytest.param(
        'Sure:\n```json\n{"a": 1}\n```\nBye',
        [("json", '{"a": 1}\n', True)],
        id="json_fence_in_prose",
    ),
    pytest.param("```JSON\n{}\n```", [("json", "{}\n", True)], id="tag_lower_cased"),
    pytest.param("```\n[1]\n```", [("", "[1]\n", True)], id="untagged_fence"),
    pytest.param(
        "```python\nx = 1\n```", [("python", "x = 1\n", True)], id="code_fence"
    ),
    pytest.param(
        '```json {"a": 1}```',
        [("json", ' {"a": 1}', True)],
        id="one_line_block_body_on_the_opening_line",
    ),
    pytest.param(
        '```json\n{"a": 1}',
        [("json", '{"a": 1}', False)],
        id="unclosed_runs_to_the_end",
    ),
    pytest.param(
        "````json\n```\ninner\n```\n````",
        [("json", "```\ninner\n```\n", True)],
        id="shorter_runs_inside_a_longer_fence_do_not_close_it",
    ),
    pytest.param(
        '```json\n{"a": 1}```',
        [("json", '{"a": 1}', True)],
        id="closing_run_mid_line_when_none_starts_a_line",
    ),
    pytest.param(
        '```json\n{"a": "x ``` y"}\n```',
        [("json", '{"a": "x ``` y"}\n', True)],
        id="run_mid_line_does_not_close_when_one_starts_a_line_later",
    ),
    pytest.param(
        '```json\n{"a": 1}\n   ```',
        [("json", '{"a": 1}\n   ', True)],
        id="indented_closing_fence",
    ),
    pytest.param(
        '```json\r\n{"a": 1}\r\n```',
        [("json", '{"a": 1}\r\n', True)],
        id="crlf_line_ends",
    ),
    pytest.param('{"s": "```json"}', [], id="backticks_after_a_quote_are_text"),
    pytest.param("'```json x'", [], id="backticks_after_a_single_quote_are_text"),
    pytest.param("``two backticks``", [], id="two_backticks_are_no_fence"),
    pytest.param(
        "```py\nx\n```\n```json\n{}\n```",
        [("py", "x\n", True), ("json", "{}\n", True)],
        id="two_blocks_in_order",
    ),
    pytest.param("```json\n```", [("json", "", True)], id="empty_body"),
    pytest.param("```json", [("json", "", False)], id="only_an_opening_line"),
    pytest.param(
        "```\n```\n```",
        [("", "", True), ("", "", False)],
        id="odd_run_opens_an_unclosed_block",
    ),
    # A one-line block whose first run is inside a string of its array or
    # object: the run after that value closes it (the only run that can).
    pytest.param(
        '```json ["```"]```',
        [("json", ' ["```"]', True)],
        id="run_in_a_one_line_string",
    ),
    pytest.param(
        '```json {"k": "a```"} ```',
        [("json", ' {"k": "a```"} ', True)],
        id="value_ending_in_a_string_with_a_run",
    ),
    pytest.param(
        '```json ["```"]```` ok',
        [("json", ' ["```"]', True)],
        id="closed_by_a_longer_run",
    ),
    pytest.param(
        '```json ["```"]``` and ```json [2]```',
        [("json", ' ["```"]', True), ("json", " [2]", True)],
        id="two_one_line_blocks_on_a_line",
    ),
    pytest.param(
        '```json [1]``` and ```json ["```"]```',
        [("json", " [1]", True), ("json", ' ["```"]', True)],
        id="the_second_block_holds_the_run",
    ),
    pytest.param(
        '```json ["```"]``` see ```x``` then',
        [("json", ' ["```"]', True), ("x", "", True)],
        id="prose_with_runs_after",
    ),
    # Kept at the first run: no array or object runs over it to a run.
    pytest.param(
        '```json "a```" b```',
        [("json", ' "a', True), ("", "", False)],
        id="a_bare_string_is_not_read_on",
    ),
    pytest.param(
        '```json ["a```, 1``` b',
        [("json", ' ["a', True), ("", " b", False)],
        id="no_value_closes_at_a_later_run",
    ),
    pytest.param(
        '```json ["```",\n"b"]```',
        [("json", ' ["', True), ("", "", False)],
        id="a_value_over_lines_is_not_read_on",
    ),
]


@pytest.mark.parametrize(("reply", "expected"), FOUND)
def test_find_fences_lists_each_block(
    reply: str, expected: list[tuple[str, str, bool]]
) -> None:
    found = [
        (f.tag, reply[f.body_start : f.body_end], f.closed) for f in find_fences(reply)
    ]
    assert found == expected


@pytest.mark.parametrize(
    ("tag", "is_json"),
    [
        pytest.param("json", True, id="json"),
        pytest.param("jsonc", True, id="jsonc"),
        pytest.param("json5", True, id="json5"),
        pytest.param("", False, id="untagged"),
        pytest.param("javascript", False, id="javascript"),
        pytest.param("jsonl", False, id="jsonl_is_lines_not_one_value"),
    ],
)
def test_tag_names_json(tag: str, is_json: bool) -> None:
    fence = find_fences(f"```{tag}\n{{}}\n```")[0]
    assert fence.tag == tag
    assert fence.is_json is is_json


def test_offsets_cover_the_backticks_and_the_body() -> None:
    reply = 'Sure:\n```json\n{"a": 1}\n```\nBye'
    assert find_fences(reply) == [Fence(6, 26, 14, 23, "json", closed=True)]
    assert reply[6:26] == '```json\n{"a": 1}\n```'


@pytest.mark.parametrize(
    "reply", [pytest.param(p.values[0], id=p.id) for p in FOUND if p.values[1]]
)
def test_fences_are_ordered_and_do_not_overlap(reply: str) -> None:
    previous_end = 0
    for fence in find_fences(reply):
        assert previous_end <= fence.start < fence.body_start
        assert fence.body_start <= fence.body_end <= fence.end <= len(reply)
        previous_end = fence.end


# --- the one-block guess ---------------------------------------------------------

GUESSES = [
    pytest.param('Here:\n```json\n{"a": 1}\n```\nBye', id="one_block"),
    pytest.param("```\n[1]\n```", id="untagged_block"),
    pytest.param('```json\n{"a": 1}\n   ```', id="indented_closing_fence"),
    pytest.param("````json\n```\ninner\n```\n````", id="longer_outer_run"),
]


@pytest.mark.parametrize("reply", GUESSES)
def test_outer_fence_agrees_with_find_fences_on_one_block(reply: str) -> None:
    assert [outer_fence(reply)] == find_fences(reply)


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("no fences", id="no_backticks"),
        pytest.param('```json\n{"a": 1}', id="only_one_run"),
        pytest.param('```json\n{"a": 1}```', id="last_run_not_at_a_line_start"),
        pytest.param('```json {"a": 1}```', id="one_line_block"),
        pytest.param('"```json\n{}\n```', id="first_run_after_a_quote"),
    ],
)
def test_outer_fence_makes_no_guess(reply: str) -> None:
    assert outer_fence(reply) is None


def test_outer_fence_spans_from_the_first_run_to_the_last() -> None:
    reply = "```py\nx\n```\n```json\n{}\n```"
    guess = outer_fence(reply)
    assert guess is not None
    # A guess only: the body holds both blocks, so it will not decode as JSON.
    assert reply[guess.body_start : guess.body_end] == "x\n```\n```json\n{}\n"


# --- linear work -----------------------------------------------------------------

N = 3_000
"""Repetitions at the smaller size; each case also runs at twice this."""


def growing_runs(n: int) -> str:
    """Backtick runs of lengths 3, 4, 5 … each opening a line, ``n`` chars."""
    parts: list[str] = []
    total, run = 0, 3
    while total < n:
        parts.append("\n" + "`" * run + "x")
        total += run + 2
        run += 1
    return "".join(parts)


HOSTILE: list[tuple[str, Callable[[int], str]]] = [
    ("repeated_json_openers", lambda n: "```json\n" * n),
    ("runs_never_at_a_line_start", lambda n: "x```" * n),
    ("openers_then_mid_line_closers", lambda n: "```json\n{}" + "x```" * n),
    ("long_runs_closed_by_short_ones", lambda n: "`````\n```\n" * n),
    ("quoted_backticks", lambda n: '"```' * n),
    ("growing_run_lengths", growing_runs),
    ("many_closed_blocks", lambda n: "```json\n{}\n```\n" * n),
    ("one_line_blocks_with_runs_in_strings", lambda n: '```json ["```"]``` ' * n),
    ("one_line_blocks_cut_in_strings", lambda n: '```json ["' + "```json [1" * n),
    ("one_long_string_of_runs", lambda n: '```json ["' + "```x" * n),
]


def count_fence_work(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> tuple[Tally, list[Fence]]:
    return measure(
        monkeypatch, lambda tally: find_fences(CountingStr(text, tally.charge))
    )


@pytest.mark.parametrize("build", as_params(HOSTILE))
def test_fence_finding_takes_linear_work(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, large = assert_linear_work(
        lambda text: count_fence_work(monkeypatch, text), build, N
    )
    assert len(large) <= 2 * len(small) + 1


def test_a_megabyte_of_backticks_is_one_unclosed_block() -> None:
    fences = find_fences("`" * 1_000_000)
    assert [(f.start, f.closed) for f in fences] == [(0, False)]


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
