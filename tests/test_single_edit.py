"""The single-edit search: one slip, one reading, or an error."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from _counting import GROWTH

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.repair import single_edit, single_edit_pieces
from langchain_jsonrecover._core.repair.single_edit import Ambiguous, fix_single_edit
from langchain_jsonrecover._core.repair.syntax import Repaired
from langchain_jsonrecover.errors import InvalidJsonError

if TYPE_CHECKING:
    import re

READS = [
    ("lost_comma", '{"a": 1 "b": 2}', {"a": 1, "b": 2}, "character_inserted"),
    (
        "lost_closing_quote",
        '{"a": "x, "b": 1}',
        {"a": "x", "b": 1},
        "character_inserted",
    ),
    (
        "lost_opening_quote_of_a_key",
        '{"a": 1, b": 2}',
        {"a": 1, "b": 2},
        "character_inserted",
    ),
    ("stray_closer_at_the_end", '{"a": 1}}', {"a": 1}, "character_dropped"),
    (
        "stray_brace_closing_the_root_early",
        '{"a": [1, 2]}, "b": 3}',
        {"a": [1, 2], "b": 3},
        "character_dropped",
    ),
    (
        "lost_opener_far_before_the_stop",
        '{"tags": "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"], "n": 1}',
        {"tags": ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"], "n": 1},
        "character_inserted",
    ),
    (
        "closer_of_the_wrong_kind",
        '{"a": ["x", "y"}, "n": 2}',
        {"a": ["x", "y"], "n": 2},
        "character_replaced",
    ),
    ("colon_for_a_comma", '{"a": 1: "b": 2}', {"a": 1, "b": 2}, "character_replaced"),
    ("quote_swapped_with_a_bracket", '{"k": 1, "v": "[x", "y"]}', None, ""),
    (
        "extra_quote_dropped",
        '{"a": {"x": 1}", "b": 2}',
        {"a": {"x": 1}, "b": 2},
        "character_dropped",
    ),
    (
        "prose_after_the_value",
        '{"a": 1 "b": 2} Hope this helps.',
        {"a": 1, "b": 2},
        "character_inserted",
    ),
]


@pytest.mark.parametrize(
    ("text", "value", "repair"),
    [r[1:] for r in READS if r[2] is not None],
    ids=[r[0] for r in READS if r[2] is not None],
)
def test_one_slip_with_one_reading_is_fixed(text: str, value: Any, repair: str) -> None:
    fixed = fix_single_edit(text, max_depth=200)
    assert isinstance(fixed, Repaired)
    assert orjson.loads(fixed.text) == value
    assert fixed.repairs == (repair,)
    assert not fixed.truncated
    assert text[fixed.end :].strip() in {"", "Hope this helps."}


AMBIGUOUS = [
    # A stray closer, or a lost opener before an item of the open container.
    ("stray_or_lost_bracket", '{"a": [1, 2]], "b": 3}'),
    ("stray_or_lost_bracket_at_the_top", '{"a": 1}]'),
    ("stray_brace_or_lost_brace", '[{"a": 1}, "b": 2}]'),
    # A quote moved into a string, or a lost ``[``.
    ("quote_swapped_or_bracket_lost", '{"k": "[x", "y"]}'),
    # Dropping one of two commas would hide a lost item.
    ("doubled_comma", "[1,, 2]"),
    ("semicolon_beside_a_comma", '{"a": 1;, "b": 2}'),
    # Dropping the space would read one number.
    ("digits_apart", "[1 500]"),
    # The extra quote, or an unescaped inner one.
    ("extra_or_inner_quote", '{"a": "x"y", "b": 1}'),
    ("extra_quote_or_inner_quote_at_the_end", '{"a": "x"", "b": 1}'),
    # An extra quote after a number, or one lost before it ("1").
    ("extra_quote_or_string_number", '{"a": 1", "b": 2}'),
]


@pytest.mark.parametrize(
    ("text"), [r[1] for r in AMBIGUOUS], ids=[r[0] for r in AMBIGUOUS]
)
def test_two_readings_are_ambiguous(text: str) -> None:
    assert isinstance(fix_single_edit(text, max_depth=200), Ambiguous)


@pytest.mark.parametrize(
    "text",
    [r[1] for r in AMBIGUOUS if r[0] != "extra_or_inner_quote"],
    ids=[r[0] for r in AMBIGUOUS if r[0] != "extra_or_inner_quote"],
)
def test_the_parser_raises_on_two_readings(text: str) -> None:
    with pytest.raises(InvalidJsonError):
        JsonFenceOutputParser(repair=True).parse(text)


# Found by an adversarial review: each answered a wrong value once.
REVIEWED = [
    # A dropped or replaced separator between digits joins or splits numbers.
    ("time_unquoted", '{"time": 12:30, "room": "B"}'),
    ("decimal_comma", '{"item": "Coffee", "price": 19,99, "currency": "EUR"}'),
    # A lost backslash before a quote inside a string: escaping it reads too.
    ("lost_backslash_before_a_bracket", '{"a": "[\\"x"]"}'),
    ("lost_backslash_before_a_comma", '{"msg": "say \\"hi", then go", "n": 1}'),
    # A lost ``}`` of a nested object whose last member is long: the closer
    # may belong after any member of that object.
    ("lost_closer_far_back", '[{"a": {"b": 1, "c": "' + "x" * 70 + '"}]'),
    # A cut reply with one slip: an edit that closes the root early leaves
    # the rest of the JSON as if it were prose.
    ("cut_after_a_slip", '["k": "v", "n": [1'),
    (
        "cut_string_after_a_slip",
        '{"code": "x = [\\"a"]", "explanation": "This creates a li',
    ),
    ("number_split_by_a_moved_closer", '{"a": [1], "confidence": }0.01,\n "v"'),
    # A colon in an array: a lost pair of braces reads as well as a comma.
    ("colon_in_an_array", '["key":"value"]'),
    # A candidate that does not start with its opener.
    ("stray_closer_first", "}[1, 2]"),
    # A ``'`` or backtick for the closing quote: a quote inserted after it,
    # or put in its place?
    ("apostrophe_for_the_closing_quote", '{"a": "x\', "b": 1}'),
    # A quote after a backslash is an escaped one, not a lost one.
    ("windows_path", '{"p": "C:\\logs\\new" "q": 1}'),
]


# Found by a second review: the intended value, or an error, never a third.
REVIEWED_AGAIN = [
    # A string ending in a single backslash: ``\"`` then reads as an escaped
    # quote; doubling the backslash reads as well.
    ("backslash_at_a_string_end", '{"p": "C:\\\\dir\\", "n": 1}', None),
    # A hyphen between digits is a range, not a lost comma before -25.
    ("range_in_an_array", '{"age_range": [18-25]}', None),
    ("year_month", '{"dates": [2024-11]}', None),
    # A space for the dot after 0.
    ("zero_space_digit", '{"embedding": [0.12, 0 5, 0.9]}', None),
    # A typographic or fullwidth quote standing for the JSON quote.
    ("typographic_quote_opens_a_key", '{"a": 1, \u201db": 2}', {"a": 1, "b": 2}),
    ("fullwidth_quote_closes", '{"a": "x\uff02, "n": 1}', {"a": "x", "n": 1}),
    # Controls, read as before.
    (
        "escaped_quotes_then_a_lost_quote",
        '{"q": "He said \\"hi\\", "n": 1}',
        {"q": 'He said "hi"', "n": 1},
    ),
    ("negative_after_a_lost_comma", "[1, -2, 3 -4]", [1, -2, 3, -4]),
    (
        "decimals_after_a_lost_comma",
        '{"e": [0.12, -0.5 0.33]}',
        {"e": [0.12, -0.5, 0.33]},
    ),
]


@pytest.mark.parametrize(
    ("text", "meant"),
    [r[1:] for r in REVIEWED_AGAIN],
    ids=[r[0] for r in REVIEWED_AGAIN],
)
def test_second_review_cases_read_as_meant_or_raise(text: str, meant: Any) -> None:
    parser = JsonFenceOutputParser(repair=True)
    if meant is None:
        with pytest.raises(InvalidJsonError):
            parser.parse(text)
    else:
        assert parser.parse(text) == meant


@pytest.mark.parametrize("text", [r[1] for r in REVIEWED], ids=[r[0] for r in REVIEWED])
def test_reviewed_cases_are_no_single_edit_fix(text: str) -> None:
    assert not isinstance(fix_single_edit(text, max_depth=200), Repaired)


class _CountingSub:
    """A pattern whose ``sub`` calls are counted."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)

    def sub(self, repl: str, string: str) -> str:
        self.calls += 1
        return self.pattern.sub(repl, string)


def test_the_tail_check_is_one_pass_whatever_the_nesting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Text after the value with deep brackets: one pass over them, not one
    # pass per level (it took seconds at 32 KB).
    calls = []
    for depth in (1_000, 2_000):
        counting = _CountingSub(single_edit_pieces._NOT_BRACKET)
        with monkeypatch.context() as patch:
            patch.setattr(single_edit_pieces, "_NOT_BRACKET", counting)
            text = '{"a": "x, "b": 1} Also: ' + "[" * depth + "]" * depth
            assert isinstance(fix_single_edit(text, max_depth=200), Repaired)
        calls.append(counting.calls)
    assert calls[0] == calls[1] > 0


NOTHING = [
    ("valid", '{"a": 1}'),
    ("cut_off", '{"a": 1, "b": [1, 2'),
    ("two_slips", '{"a": 1 "b": 2 "c": 3}'),
    ("unquoted_value", "{status: ok}"),
    ("nan", '{"a": NaN}'),
]


@pytest.mark.parametrize(("text"), [r[1] for r in NOTHING], ids=[r[0] for r in NOTHING])
def test_no_single_edit_fix(text: str) -> None:
    assert fix_single_edit(text, max_depth=200) is None


@pytest.mark.parametrize("text", ["{{", "{[", "[{", "{" * 1000])
def test_openers_never_become_an_empty_value(text: str) -> None:
    assert not isinstance(fix_single_edit(text, max_depth=200), Repaired)
    with pytest.raises(InvalidJsonError):
        JsonFenceOutputParser(repair=True).parse(text)


def test_a_quote_never_takes_the_spaces_between_tokens() -> None:
    # ``"   confidence"`` would decode too; only ``"confidence"`` is a reading.
    text = '{\n  "end": 243,\n  confidence": 1.0\n}'
    fixed = fix_single_edit(text, max_depth=200)
    assert isinstance(fixed, Repaired)
    assert orjson.loads(fixed.text) == {"end": 243, "confidence": 1.0}


def test_raw_line_breaks_in_strings_are_escaped_first() -> None:
    text = '{"a": "two\nlines" "b": 1}'
    fixed = fix_single_edit(text, max_depth=200)
    assert isinstance(fixed, Repaired)
    assert fixed.repairs == ("control_characters_escaped", "character_inserted")
    assert orjson.loads(fixed.text) == {"a": "two\nlines", "b": 1}
    assert fixed.end == len(text)


def test_a_value_inside_a_string_or_a_member_is_not_searched() -> None:
    # The candidate at ``{a`` sits inside a string: its one-edit fix
    # (``{"a": 1}``) is not the reply's value.
    parser = JsonFenceOutputParser(repair=True)
    with pytest.raises(InvalidJsonError):
        parser.parse('"{a": 1, "b": 2}')


@pytest.mark.parametrize(
    "text",
    [
        # The pass reads ``#`` as a comment and drops the rest of the line;
        # one lost quote reads the whole line as the string it was.
        pytest.param('{"stop": [\n  "a",\n  ###"\n], "n": 1}', id="lost_quote"),
        # The pass drops a commented-out member; one swap reads "#b".
        pytest.param('[\n  "a",\n  #"b",\n  "c"\n]', id="commented_out_item"),
    ],
)
def test_a_guess_of_the_pass_the_search_reads_otherwise_is_an_error(
    text: str,
) -> None:
    with pytest.raises(InvalidJsonError):
        JsonFenceOutputParser(repair=True).parse(text)


def _work(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    read = 0
    real = orjson.loads

    def counting(data: str) -> Any:
        nonlocal read
        read += len(data)
        return real(data)

    with monkeypatch.context() as patch:
        patch.setattr(orjson, "loads", counting)
        fix_single_edit(text, max_depth=200)
    return read


@pytest.mark.parametrize(
    "unit",
    [
        pytest.param('{"k": "v", "n": [1, 2]}, ', id="records"),
        pytest.param("[", id="openers"),
        pytest.param('"x", ', id="items"),
    ],
)
def test_the_search_reads_a_bounded_multiple_of_the_text(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A slip at the end of a long text: every edit's decode reads the text up
    # to the slip, so the search stops at its budget rather than grow with
    # the square of the length.
    sizes = (20_000, 40_000)
    work = [
        _work("[" + unit * (n // len(unit)) + '"a" "b"]', monkeypatch) for n in sizes
    ]
    assert work[1] <= GROWTH * work[0] + 1024
    budget = single_edit._BUDGET_TIMES * 40_100 + single_edit._BUDGET_EXTRA
    assert work[1] <= 2 * budget
