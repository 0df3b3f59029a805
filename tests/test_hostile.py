"""Hostile replies are crossed at C speed, and deep nesting is named in our words.

``test_complexity`` shows the work is linear; here the number of Python-level
steps (pattern calls, decoder calls, searches) is counted instead: a run of
brackets is skipped by one pattern or ``str`` call, not one step per bracket,
so doubling the run adds almost no steps. No clock is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from test_complexity import counting

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
    extract_json,
)

if TYPE_CHECKING:
    from collections.abc import Callable

N = 20_000
"""The smaller size; each test also runs at twice this."""

STEPS_PER_CHAR = 1 / 200
"""Python steps allowed per added character: a run is crossed in C."""

RUNS: list[Any] = [
    pytest.param(lambda n: "{" * n, id="run_of_braces"),
    pytest.param(lambda n: "[" * n, id="run_of_brackets"),
    pytest.param(lambda n: "x " + "[{" * (n // 2), id="prose_then_bracket_brace_run"),
    pytest.param(lambda n: "{x} " * (n // 4), id="many_braced_words"),
    pytest.param(lambda n: "See {" + "{" * n + "} and [1]", id="brace_run_in_prose"),
    pytest.param(
        lambda n: '{"a": [' + "[" * n + "]" * n + "]}", id="deep_run_closed_in_json"
    ),
    pytest.param(
        lambda n: "[{" + "{" * n + "]", id="wrong_closer_drops_a_run_of_braces"
    ),
]

PARSERS: list[Any] = [
    pytest.param(lambda text: extract_json(text).value, id="extract_json"),
    pytest.param(JsonFenceOutputParser().parse, id="fence"),
    pytest.param(JsonFenceOutputParser(repair=True).parse, id="fence_repair"),
    pytest.param(TruncationRecoveringOutputParser().parse, id="truncation"),
]


def _steps(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[int, object]:
    with counting(monkeypatch) as work:
        try:
            outcome: object = extract_json(text).value
        except JsonRecoveryError as exc:
            outcome = type(exc)
    return work.calls, outcome


@pytest.mark.parametrize("build", RUNS)
def test_a_run_of_brackets_costs_a_bounded_number_of_steps(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, small_outcome = _steps(monkeypatch, build(N))
    large, large_outcome = _steps(monkeypatch, build(2 * N))
    assert small_outcome == large_outcome
    assert large - small <= N * STEPS_PER_CHAR, (small, large)


# The same outcome as the bracket-by-bracket scan gave (values from main).
SAME_ANSWERS: list[Any] = [
    pytest.param("{{{{{{" + '{"a": 1}', {"a": 1}, id="brace_run_then_object"),
    pytest.param("[[[[[[1]]]]]]", [[[[[[1]]]]]], id="closed_run_of_arrays"),
    pytest.param(
        'x {{{{ y }}}} {"b": [1]}', {"b": [1]}, id="closed_brace_run_in_prose"
    ),
    pytest.param('{x} {y} {"c": 2} {z}', {"c": 2}, id="braced_words_around_object"),
    pytest.param('{x}, {y}: {"d": 3}', {"d": 3}, id="braced_words_with_punctuation"),
    pytest.param('[[[[{"e": 4}]]]]', [[[[{"e": 4}]]]], id="run_then_object"),
    pytest.param("{{{{ [1, 2] }}}}", [1, 2], id="array_inside_brace_run"),
]


@pytest.mark.parametrize(("text", "expected"), SAME_ANSWERS)
def test_runs_of_brackets_give_the_answer_they_gave(text: str, expected: Any) -> None:
    assert extract_json(text).value == expected


DEEP: list[Any] = [
    pytest.param("[" * 250, id="250_unclosed_arrays"),
    pytest.param("[" * 1030, id="1030_unclosed_arrays"),
    pytest.param("[" * 5000, id="5000_unclosed_arrays"),
    pytest.param("[" * 5000 + "]" * 5000, id="5000_levels_closed"),
    pytest.param("[" * 250 + "]" * 250, id="250_levels_closed"),
    pytest.param("Here: " + '{"a": ' * 300 + "1" + "}" * 300, id="300_levels_in_prose"),
]


@pytest.mark.parametrize("parse", PARSERS)
@pytest.mark.parametrize("text", DEEP)
def test_deep_nesting_names_max_depth_not_the_decoder(
    parse: Callable[[str], Any], text: str
) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        parse(text)
    error = caught.value
    assert "nested deeper than max_depth (200)" in str(error)
    assert "nested deeper than max_depth (200)" in str(error.observation)
    for internal in ("1024", "allocate", "recursion", "depth limit"):
        assert internal not in str(error)
        assert internal not in str(error.observation)
