"""The syntax repair core: one table row per repair and per refusal, named by
what it shows; properties over any JSON value; linear work on hostile input.

Values are compared strictly: ``True`` is not ``1`` and ``1.0`` is not ``1``.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import pydantic_core
import pytest
from _counting import Tally, count_patterns
from _json_values import SETTINGS, same_value_in_key_order
from hypothesis import given
from hypothesis import strategies as st

import langchain_jsonrecover._core.repair.tokens as repair_module
from langchain_jsonrecover import InvalidJsonError, TruncationRecoveringOutputParser
from langchain_jsonrecover._core.repair.syntax import Repaired, repair
from langchain_jsonrecover._core.repair.walk import DEEPEST

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


def decoded(result: Repaired) -> Any:
    """The value of a repaired text: strict, or closed by the partial parser."""
    if result.truncated:
        return pydantic_core.from_json(result.text, allow_partial="trailing-strings")
    return orjson.loads(result.text)


# --- each repair ---------------------------------------------------------------

GUESSED_QUOTE = ("inner_quote_escaped_guessed",)
GUESSED_BRACKET = ("bracket_fixed_guessed",)

REPAIRED: list[tuple[str, str, Any, tuple[str, ...]]] = [
    # Trailing commas.
    ("trailing_comma_in_object", '{"a": 1,}', {"a": 1}, ("trailing_comma_removed",)),
    ("trailing_comma_in_array", "[1, 2, ]", [1, 2], ("trailing_comma_removed",)),
    (
        "trailing_commas_on_lines",
        '{\n  "a": [\n    1,\n  ],\n}',
        {"a": [1]},
        ("trailing_comma_removed",),
    ),
    # Single quotes.
    (
        "single_quoted_key_and_value",
        "{'a': 'b'}",
        {"a": "b"},
        ("single_quotes_replaced",),
    ),
    (
        "double_quote_inside_single_quotes_kept",
        """{'say': 'he said "hi"'}""",
        {"say": 'he said "hi"'},
        ("single_quotes_replaced",),
    ),
    (
        "escaped_apostrophe_in_single_quotes",
        r"{'a': 'it\'s'}",
        {"a": "it's"},
        ("single_quotes_replaced",),
    ),
    (
        "single_and_double_quotes_mixed",
        """{"a": 'x', 'b': "it's"}""",
        {"a": "x", "b": "it's"},
        ("single_quotes_replaced",),
    ),
    # Python literals.
    (
        "python_literals_in_array",
        "[True, False, None]",
        [True, False, None],
        ("python_literal_replaced",),
    ),
    (
        "python_literal_as_member_value",
        '{"ok": True, "n": None}',
        {"ok": True, "n": None},
        ("python_literal_replaced",),
    ),
    # Comments.
    (
        "slash_line_comment",
        '{"a": 1, // note\n "b": 2}',
        {"a": 1, "b": 2},
        ("comment_removed",),
    ),
    ("hash_line_comment", '{"a": 1 # note\n}', {"a": 1}, ("comment_removed",)),
    ("block_comment", "[1, /* two */ 2]", [1, 2], ("comment_removed",)),
    (
        "comment_lines_between_items",
        '{"Changes": [\n  // object a ]\n  {"A": 1},\n  // object b ]\n  {"A": 2}\n]}',
        {"Changes": [{"A": 1}, {"A": 2}]},
        ("comment_removed",),
    ),
    # Unquoted keys.
    (
        "identifier_keys",
        '{name: "Ada", _id: 1, $ref: "x"}',
        {"name": "Ada", "_id": 1, "$ref": "x"},
        ("key_quoted",),
    ),
    ("non_ascii_identifier_key", "{zürich: 1}", {"zürich": 1}, ("key_quoted",)),
    # Missing commas.
    (
        "missing_comma_between_members",
        '{"a": 1 "b": 2}',
        {"a": 1, "b": 2},
        ("comma_inserted",),
    ),
    ("missing_comma_between_items", "[1\n2]", [1, 2], ("comma_inserted",)),
    (
        "missing_comma_between_objects_on_lines",
        '[{"a": 1}\n{"b": 2}]',
        [{"a": 1}, {"b": 2}],
        ("comma_inserted",),
    ),
    (
        "missing_comma_between_adjacent_objects",
        '[{"a": 1}{"b": 2}]',
        [{"a": 1}, {"b": 2}],
        ("comma_inserted",),
    ),
    (
        "missing_comma_after_string_member",
        '{"a": "x"\n"b": "y"}',
        {"a": "x", "b": "y"},
        ("comma_inserted",),
    ),
    (
        "missing_comma_before_bare_key_on_new_line",
        '{"a": "x"\n  b: "y"}',
        {"a": "x", "b": "y"},
        ("comma_inserted", "key_quoted"),
    ),
    # Invalid escapes.
    (
        "invalid_escapes_lose_the_backslash",
        r'{"a": "snake\_case \'q\' a\ b"}',
        {"a": "snake_case 'q' a b"},
        ("invalid_escape_fixed",),
    ),
    (
        "invalid_unicode_escape",
        r'{"a": "\uZZ"}',
        {"a": "\\uZZ"},
        ("literal_backslashes_guessed",),
    ),
    # Raw control characters (the strict decoder's tolerance, needed here).
    (
        "raw_newline_in_string",
        '{"a": "line 1\nline 2"}',
        {"a": "line 1\nline 2"},
        ("control_characters_escaped",),
    ),
    # String-escaped JSON.
    ("json_string_escaped", r"{\"score\": 0}", {"score": 0}, ("json_unescaped",)),
    (
        "json_string_escaped_with_escapes_inside",
        r"{\"a\": \"say \\\"hi\\\"\", \"b\": [1, 2], \"c\": \"\u00e9\"}",
        {"a": 'say "hi"', "b": [1, 2], "c": "é"},
        ("json_unescaped",),
    ),
    (
        "json_string_escaped_ends_at_bare_quote",
        r'{\"a\": 1}" and {\"b\": 2}',
        {"a": 1},
        ("json_unescaped",),
    ),
    (
        "json_string_escaped_array_on_lines",
        r"[\n  {\"a\": 1}\n]",
        [{"a": 1}],
        ("json_unescaped",),
    ),
    # Literal \n between tokens.
    (
        "literal_newlines_between_tokens",
        r'{\n  "a": 1,\n  "b": [1, 2]\n}',
        {"a": 1, "b": [1, 2]},
        ("literal_newlines_removed",),
    ),
    (
        "literal_newline_inside_string_is_an_escape",
        r'{\n  "a": "x\ny",\n  "b": "z"\n}',
        {"a": "x\ny", "b": "z"},
        ("literal_newlines_removed",),
    ),
    # Unescaped inner quotes (a guess).
    (
        "inner_quotes_in_html",
        '{"html": "<h3 id="title">Hi</h3>"}',
        {"html": '<h3 id="title">Hi</h3>'},
        GUESSED_QUOTE,
    ),
    (
        "inner_quotes_with_comma_after",
        '{"notes": "sent to the "boss", waiting"}',
        {"notes": 'sent to the "boss", waiting'},
        GUESSED_QUOTE,
    ),
    (
        "inner_quotes_then_next_member",
        '{"a": "x "y" z", "b": 1}',
        {"a": 'x "y" z', "b": 1},
        GUESSED_QUOTE,
    ),
    (
        "inner_quotes_in_array_items",
        '["lorem "ipsum" sic", "a "b" c", "d"]',
        ['lorem "ipsum" sic', 'a "b" c', "d"],
        GUESSED_QUOTE,
    ),
    (
        "apostrophe_inside_single_quotes",
        "{'text': 'it's fine', 'b': 1}",
        {"text": "it's fine", "b": 1},
        ("single_quotes_replaced", "inner_quote_escaped_guessed"),
    ),
    # Brackets (a guess).
    ("object_closer_missing", '[{"a": 1]', [{"a": 1}], GUESSED_BRACKET),
    (
        "object_closer_missing_mid_object",
        '{"array": [{"key": "value"], "key2": "value2"}',
        {"array": [{"key": "value"}], "key2": "value2"},
        GUESSED_BRACKET,
    ),
    (
        "array_closed_with_brace",
        '{"a": ["b"}, "c": 1}',
        {"a": ["b"], "c": 1},
        GUESSED_BRACKET,
    ),
    (
        "object_closed_with_bracket_in_array",
        '[{"a": 1], {"b": 2}]',
        [{"a": 1}, {"b": 2}],
        GUESSED_BRACKET,
    ),
    (
        "array_left_open_before_next_key",
        '{"a": [1, 2, "c": 3}',
        {"a": [1, 2], "c": 3},
        GUESSED_BRACKET,
    ),
    ("bracket_nothing_else_could_close", '{"a": 1]', {"a": 1}, GUESSED_BRACKET),
    (
        "quote_then_wrong_bracket_closes_string",
        '[{"a": "b"]',
        [{"a": "b"}],
        GUESSED_BRACKET,
    ),
    # Together, and what follows the value.
    (
        "several_repairs_named_in_order",
        "{'a': True, b: [1\n 2,], // c\n 'd': \"x\\_\"}",
        {"a": True, "b": [1, 2], "d": "x_"},
        (
            "single_quotes_replaced",
            "python_literal_replaced",
            "key_quoted",
            "comma_inserted",
            "trailing_comma_removed",
            "comment_removed",
            "invalid_escape_fixed",
        ),
    ),
    (
        "prose_after_the_value_ignored",
        "{'a': 1} and then {'b': 2}",
        {"a": 1},
        ("single_quotes_replaced",),
    ),
    (
        "deep_nesting_past_the_hot_path",
        '[[[[[[{"a": [[[[True]]]]}]]]]]]',
        [[[[[[{"a": [[[[True]]]]}]]]]]],
        ("python_literal_replaced",),
    ),
]


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [pytest.param(*row[1:], id=row[0]) for row in REPAIRED],
)
def test_repair(text: str, expected: Any, repairs: tuple[str, ...]) -> None:
    result = repair(text)
    assert result is not None
    assert result.truncated is False
    assert same_value_in_key_order(orjson.loads(result.text), expected), result.text
    assert result.repairs == repairs


# --- refusals --------------------------------------------------------------------

REFUSED: list[tuple[str, str]] = [
    # Strings on one line with only spaces between them: a lost comma, or
    # one string with its inner quotes?
    (
        "missing_comma_between_strings_on_one_line",
        '{"key": ["value" "value1" "value2"]}',
    ),
    # Two readings are plausible (issue 10): no guess.
    ("numbers_apart_on_one_line", "[1 500]"),
    ("inner_quote_before_a_closer_and_comma", '{"a": "array["x"], ok"}'),
    ("adjacent_quotes_in_a_string", '["alpha""beta"]'),
    ("quote_swapped_with_a_line_break", '{"a": "x.org/p\n"}'),
    ("inner_json_object_in_string", '{"x": "answer is {"k": "v"}, not plain", "y": 1}'),
    ("wrong_closer_of_an_empty_container", "{foo: [}"),
    ("inner_quote_then_cut", '{"a": "he said "hi'),
    ("key_cut_after_inner_quote_guess", '{"a": "he said "hi", "b'),
    ("odd_inner_quote", '{"a": "x"y", "b": 1}'),
    ("lost_quote_beside_a_key", '{"a": "x, "b": "y"}'),
    ("comma_moved_into_a_string", '{"a": "x," "b": 1}'),
    ("missing_closer_inside_nested", '[{"a": {"b": 1}, "c": 2]'),
    ("array_of_one_left_open", '{"id": [1, "name": "x"}'),
    ("unquoted_value", "{status: ok}"),
    ("unquoted_value_after_quoted_key", '{"status": ok}'),
    ("unquoted_words_as_value", '{"city": New York}'),
    ("nan", "[NaN]"),
    ("infinity", '{"a": Infinity}'),
    ("negative_infinity", '{"a": -Infinity}'),
    ("plain_garbage", "{this is not json}"),
    ("garbage_in_array", "[hello world]"),
    ("not_a_bracket", '"a": 1'),
    ("empty_text", ""),
    ("leading_zero", "[01]"),
    ("number_then_dot", '{"a": 1. }'),
    ("hex_number", "[0x1F]"),
    ("leading_dot", '{"a": .5}'),
    ("number_with_underscores", '{"a": 1_000}'),
    ("number_glued_to_word", "[1, 2notanumber]"),
    ("fraction", '{"a": 1/3}'),
    ("upper_case_literal", '{"a": TRUE}'),
    # Issue 21: quotes with only a space between are two tokens, never one
    # string; a quote after an escaped backslash is a doubled escape or an
    # end; a # starting an item is a value; an unclosed /* takes JSON away.
    ("quotes_across_a_space", '{"name": "Grace" "Hopper"}'),
    ("single_quotes_across_a_space", "['x' 'y', 'z']"),
    ("inner_pair_across_a_space", '["a "b" ", "c"]'),
    ("doubled_escape", '{"html": "<a href=\\\\"x\\\\">"}'),
    ("hash_value_in_array", '{"colors": [#fff, #000]}'),
    ("hash_value_in_array_cut", '{"colors": [#fff, #000'),
    ("unclosed_block_comment_before_members", '{"a": 1, /* note\n "b": 2, "c": 3}'),
    ("missing_value", '{"a": , "b": 1}'),
    ("missing_value_at_end", '{"a": }'),
    ("missing_colon_after_a_bare_key", "{a 1}"),  # {"a" 1}: colon_inserted
    ("numeric_key", '{1: "a"}'),
    ("key_colon_in_array", '["key": "value"]'),
    ("double_comma", "[1,,2]"),
    ("leading_comma", "{,}"),
    ("stray_closer_then_more", '[{"a": 1}}, {"b": 2}]'),
    ("python_tuple", '{"a": (1, 2)}'),
    ("ellipsis", "[1, 2, ...]"),
    ("bare_word_between_members", '{"a": 1, COMMENT "b": 2}'),
    ("hash_where_value_due", '{"c": #fff}'),
    ("guessed_quote_runs_into_the_end", '{"b": "xxxxx" true}'),
    ("guessed_quote_then_bare_member", '{"a": "v", ["x"] }'),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in REFUSED])
def test_refusal(text: str) -> None:
    assert repair(text) is None


# --- valid JSON, and valid strings in repaired JSON ------------------------------

NOTHING_TO_REPAIR: list[tuple[str, str]] = [
    ("object", '{"a": 1}'),
    ("empty_containers", '[{}, [], ""]'),
    ("escapes", r'{"a": "\"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00"}'),
    ("prose_after", '{"a": [1, 2.5e-3, -0, true, false, null]} and then: [oops'),
    ("comment_markers_in_strings", '{"a": "// no", "b": "/* no */", "c": "# no"}'),
    ("indented", json.dumps({"a": [{"b": None}], "c": "d"}, indent=2)),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in NOTHING_TO_REPAIR])
def test_valid_json_needs_no_repair(text: str) -> None:
    assert repair(text) is None


UNTOUCHED: list[tuple[str, str]] = [
    ("apostrophe", "it's"),
    ("escaped_quotes_and_comma", '\\"quoted\\", she said'),
    ("comment_markers", "a // b /* c */ # d"),
    ("python_dict_text", "{'a': True,}"),
    ("escapes", "tab\\t, \\u00e9, \\\\, \\/"),
    ("brackets_and_bare_words", "[1 2] {a: b}"),
    ("python_literal_words", "True None"),
]


@pytest.mark.parametrize("source", [pytest.param(s, id=i) for i, s in UNTOUCHED])
@pytest.mark.parametrize(
    "template",
    [
        pytest.param('{{\'k\': True, "s": "{}",}}', id="in_object"),
        pytest.param('[None, "{}" // c\n]', id="in_array"),
        pytest.param('{{"s": "{}" "t": 1}}', id="before_missing_comma"),
    ],
)
def test_valid_string_is_copied_verbatim(template: str, source: str) -> None:
    result = repair(template.format(source))
    assert result is not None
    assert f'"{source}"' in result.text
    value = orjson.loads(result.text)
    strings = value.values() if isinstance(value, dict) else value
    assert orjson.loads(f'"{source}"') in strings


# --- truncated input ---------------------------------------------------------------

TRUNCATED: list[tuple[str, str, Any, tuple[str, ...]]] = [
    (
        "single_quoted_string_cut",
        "{'a': 'hel",
        {"a": "hel"},
        ("single_quotes_replaced",),
    ),
    (
        "python_literal_cut",
        "[True, Fal",
        [True],
        ("python_literal_replaced",),
    ),
    (
        "bare_keys_then_open_array",
        "{a: 1, b: [1, 2",
        {"a": 1, "b": [1, 2]},
        ("key_quoted",),
    ),
    (
        "comment_runs_to_the_end",
        '{"a": 1, // and then',
        {"a": 1},
        ("comment_removed",),
    ),
    (
        "block_comment_never_closed",
        "[True /* and",
        [True],
        ("python_literal_replaced", "comment_removed"),
    ),
    (
        "invalid_escape_then_cut",
        r'{"a": "x\_y',
        {"a": "x_y"},
        ("invalid_escape_fixed",),
    ),
    (
        "escaped_json_cut",
        r"{\"a\": \"partial",
        {"a": "partial"},
        ("json_unescaped",),
    ),
    (
        "partial_number_dropped",
        "[{'a': 1}, {'b': 2.",
        [{"a": 1}, {}],
        ("single_quotes_replaced",),
    ),
    (
        "dangling_backslash_dropped",
        "{'a': 'x\\",
        {"a": "x"},
        ("single_quotes_replaced",),
    ),
    (
        "partial_unicode_escape_dropped",
        "{'a': 'x\\u00",
        {"a": "x"},
        ("single_quotes_replaced",),
    ),
    (
        "partial_bare_key_dropped",
        "{'a': 1, ke",
        {"a": 1},
        ("single_quotes_replaced",),
    ),
    (
        "cut_after_a_comma",
        "{'a': [1, 2,",
        {"a": [1, 2]},
        ("single_quotes_replaced",),
    ),
]


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [pytest.param(*row[1:], id=row[0]) for row in TRUNCATED],
)
def test_truncated(text: str, expected: Any, repairs: tuple[str, ...]) -> None:
    result = repair(text)
    assert result is not None
    assert result.repairs == repairs
    assert result.truncated is True
    assert same_value_in_key_order(decoded(result), expected), result.text


def test_truncated_without_repairs_is_none() -> None:
    # Nothing to repair: the caller closes it as it stands.
    assert repair('{"a": [1, 2') is None


# --- the hot path is only a shortcut -----------------------------------------------


@contextmanager
def careful_path_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the hot path's patterns take nothing, so every token is stepped."""
    nothing = re.compile("")
    with monkeypatch.context() as patch:
        for name in ("_KEY_COLON", "_MEMBERS", "_ITEMS", "_SQ_KEY_COLON"):
            patch.setattr(repair_module, name, nothing)
        yield


@pytest.mark.parametrize(
    "text",
    [pytest.param(row[1], id=row[0]) for row in REPAIRED + TRUNCATED]
    + [pytest.param(t, id=i) for i, t in REFUSED + NOTHING_TO_REPAIR],
)
def test_hot_path_changes_nothing(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    fast = repair(text)
    with careful_path_only(monkeypatch):
        careful = repair(text)
    if fast is None or careful is None:
        assert fast is careful
        return
    assert (fast.repairs, fast.truncated) == (careful.repairs, careful.truncated)
    assert same_value_in_key_order(decoded(fast), decoded(careful))


# --- properties ------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    # A string that ends with a comma, with the comma after it missing, is
    # refused on purpose (``"a," "b"``: a comma that moved into the string?).
    | st.text(max_size=12).filter(lambda text: not text.endswith(","))
)
keys = st.text(max_size=8)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4)


values = st.recursive(scalars, _containers, max_leaves=20)
containers = _containers(values)

SERIALIZERS: dict[str, Callable[[Any], str]] = {
    "orjson_compact": lambda value: orjson.dumps(value).decode(),
    "orjson_indent_2": lambda value: orjson.dumps(
        value, option=orjson.OPT_INDENT_2
    ).decode(),
    "json_indent_2": lambda value: json.dumps(value, indent=2),
    "json_ascii": json.dumps,
}


@SETTINGS
@given(value=containers, serializer=st.sampled_from(sorted(SERIALIZERS)))
def test_repair_never_changes_valid_json(value: Any, serializer: str) -> None:
    text = SERIALIZERS[serializer](value)
    result = repair(text)
    assert result is None or same_value_in_key_order(orjson.loads(result.text), value)


@SETTINGS
@given(value=containers, serializer=st.sampled_from(sorted(SERIALIZERS)))
def test_careful_path_never_changes_valid_json(value: Any, serializer: str) -> None:
    text = SERIALIZERS[serializer](value)
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_KEY_COLON", "_MEMBERS", "_ITEMS"):
            patch.setattr(repair_module, name, re.compile(""))
        result = repair(text)
    assert result is None or same_value_in_key_order(orjson.loads(result.text), value)


IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


@dataclass
class Sloppy:
    """A writer of JSON with the faults we repair exactly (no guessing)."""

    draw: st.DrawFn
    parts: list[str]

    def flip(self) -> bool:
        return self.draw(st.integers(0, 3)) == 0

    def gap(self, *, comments: bool = True) -> None:
        choice = self.draw(st.integers(0, 9))
        if choice == 0 and comments:
            self.parts.append(" // note\n")
        elif choice == 1 and comments:
            self.parts.append(" # note\n")
        elif choice == 2:
            self.parts.append(" /* note */ ")
        elif choice == 3:
            self.parts.append("\\n  ")
        elif choice == 4:
            self.parts.append("\n  ")

    def string(self, text: str) -> None:
        body = json.dumps(text)[1:-1]
        if self.flip():
            # Single quotes: an apostrophe inside is escaped, a quote stays.
            self.parts.append("'" + body.replace("'", "\\'") + "'")
        else:
            self.parts.append(f'"{body}"')

    def key(self, key: str) -> None:
        if IDENTIFIER.fullmatch(key) and self.flip():
            self.parts.append(key)
        else:
            self.string(key)

    def separator(self) -> None:
        # A comma, or none before the next entry on a new line.
        self.parts.append(",\n" if not self.flip() else "\n")

    def value(self, value: Any) -> None:
        if value is None or isinstance(value, bool):
            literal = {None: "null", True: "true", False: "false"}[value]
            python = {None: "None", True: "True", False: "False"}[value]
            self.parts.append(python if self.flip() else literal)
        elif isinstance(value, str):
            self.string(value)
        elif isinstance(value, (int, float)):
            self.parts.append(orjson.dumps(value).decode())
        elif isinstance(value, dict):
            self.parts.append("{")
            for i, (key, item) in enumerate(value.items()):
                if i:
                    self.separator()
                self.gap()
                self.key(key)
                self.parts.append(": ")
                self.value(item)
                self.gap()
            if value and self.flip():
                self.parts.append(",")
            self.gap()
            self.parts.append("}")
        else:
            self.parts.append("[")
            for i, item in enumerate(value):
                if i:
                    self.separator()
                self.gap()
                self.value(item)
                self.gap()
            if value and self.flip():
                self.parts.append(",")
            self.gap()
            self.parts.append("]")


@st.composite
def sloppy_json(draw: st.DrawFn) -> tuple[Any, str]:
    value = draw(containers)
    writer = Sloppy(draw, [])
    writer.value(value)
    return value, "".join(writer.parts)


@SETTINGS
@given(case=sloppy_json())
def test_exact_repairs_give_back_the_value(case: tuple[Any, str]) -> None:
    value, text = case
    result = repair(text)
    if result is None:
        assert same_value_in_key_order(orjson.loads(text), value)
        return
    assert result.truncated is False
    assert same_value_in_key_order(orjson.loads(result.text), value), result.text
    assert not any(name.endswith("_guessed") for name in result.repairs)


@SETTINGS
@given(case=sloppy_json(), data=st.data())
def test_any_cut_gives_a_prefix_the_partial_parser_closes(
    case: tuple[Any, str], data: st.DataObject
) -> None:
    _, text = case
    cut = data.draw(st.integers(1, len(text)))
    result = repair(text[:cut])
    if result is not None:
        decoded(result)


JSONISH = st.lists(
    st.sampled_from(
        [
            *"{}[],:\"' \n\t\\\x01é",
            *("True", "null", "NaN", "1", "-", ".", "e", "x"),
            *("//", "/*", "*/", "#", '"k":', "'v'", '\\"'),
        ]
    ),
    max_size=16,
).map("".join)


@SETTINGS
@given(opener=st.sampled_from("{["), body=JSONISH)
def test_any_text_gives_none_or_decodable_json(opener: str, body: str) -> None:
    result = repair(opener + body)
    if result is not None:
        decoded(result)


# --- linear work -----------------------------------------------------------------


def measure(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Tally, Any]:
    work = Tally()
    with monkeypatch.context() as patch:
        count_patterns(patch, repair_module, lambda _name: work.charge)
        result = repair(text)
    return work, result


N = 4_000

HOSTILE: list[tuple[str, Callable[[int], str], bool | None]] = [
    # (id, text of about n characters, truncated; None for a refusal)
    ("braces", lambda n: "{" * n, None),
    ("brackets", lambda n: "[" * n, None),
    ("escaped_quotes", lambda n: '{"a": "' + '\\"' * n, None),
    ("items_without_commas", lambda n: "[" + "1 " * n, None),  # [1 500]: refused
    ("inner_quotes", lambda n: '["' + 'a "b" ' * n + 'c"]', False),
    ("quote_space_runs", lambda n: '{"a": "' + '" ' * n, None),
    ("broken_bracket_pairs", lambda n: "[{]" * n, None),  # {]: which is wrong?
    ("nested_members", lambda n: '[{"a":' * n, None),
    ("unclosed_block_comments", lambda n: "[" + "/*" * n, None),
    ("single_quoted_items", lambda n: "[" + "'x', " * n, True),
    ("long_key_without_colon", lambda n: '{"a": "x", "' + "y" * n, None),
    # an unclosed /* before more JSON is refused (issue 21), in linear work
    ("commas_before_comments", lambda n: '["' + 'x", /*' * n, None),
    (
        "quotes_before_one_comment_line",
        lambda n: '{"a": "' + 'x", # ' * (2 * (n // 12)) + "\n" + " " * n + 'y"}',
        False,
    ),
    ("members_without_commas", lambda n: "{" + '"a": "b" ' * n + "}", False),
    (
        "wrong_closers",
        lambda n: "[" + ("[" * 50 + "}" * 50 + ",") * (n // 100) + "0]",
        None,
    ),
    ("python_literals", lambda n: "[" + "True, " * n + "]", False),
    # Issue 11's repairs.
    ("typographic_closers_in_a_string", lambda n: '{"a": "' + "x” " * n, None),
    ("typographic_pairs", lambda n: "[" + "“x”, " * n + "]", False),
    (
        "values_missing_opening_quotes",
        lambda n: "{" + '"a": x", ' * n + '"b": 1}',
        False,
    ),
    ("triple_quotes_unclosed", lambda n: "[" + '"""a""", ' * n + '"""', None),
    ("doubled_braces", lambda n: "[" + '{{"a": 1}}, ' * n + "{{}}]", False),
    ("nested_doubled_braces", lambda n: "{" * (2 * n) + "}" * (2 * n), None),
    ("false_starts", lambda n: '{"a": "{' * n, None),
    ("backticks", lambda n: "[" + "`[1]`, " * n + "1]", False),
    ("leading_commas", lambda n: "[" + "[, 1], " * n + "1]", False),
    ("over_escaped_items", lambda n: "[" + '\\"x\\", ' * n + "1]", False),
]


@pytest.mark.parametrize(
    ("build", "truncated"), [pytest.param(b, t, id=i) for i, b, t in HOSTILE]
)
def test_hostile_input_takes_linear_work(
    monkeypatch: pytest.MonkeyPatch,
    build: Callable[[int], str],
    truncated: bool | None,
) -> None:
    small_work, small = measure(monkeypatch, build(N))
    large_work, large = measure(monkeypatch, build(2 * N))
    for result in (small, large):
        if truncated is None:
            assert result is None
        else:
            assert result is not None
            assert result.truncated is truncated
            decoded(result)
    detail = f"at n: {small_work}, at 2n: {large_work}"
    assert large_work.calls <= 2.2 * small_work.calls + 64, detail
    assert large_work.chars <= 2.2 * small_work.chars + 1024, detail


def test_100_kb_of_openers_is_no_recursion() -> None:
    assert repair("{" * 100_000) is None
    assert repair("[" * 100_000) is None
    # Past the decoder's depth no repaired text could decode: refused at once.
    assert repair("[" * 100_000 + "True" + "]" * 100_000) is None
    assert repair('{"a": ' * 2_000 + "True" + "}" * 2_000) is None


@pytest.mark.parametrize("opener", ["[", '{"a": '])
def test_nesting_up_to_the_decoders_depth_is_repaired(opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    deep = repair(opener * DEEPEST + "True" + closer * DEEPEST)
    assert deep is not None
    assert deep.text == opener * DEEPEST + "true" + closer * DEEPEST


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(
            '```\n{"a": 1,\n  "b":" 0.25\n}\n```', id="quote_added_before_a_number"
        ),
        pytest.param(
            '{"zone": "Europe/Paris\n} Let me know.',
            id="closing_quote_lost_before_prose",
        ),
        pytest.param(
            '{"next":" null}\n```\n\nNote: done.', id="quote_added_before_null"
        ),
    ],
)
def test_a_string_over_the_closing_line_is_no_cut_even_with_repair(reply: str) -> None:
    # The reply goes on after the JSON's own closing line: a quote is missing
    # (or one too many), not a token limit; closing the string would swallow it.
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser(repair=True).parse(reply)
