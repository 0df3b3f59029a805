"""The span finder (``_spans``): which bracketed spans of a reply are candidates.

Rows name what each shows: prose brackets stay prose, JSON-like spans come out
whole (strings, comments and stray closers inside them do not end them), and
the scan's window, budget and cost keep to their contract. Work is counted,
never timed.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from _counting import CountingStr, Tally, as_params, assert_linear_work, measure

from langchain_jsonrecover._core.decode.skip import skip_comment, skip_string
from langchain_jsonrecover._core.spans import find as find_module
from langchain_jsonrecover._core.spans import flat as flat_module
from langchain_jsonrecover._core.spans import frames as frames_module
from langchain_jsonrecover._core.spans.after import (
    AFTER_ROOT,
    QUOTE_AFTER_ROOT,
    continues_structure,
    cut_key_after,
)
from langchain_jsonrecover._core.spans.find import find_spans
from langchain_jsonrecover._core.spans.flat import FLAT_BARE_OBJECT
from langchain_jsonrecover._core.spans.frames import json_extent, skip_nested, tokens_of
from langchain_jsonrecover._core.spans.kinds import JSON, MAYBE, PROSE, Span, classify

if TYPE_CHECKING:
    from collections.abc import Callable


def spans_of(text: str, lo: int = 0, hi: int | None = None) -> list[Span]:
    end = len(text) if hi is None else hi
    return find_spans(text, lo, end, max_depth=200, budget=[2 * len(text) + 1024])


class _Never:
    """A pattern that never matches: the walk takes every brace."""

    def match(self, *_: object) -> None:
        return None


# --- which spans -----------------------------------------------------------------

# Each row: the reply, then the text of each candidate span, in order.
CANDIDATES = [
    pytest.param("no brackets at all", [], id="no_brackets"),
    pytest.param(
        'see [1]. {"a": {"b": 2}}',
        ["[1]", '{"a": {"b": 2}}'],
        id="outermost_spans_only",
    ),
    pytest.param("use {name} here", [], id="placeholder_braces_are_prose"),
    pytest.param("the set {1, 2, 3}", [], id="set_braces_are_prose"),
    pytest.param("[citation] then [1]", ["[1]"], id="citation_brackets_are_prose"),
    pytest.param("{name}", [], id="bare_word_without_colon_is_prose"),
    pytest.param('{name: "Ada"}', ['{name: "Ada"}'], id="bare_key_with_colon"),
    pytest.param("{'a': 1}", ["{'a': 1}"], id="single_quoted_key"),
    pytest.param("[True, None]", ["[True, None]"], id="python_literals_in_an_array"),
    pytest.param('text {"a": "}"} more', ['{"a": "}"}'], id="closer_inside_a_string"),
    pytest.param(
        'don\'t {"a": 1}', ['{"a": 1}'], id="apostrophe_in_prose_hides_nothing"
    ),
    pytest.param(
        '{"a": 1 // }\n}', ['{"a": 1 // }\n}'], id="closer_inside_a_line_comment"
    ),
    pytest.param(
        '{"a": 1}, {"b": 2}',
        ['{"a": 1}', '{"b": 2}'],
        id="values_apart_by_a_comma_stay_apart",
    ),
    pytest.param(
        '{"a": 1}\n{"b": 2}', ['{"a": 1}', '{"b": 2}'], id="one_value_per_line"
    ),
    pytest.param("x [1] y [2] z", ["[1]", "[2]"], id="arrays_in_prose"),
    pytest.param("{}", ["{}"], id="empty_object"),
    pytest.param('{"a": 1', ['{"a": 1'], id="unclosed_runs_to_the_limit"),
]


@pytest.mark.parametrize(("reply", "expected"), CANDIDATES)
def test_candidates_are_the_json_like_spans(reply: str, expected: list[str]) -> None:
    assert [reply[s.start : s.end] for s in spans_of(reply)] == expected


# Each row: the reply, and the one span's (closed, is_object, empty, broken, nested).
FLAGS = [
    pytest.param('{"a": 1}', (True, True, False, False, False), id="closed_object"),
    pytest.param("[]", (True, False, True, False, False), id="empty_array"),
    pytest.param("{ }", (True, True, True, False, False), id="empty_with_space"),
    pytest.param("[1, 2", (False, False, False, False, False), id="unclosed_array"),
    pytest.param(
        '{"a": [1}]}', (True, True, False, True, False), id="stray_closer_inside"
    ),
    pytest.param(
        '{"a": 1}}, "b": 2}',
        (True, True, False, True, False),
        id="root_closed_too_early_is_one_broken_span",
    ),
    pytest.param(
        '{"a": 1}]', (True, True, False, True, False), id="unmatched_closer_after"
    ),
    pytest.param(
        '"a": {"b": 1}',
        (True, True, False, False, True),
        id="value_after_a_key_is_nested",
    ),
]


@pytest.mark.parametrize(("reply", "flags"), FLAGS)
def test_span_flags(reply: str, flags: tuple[bool, ...]) -> None:
    [span] = spans_of(reply)
    assert (span.closed, span.is_object, span.empty, span.broken, span.nested) == flags


def test_clean_spans_come_decoded_and_broken_ones_do_not() -> None:
    reply = 'ok {"a": [1, 2]} and {"b": 1,}'
    clean, broken = spans_of(reply)
    assert clean.decoded is not None
    assert clean.decoded.value == {"a": [1, 2]}
    assert broken.decoded is None
    assert reply[broken.start : broken.end] == '{"b": 1,}'


def test_scan_keeps_to_its_window() -> None:
    reply = "ab [1] cd [2] ef"
    assert [(s.start, s.end) for s in spans_of(reply, 3, 9)] == [(3, 6)]


def test_span_cut_by_the_window_is_unclosed() -> None:
    reply = '{"a": 1} tail'
    [span] = spans_of(reply, 0, 5)
    assert (span.start, span.end, span.closed) == (0, 5, False)


def test_spent_budget_finds_the_same_spans_undecoded() -> None:
    reply = 'x [1] y {"a": 2}'
    with_budget = spans_of(reply)
    spent = find_spans(reply, 0, len(reply), max_depth=200, budget=[0])
    assert [(s.start, s.end) for s in spent] == [(s.start, s.end) for s in with_budget]
    assert all(s.decoded is None for s in spent)


def test_budget_is_spent_by_what_the_scan_decodes() -> None:
    reply = 'x [1] y {"a": 2}'
    budget = [1000]
    find_spans(reply, 0, len(reply), max_depth=200, budget=budget)
    assert 0 <= budget[0] < 1000


# --- classify, json_extent, continues_structure ---------------------------------

CLASSIFIED = [
    pytest.param('{"a"', JSON, False, id="quoted_key"),
    pytest.param("{}", JSON, True, id="empty_object"),
    pytest.param("[ ]", JSON, True, id="empty_array_with_space"),
    pytest.param("{name", MAYBE, False, id="bare_key"),
    pytest.param("{'a'", MAYBE, False, id="single_quoted_key"),
    pytest.param('{name": 1}', JSON, False, id="key_missing_its_opening_quote"),
    pytest.param("{1", PROSE, False, id="number_in_braces"),
    pytest.param("[1", JSON, False, id="number_in_brackets"),
    pytest.param("[-1", JSON, False, id="negative_number"),
    pytest.param("[.5", JSON, False, id="bare_decimal"),
    pytest.param("[True", JSON, False, id="python_true"),
    pytest.param("[None", JSON, False, id="python_none"),
    pytest.param("[tr", JSON, False, id="literal_cut_by_the_limit"),
    pytest.param("[x", PROSE, False, id="word_in_brackets"),
    pytest.param("[citation]", PROSE, False, id="citation"),
    pytest.param("{//", JSON, False, id="comment_first"),
    pytest.param("[,", JSON, False, id="comma_first"),
    pytest.param('{\\"a', JSON, False, id="escaped_json"),
    pytest.param('[}, {"a": 1}]', JSON, False, id="first_item_lost_its_opener"),
    pytest.param("[f}alse, 1]", JSON, False, id="closer_in_a_literal"),
    pytest.param("[t]rue, 1]", JSON, False, id="square_closer_in_a_literal"),
    pytest.param("[tree]", PROSE, False, id="a_word_like_a_literal"),
]


@pytest.mark.parametrize(("text", "mode", "empty"), CLASSIFIED)
def test_classify_by_what_follows_the_bracket(
    text: str, mode: int, empty: bool
) -> None:
    assert classify(text, 0, len(text)) == (mode, empty)


EXTENTS = [
    pytest.param('{"a": "```"} and more', 0, 12, id="backticks_in_a_string"),
    pytest.param("[1, [2]] x", 0, 8, id="nested_array"),
    pytest.param('{"a": 1 // }\n}', 0, 14, id="closer_in_a_comment"),
    pytest.param('{"a": "x', 0, 8, id="unclosed_string_runs_to_the_end"),
    pytest.param('[{"a": 1}', 0, 9, id="unclosed_runs_to_the_end"),
    pytest.param('x {"a": 1}', 2, 10, id="starts_mid_text"),
    pytest.param("{name}", 0, None, id="prose_braces_have_none"),
    pytest.param("[citation]", 0, None, id="citation_has_none"),
]


@pytest.mark.parametrize(("text", "start", "end"), EXTENTS)
def test_json_extent(text: str, start: int, end: int | None) -> None:
    assert json_extent(text, start) == end


CONTINUES = [
    pytest.param('{"a": 1}, "b": 2}', 8, True, id="key_after_a_comma"),
    pytest.param('{"a": 1}}', 8, True, id="closer"),
    pytest.param("[1], ]", 3, True, id="closer_after_a_comma"),
    pytest.param('{"a": 1}, {"b": 2}', 8, False, id="next_value_of_a_run"),
    pytest.param('{"a": 1} and prose', 8, False, id="prose"),
    pytest.param('{"a": 1}', 8, False, id="end_of_text"),
    pytest.param('{"a": 1}0, "b": 2}', 8, True, id="digits_glued_then_a_key"),
    pytest.param('{"a": 1}.5, {"b": 2}', 8, True, id="decimals_glued_then_a_value"),
    pytest.param("[t]rue, 1]", 3, True, id="a_literal_glued_then_items"),
    pytest.param('{"a": 1}2 more items', 8, False, id="digits_glued_then_prose"),
    pytest.param('{"a": 1} 2 more items', 8, False, id="a_number_then_prose"),
    pytest.param('{"a": 1}, 2, "b": 3}', 8, True, id="items_then_a_key"),
    pytest.param('[1, 2], "c", [3]]', 6, True, id="items_then_a_container"),
    pytest.param("[1, 2], and then [3]", 6, False, id="prose_then_a_container"),
]


@pytest.mark.parametrize(("text", "end", "expected"), CONTINUES)
def test_continues_structure(text: str, end: int, expected: bool) -> None:
    assert continues_structure(text, end, len(text)) is expected


# Tails after a flat object of bare keys: the flat match (``flat.STANDS_ALONE``)
# takes the object only where the walk's looks after a root find nothing.
TAILS = [
    " and more.", ".", ". Done", '.5, "b": 1}', '0, "b": 1}', "rue, 1]", "e, 1]",
    "s are nice", ', {"b": 1}', ", 2, [3]]", ", 2]", " 2 more", ' "k": 1}',
    ', "k', " then", " true", " nothing", "!", "\n\nDone.", "]", "-1]", "le, x",
]  # fmt: skip


@pytest.mark.parametrize("tail", TAILS)
def test_a_flat_object_stands_alone_only_where_nothing_goes_on(
    tail: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "{name: Ada}" + tail
    end = len("{name: Ada}")
    goes_on = (
        AFTER_ROOT.match(text, end) is not None
        or QUOTE_AFTER_ROOT.match(text, end) is not None
        or cut_key_after(text, end, len(text))
    )
    assert not (FLAT_BARE_OBJECT.match(text) is not None and goes_on), tail
    fast = [span._replace(bare=-1) for span in spans_of(text)]
    monkeypatch.setattr(flat_module, "FLAT_BARE_OBJECT", _Never())
    assert fast == spans_of(text)  # the walk's (which notes no bare key)


# --- linear work -----------------------------------------------------------------

N = 1_500
"""Repetitions at the smaller size; each case also runs at twice this."""

HOSTILE: list[tuple[str, Callable[[int], str]]] = [
    ("unclosed_braces", lambda n: "{" * n),
    ("unclosed_brackets", lambda n: "[" * n),
    ("unclosed_members", lambda n: '{"a": ' * n),
    ("many_small_arrays", lambda n: "[1] " * n),
    ("placeholder_braces", lambda n: "{x} " * n),
    ("quotes_in_an_unclosed_array", lambda n: "[" + '"' * n),
    ("single_quotes_in_objects", lambda n: "{'" * n),
    ("roots_apart_by_commas", lambda n: '{"a": 1}, ' * n),
    ("stray_closers", lambda n: "[1}" * n),
    ("bare_keys_without_colons", lambda n: "{name " * n),
    ("comment_openers", lambda n: "[// " * n),
    ("roots_closed_too_early", lambda n: '{"a": 1}}' * n),
    ("citations", lambda n: "[citation] " * n),
]


def count_span_work(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> tuple[Tally, list[Span]]:
    """Patterns of the package, and characters handed to orjson, counted."""
    real_loads = orjson.loads

    def scan(tally: Tally) -> list[Span]:
        def loads(data: Any) -> Any:
            tally.charge(len(data))
            return real_loads(data)

        with monkeypatch.context() as patch:
            patch.setattr(orjson, "loads", loads)
            return spans_of(text)

    return measure(monkeypatch, scan)


@pytest.mark.parametrize("build", as_params(HOSTILE))
def test_span_finding_takes_linear_work(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, large = assert_linear_work(
        lambda text: count_span_work(monkeypatch, text), build, N
    )
    assert len(large) <= 2 * len(small) + 1


def test_100_kb_of_openers_is_no_recursion() -> None:
    [span] = spans_of("[" * 100_000)
    assert (span.start, span.end, span.closed) == (0, 100_000, False)


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
def test_json_extent_of_spans(text: str, expected: int | None) -> None:
    assert json_extent(text, 0) == expected


# --- the skip of what a failed root's walk reads blindly ------------------------


def _walk_only(
    text: str, pos: int, hi: int, depth: int, ends: tuple[int, ...] = ()
) -> tuple[int, int]:
    """``skip_nested`` that skips nothing: the token walk reads everything."""
    del text, hi, ends
    return pos, depth


def _shapes(spans: list[Span]) -> list[tuple[Any, ...]]:
    return [
        (
            s.start,
            s.end,
            s.closed,
            s.is_object,
            s.empty,
            s.broken,
            s.nested,
            None if s.decoded is None else (repr(s.decoded.value), s.decoded.end),
            s.cut,
        )
        for s in spans
    ]


_WORDS = ("a", "é€", "it's", "{x}", "[7]", 'q"uote', "back\\slash", "//c", "#h", "\n")
_NOISE = (*"\"'[]{},:/#\\ \nax1", "//", "/*", '\\"', "\\\\", "'a'", "}}", "]]", "{{")


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([1, -2.5, True, None, rng.choice(_WORDS)])
    if roll < 0.65:
        return {
            f"{rng.choice(_WORDS)}{k}": _value(rng, depth + 1)
            for k in range(rng.randrange(6))
        }
    return [_value(rng, depth + 1) for _ in range(rng.randrange(6))]


def _slipped_reply(rng: random.Random) -> str:
    """A seeded document, pretty or compact, with up to three slips (or a cut)."""
    document = {"records": [_value(rng, 1) for _ in range(rng.randrange(1, 12))]}
    option = orjson.OPT_INDENT_2 if rng.random() < 0.5 else 0
    text = orjson.dumps(document, option=option).decode()
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.4:
            text = text[:at] + text[at + 1 :]
        elif roll < 0.8:
            text = text[:at] + rng.choice(_NOISE) + text[at:]
        else:
            text = text[:at]
    if rng.random() < 0.3:
        text = "Here {x}: " + text + rng.choice(["", " and {more} [1]", '}, "k": 1}'])
    return text


def test_skipping_a_failed_root_finds_the_spans_the_walk_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seeded broken replies (strings with brackets, quotes, escapes,
    # apostrophes and comment openers; slips of every kind): the spans are
    # the same with the skip as with the token walk alone.
    rng = random.Random(24)  # noqa: S311 - seeded test data, not secrets
    replies = [_slipped_reply(rng) for _ in range(400)]
    skipped = 0

    def counted(
        text: str, pos: int, hi: int, depth: int, ends: tuple[int, ...] = ()
    ) -> tuple[int, int]:
        nonlocal skipped
        found = skip_nested(text, pos, hi, depth, ends)
        skipped += found[0] > pos
        return found

    with monkeypatch.context() as patch:
        patch.setattr(find_module, "skip_nested", counted)
        fast = [_shapes(spans_of(text)) for text in replies]
    with monkeypatch.context() as patch:
        patch.setattr(find_module, "skip_nested", _walk_only)
        walked = [_shapes(spans_of(text)) for text in replies]
    assert fast == walked
    assert skipped >= 100  # the skip ran on many of them, not on none


def _with_slip(records: int) -> str:
    """Pretty-printed records with a trailing comma in the middle one."""
    record = {"id": 7, "name": "Zoë", "note": 'says "hi" {x} [1]', "tags": ["a", "b"]}
    text = orjson.dumps({"records": [record] * records}, option=orjson.OPT_INDENT_2)
    middle = text.decode().index('"b"', len(text) // 2) + 3
    return text.decode()[:middle] + "," + text.decode()[middle:]


def test_the_walk_reads_only_around_the_fault_of_a_failed_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The token walk reads a bounded stretch around the slip and the root's
    # end, whatever the document's size: its token count does not grow.
    def tokens(text: str) -> int:
        count = 0
        real = tokens_of

        def counted(frame: Any) -> Any:
            nonlocal count
            count += 1
            return real(frame)

        with monkeypatch.context() as patch:
            patch.setattr(find_module, "tokens_of", counted)
            [span] = spans_of(text)
        assert (span.start, span.end, span.closed) == (0, len(text), True)
        return count

    small, large = tokens(_with_slip(100)), tokens(_with_slip(400))
    assert large <= small + 40, (small, large)
    with monkeypatch.context() as patch:
        patch.setattr(find_module, "skip_nested", _walk_only)
        assert tokens(_with_slip(100)) > 10 * small  # what the skip saves


def test_a_root_with_one_slip_is_skipped_in_one_stretch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The skip guesses the root's end (its last closer): one stretch up to
    # it, however long the root, not a search of twenty (nor two stretches,
    # to the slip and on). Each stretch is one skeleton taken in C, so the
    # work is one pass over the text.
    def stretches(text: str) -> tuple[int, int]:
        sizes: list[int] = []
        real = frames_module._stretch

        def counted(chunk: str) -> tuple[int, bytes]:
            sizes.append(len(chunk))
            return real(chunk)

        with monkeypatch.context() as patch:
            patch.setattr(frames_module, "_stretch", counted)
            [span] = spans_of(text)
        assert (span.start, span.end, span.closed) == (0, len(text), True)
        return len(sizes), sum(sizes)

    small, large = _with_slip(100), _with_slip(800)
    (calls_small, chars_small), (calls_large, chars_large) = (
        stretches(small),
        stretches(large),
    )
    assert calls_small == calls_large == 1, (calls_small, calls_large)
    assert chars_small <= len(small)
    assert chars_large <= len(large)


FAILED_ROOTS: list[tuple[str, Callable[[int], str]]] = [
    ("failed_roots", lambda n: '{"a": [1, {"b": "]"}],} ' * n),
    ("one_long_failed_root", lambda n: '{"a": [' + '[1, "]"], ' * n + "1,]}"),
    ("long_strings_in_a_failed_root", lambda n: '{"a": "' + "x" * n + '", }' * 3),
    ("backslashes_in_a_failed_root", lambda n: '{"a": "' + "\\" * n + '", }'),
    ("openers_then_apostrophes", lambda n: '{"a": [1,] ' + "{ 'x " * n),
]


@pytest.mark.parametrize("build", as_params(FAILED_ROOTS))
def test_skipping_failed_roots_takes_linear_work(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    # The text itself is counted too: every stretch the skip slices from it.
    def count(text: str) -> tuple[Tally, list[Span]]:
        def scan(tally: Tally) -> list[Span]:
            return spans_of(CountingStr(text, tally.charge))

        return measure(monkeypatch, scan)

    assert_linear_work(count, build, N)


@pytest.mark.parametrize(
    "text", ['{"a": 1}', "[1]", '{"a": 1}, ', '{"a": 1}"', '{"a": 1}}', "x, {"]
)
def test_no_look_after_a_root_reads_an_empty_rest(text: str) -> None:
    """A root that closes at the scan's limit is not looked past (``_after_root``):
    each look needs a character, whatever the text beyond the limit holds."""
    for limit in range(len(text) + 1):
        assert QUOTE_AFTER_ROOT.match(text, limit, limit) is None
        assert AFTER_ROOT.match(text, limit, limit) is None
        assert not cut_key_after(text, limit, limit)
