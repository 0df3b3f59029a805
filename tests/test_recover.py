"""Closing JSON the token limit cut off (``_recover``): what closes, what is refused.

A cut-off text closes to the prefix of its value (an unfinished string keeps
what arrived, an unfinished key, literal or number is dropped); a text with a
real syntax error before the cut is refused, never closed into another value.
The partial parser is called a bounded number of times on any text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pydantic_core
import pytest
from _counting import Tally, as_params, assert_linear_work, measure

import langchain_jsonrecover._core.decode.close as close_module
import langchain_jsonrecover._core.decode.cut_scan as cut_scan_module
from langchain_jsonrecover._core.decode.close import (
    Closed,
    close_truncated,
    ends_in_string,
    error_at_cut,
    opens_nested,
)
from langchain_jsonrecover._core.decode.tolerant import DecodeFailure

if TYPE_CHECKING:
    from collections.abc import Callable

CLOSED = ("truncation_closed",)

# Each row: the cut-off text, the closed value, the repairs.
CLOSES = [
    pytest.param(
        '{"items": [{"a": 1}, {"b"',
        {"items": [{"a": 1}, {}]},
        CLOSED,
        id="key_without_value_dropped",
    ),
    pytest.param('{"a": "hel', {"a": "hel"}, CLOSED, id="string_keeps_its_prefix"),
    pytest.param('{"a": "b", "c', {"a": "b"}, CLOSED, id="unfinished_key_dropped"),
    pytest.param('{"a": tr', {}, CLOSED, id="unfinished_literal_dropped"),
    pytest.param(
        '{"a": [1, {"b": nul', {"a": [1, {}]}, CLOSED, id="literal_dropped_deep"
    ),
    pytest.param('{"a": 1.', {}, CLOSED, id="number_without_digits_after_dot"),
    pytest.param("[1, 2, 3", [1, 2], CLOSED, id="number_at_the_cut_dropped"),
    pytest.param("[1, 2, 3 ", [1, 2, 3], CLOSED, id="number_that_space_follows_kept"),
    pytest.param('{"x": 2.5e1', {}, CLOSED, id="exponent_at_the_cut_dropped"),
    pytest.param('{"a":', {}, CLOSED, id="cut_after_the_colon"),
    pytest.param("[", [], CLOSED, id="only_an_opener"),
    pytest.param('{"a": "x"', {"a": "x"}, CLOSED, id="cut_after_a_whole_string"),
    pytest.param('{"a": "x\\u12', {"a": "x"}, CLOSED, id="cut_inside_a_unicode_escape"),
    pytest.param(
        '{"a": "\ud83d', {"a": ""}, CLOSED, id="half_a_surrogate_pair_dropped"
    ),
    pytest.param(
        '{"a": "line\nbreak',
        {"a": "line\nbreak"},
        ("control_characters_escaped", *CLOSED),
        id="raw_line_break_escaped",
    ),
]


@pytest.mark.parametrize(("text", "value", "repairs"), CLOSES)
def test_close_truncated(text: str, value: Any, repairs: tuple[str, ...]) -> None:
    closed = close_truncated(text, max_depth=200)
    assert isinstance(closed, Closed)
    assert (closed.value, closed.repairs) == (value, repairs)


# Each row: the cut-off text, the key whose value the cut removed (or None).
CUT_KEYS = [
    pytest.param('{"n": 3, "done": fa', "done", id="literal_cut"),
    pytest.param('{"done": true, "n": 1', "n", id="number_cut"),
    pytest.param('{"done": true, "n":', "n", id="after_the_colon"),
    pytest.param('{"done": true, "n"', "n", id="after_the_key"),
    pytest.param('{"done": true, "n', "n", id="inside_the_key"),
    pytest.param('{"a": {"b": [1], "c": 2', "a.c", id="innermost_object"),
    pytest.param('{"s": [{"id": 1}, {"id": 2, "ok"', "s[1].ok", id="path_in_a_list"),
    pytest.param('[{"a": 1}, {"b', "[1].b", id="root_array"),
    pytest.param('{"a": {"x": [1, 2]}, "b": {"c', "b.c", id="after_a_closed_one"),
    pytest.param('{"a\u00e9": 1', "a\u00e9", id="key_as_written"),
    pytest.param('{"done": true', None, id="whole_literal_kept"),
    pytest.param('{"a": {"b": 1, "k ', "a.k", id="key_then_space"),
    pytest.param('{"a": [{"true', "a[0].true", id="key_like_a_literal"),
    pytest.param('{"a": {"b": 7\n', None, id="number_then_a_line_break"),
    pytest.param('{"n": 1 ', None, id="number_that_space_follows"),
    pytest.param('{"a": "x', None, id="string_prefix_kept"),
    pytest.param('{"a": 1, ', None, id="after_a_comma"),
    pytest.param('{"a": [1, 2', None, id="array_item_dropped"),
    pytest.param('{"a": {', None, id="open_object"),
]


@pytest.mark.parametrize(("text", "key"), CUT_KEYS)
def test_the_key_whose_value_the_cut_removed(text: str, key: str | None) -> None:
    closed = close_truncated(text, max_depth=200)
    assert isinstance(closed, Closed)
    assert closed.cut_key == key


def _calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> dict[str, int]:
    """Count the calls of ``module.name``, which works as before."""
    calls = {"n": 0}
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        pytest.param('{"a": {"b": [1], "c": 2', 1, id="number_cut"),
        pytest.param('{"a": {"b": [1], "c": 2\n  ', 0, id="number_then_space"),
        pytest.param('{"a": {"b": [1], "c": null', 0, id="literal"),
        pytest.param('{"a": {"b": [1], "c": "x', 0, id="in_a_value"),
    ],
)
def test_the_path_of_a_cut_member_is_read_only_when_it_is_cut(
    monkeypatch: pytest.MonkeyPatch, text: str, paths: int
) -> None:
    # The containers around the innermost one are read for the path of a
    # member whose value the cut removed, and only then.
    reads = _calls(monkeypatch, cut_scan_module, "_outer")
    closed = close_truncated(text, max_depth=200)
    assert isinstance(closed, Closed)
    assert reads["n"] == paths
    assert (closed.cut_key is not None) == bool(paths)


@pytest.mark.parametrize("code", range(128))
def test_an_ascii_key_is_read_as_the_decoder_reads_it(code: int) -> None:
    # A key of ASCII with no backslash is taken as written, without a decode.
    raw = f"k{chr(code)}y"
    if code in {ord('"'), ord("\\")}:
        raw = r"k\"y" if code == ord('"') else r"k\\y"  # decoded
    try:
        decoded = pydantic_core.from_json(f'"{raw}"')
    except ValueError:
        decoded = raw  # a control character: kept as written
    closed = close_truncated(f'{{"{raw}": {{"v":', max_depth=200)
    assert isinstance(closed, Closed)
    assert closed.cut_key == f"{decoded}.v"


@pytest.mark.parametrize(
    ("text", "after_closer", "closes"),
    [
        pytest.param('{"a": {"b": 1}', False, False, id="refused"),
        pytest.param('{"a": {"b": 1}', True, True, id="token_limit_said"),
        pytest.param('{"a": [1, 2] ', False, False, id="space_after_closer"),
        pytest.param('{"a": "x}', False, True, id="closer_in_a_string"),
        pytest.param('{"a": 1', False, True, id="not_after_a_closer"),
    ],
)
def test_a_cut_right_after_a_closer(
    text: str, *, after_closer: bool, closes: bool
) -> None:
    closed = close_truncated(text, max_depth=200, after_closer=after_closer)
    assert isinstance(closed, Closed) is closes


# Each row: the text, the option set, the value it closes to.
OPTIONS = [
    pytest.param(
        '{"page": "Hi\\n\\n\\n',
        {"trim_runaway_newlines": True},
        Closed({"page": "Hi"}, ("runaway_newlines_trimmed", *CLOSED)),
        id="runaway_newlines_trimmed",
    ),
    pytest.param(
        '{"page": "Hi\\n\\n\\n',
        {},
        Closed({"page": "Hi\n\n\n"}, CLOSED),
        id="runaway_newlines_kept_without_the_option",
    ),
    pytest.param(
        '{"a": {"b": "Hi\\n\\n',
        {"trim_runaway_newlines": True},
        Closed({"a": {"b": "Hi\n\n"}}, CLOSED),
        id="runaway_below_depth_1_kept",
    ),
    pytest.param(
        "[1, 2, 4",
        {"final_only": True},
        Closed([1, 2], CLOSED),
        id="number_at_the_cut_may_grow_so_dropped",
    ),
    pytest.param(
        '{"a": 12',
        {"final_only": True},
        Closed({}, CLOSED),
        id="member_with_a_growing_number_dropped",
    ),
    pytest.param(
        '["a", "b',
        {"final_only": True},
        Closed(["a", "b"], CLOSED),
        id="final_only_keeps_a_string_prefix",
    ),
]


@pytest.mark.parametrize(("text", "options", "expected"), OPTIONS)
def test_close_truncated_options(
    text: str, options: dict[str, bool], expected: Closed
) -> None:
    closed = close_truncated(text, max_depth=200, **options)
    assert isinstance(closed, Closed)
    assert (closed.value, closed.repairs) == (expected.value, expected.repairs)


# Each row: the text, max_depth, the failure's kind, and a word of its message.
REFUSED = [
    pytest.param(
        '{"a" 1, "b": [', 200, "invalid_json", ":", id="syntax_error_before_the_cut"
    ),
    pytest.param(
        '{"a": "x\n}',
        200,
        "invalid_json",
        "missing closing quote",
        id="string_over_the_closing_line",
    ),
    pytest.param("", 200, "invalid_json", "", id="empty_text"),
    pytest.param(
        "[" * 300, 200, "too_deep", "max_depth (200)", id="deeper_than_max_depth"
    ),
    pytest.param(
        "[" * 300, 500, "too_deep", "200 levels", id="deeper_than_the_parser_reads"
    ),
    pytest.param("[[[[1", 2, "too_deep", "max_depth (2)", id="low_max_depth"),
]


@pytest.mark.parametrize(("text", "max_depth", "kind", "mentions"), REFUSED)
def test_close_truncated_refuses(
    text: str, max_depth: int, kind: str, mentions: str
) -> None:
    result = close_truncated(text, max_depth=max_depth)
    assert isinstance(result, DecodeFailure), result
    assert result.kind == kind
    assert mentions in result.message


# --- the helpers the extractor calls ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": "[x]", "b": 1', False, id="brackets_in_a_string"),
        pytest.param('{"a": [1', True, id="nested_array"),
        pytest.param('[{"a": 1', True, id="object_in_an_array"),
        pytest.param('{"a": 1', False, id="flat"),
        pytest.param('{"a": "unclosed [', False, id="cut_inside_a_string"),
    ],
)
def test_opens_nested(text: str, expected: bool) -> None:
    assert opens_nested(text, 0, len(text)) is expected


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        pytest.param("[1, 2, nul", 7, True, id="cut_literal"),
        pytest.param('{"a": 1.', 6, True, id="cut_number"),
        pytest.param('{"a" 1, "b": [', 5, False, id="structure_after_the_error"),
        pytest.param('{"a": x, "b"', 6, False, id="quote_after_the_error"),
    ],
)
def test_error_at_cut(text: str, pos: int, expected: bool) -> None:
    assert error_at_cut(text, pos) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": "x', True, id="open_string"),
        pytest.param('{"a": 1', False, id="after_a_number"),
        pytest.param('{"a": "x\\"', True, id="escaped_quote_keeps_it_open"),
        pytest.param('{"a": "x\\\\"', False, id="escaped_backslash_then_close"),
        pytest.param('{"a": "x", "b', True, id="open_key"),
        pytest.param("", False, id="empty"),
    ],
)
def test_ends_in_string(text: str, expected: bool) -> None:
    assert ends_in_string(text) is expected


# --- bounded work ------------------------------------------------------------------

N = 5_000
"""Repetitions at the smaller size; each case also runs at twice this."""

HOSTILE: list[tuple[str, Callable[[int], str]]] = [
    ("long_array_cut", lambda n: "[" + "1, " * n),
    ("unicode_escapes_cut", lambda n: '["' + "\\u00e9" * n + "\\u1"),
    ("raw_line_breaks", lambda n: '{"a": "' + "x\n" * n),
    ("quotes_and_closers", lambda n: '{"a": "' + '"}\n' * n),
    ("runaway_newlines", lambda n: '{"a": "x' + "\\n" * n),
    ("nested_objects_cut", lambda n: '{"a": ' * min(n, 150) + '"x' * n),
]


def count_close_work(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Tally, int]:
    """Patterns and characters handed to the partial parser; its calls apart."""
    real_from_json = pydantic_core.from_json
    parser_calls = 0

    def scan(tally: Tally) -> object:
        def from_json(data: Any, **kwargs: Any) -> Any:
            nonlocal parser_calls
            parser_calls += 1
            tally.charge(len(data))
            return real_from_json(data, **kwargs)

        with monkeypatch.context() as patch:
            patch.setattr(pydantic_core, "from_json", from_json)
            return close_truncated(text, max_depth=200, trim_runaway_newlines=True)

    tally, _ = measure(monkeypatch, scan)
    return tally, parser_calls


@pytest.mark.parametrize("build", as_params(HOSTILE))
def test_closing_takes_linear_work_and_few_parser_calls(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small_calls, large_calls = assert_linear_work(
        lambda text: count_close_work(monkeypatch, text), build, N
    )
    assert max(small_calls, large_calls) <= 4  # never one call per prefix


@pytest.mark.parametrize(
    ("text", "whole_reads"),
    [
        pytest.param('{\n  "a": {\n    "b": "Hauptstra', 0, id="in_a_value"),
        pytest.param('{\n  "a": [\n    "x", "y z', 0, id="in_an_item"),
        pytest.param('{"a": {"b": "c", "d": "Dear {name}', 1, id="closer_last"),
        pytest.param('{"a": {"b": 1}', 1, id="after_a_closer"),
    ],
)
def test_a_cut_in_a_string_reads_the_whole_text_only_before_a_closer(
    monkeypatch: pytest.MonkeyPatch, text: str, whole_reads: int
) -> None:
    # The bracket count over the whole text (``_end_state``) asks whether a
    # string swallowed the lines that close the JSON: only a text ending with
    # a closer can show that. Once the cut state is read (from the text's
    # end, ``read_tail``), that check takes its depth from it: no second read.
    reads = _calls(monkeypatch, close_module, "_end_state")
    close_truncated(text, max_depth=200, after_closer=False)
    assert reads["n"] == whole_reads
