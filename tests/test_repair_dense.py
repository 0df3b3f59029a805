"""Faults in every record (single-quoted keys, ``True``): the hot path's share.

A single-quoted key with nothing to repair, and a plain scalar before one, are
taken by the hot path's matches; the text, the repairs and where the value
ends are what the careful path alone gives, row by row.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest
from _counting import pass_steps_counted

import langchain_jsonrecover._core.repair.tokens as repair_module
from langchain_jsonrecover._core.repair.syntax import Repaired, repair

if TYPE_CHECKING:
    from collections.abc import Iterator


HOT_PATTERNS = ("_KEY_COLON", "_SQ_KEY_COLON", "_MEMBERS", "_ITEMS")
"""The hot path's patterns: with all of them taking nothing, every token is stepped."""

SQ = ("single_quotes_replaced",)
PY = ("python_literal_replaced",)

# (id, text, repaired text or None, repairs)
ROWS: list[tuple[str, str, str | None, tuple[str, ...]]] = [
    ("keys_and_true", "{'a':1,'b':True}", '{"a":1,"b":true}', SQ + PY),
    ("true_first", "{\"x\":True,'a':1}", '{"x":true,"a":1}', PY + SQ),
    ("spaces_kept", "{ 'a' : \"x\" , 'b' :null}", '{ "a" : "x" , "b" :null}', SQ),
    ("empty_key", "{'':1}", '{"":1}', SQ),
    ("escape_in_key_kept", "{'a\\n':1}", '{"a\\n":1}', SQ),
    ("dq_in_key_escaped", "{'a\"b':1}", '{"a\\"b":1}', SQ),
    (
        "nested_records",
        "[{'id':1,'tags':[\"a\"],'on':True},{'id':2,'on':False}]",
        '[{"id":1,"tags":["a"],"on":true},{"id":2,"on":false}]',
        SQ + PY,
    ),
    ("bracket_in_string_before_key", "{'a':\"[x\",'b':2}", '{"a":"[x","b":2}', SQ),
    ("typographic_in_string_before_key", "{'a':\"x”\",'b':2}", '{"a":"x”","b":2}', SQ),
    ("key_cut_before_colon", "{'a'", '{"a"', SQ),
    ("cut_after_comma", "{'a':1,", '{"a":1,', SQ),
    ("no_colon_inserted", "{'a' 1}", '{"a" :1}', (*SQ, "colon_inserted")),
    ("key_on_new_line", "{\n 'a':\n 1\n}", '{\n "a":\n 1\n}', SQ),
    ("space_before_comma", "{'a':1 ,\n'b':2}", '{"a":1 ,\n"b":2}', SQ),
    ("trailing_comma", "{'a':1,}", '{"a":1}', (*SQ, "trailing_comma_removed")),
    ("comma_then_cut_key", "{'a':1,'b", '{"a":1,"b', SQ),
    (
        "in_backticks",
        "{\"x\": `{'a':1,'b':2}`}",
        '{"x": {"a":1,"b":2}}',
        ("backticks_removed", *SQ),
    ),
    (
        "lost_bracket_after_run",
        "{'a':[1,2,'b':3}",
        '{"a":[1,2],"b":3}',
        (*SQ, "bracket_fixed_guessed"),
    ),
]


@contextmanager
def careful_path_only() -> Iterator[None]:
    """Make the hot path's patterns take nothing."""
    nothing = re.compile("")
    with pytest.MonkeyPatch.context() as patch:
        for name in HOT_PATTERNS:
            patch.setattr(repair_module, name, nothing)
        yield


def fields(result: Repaired | None) -> tuple[object, ...] | None:
    if result is None:
        return None
    return (result.text, result.repairs, result.truncated, result.end)


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [pytest.param(*row[1:], id=row[0]) for row in ROWS],
)
def test_dense_faults_repaired(
    text: str, expected: str | None, repairs: tuple[str, ...]
) -> None:
    result = repair(text)
    if expected is None:
        assert result is None
        return
    assert result is not None
    assert (result.text, result.repairs) == (expected, repairs)


@pytest.mark.parametrize("text", [pytest.param(row[1], id=row[0]) for row in ROWS])
def test_hot_path_writes_what_careful_path_writes(text: str) -> None:
    fast = repair(text)
    with careful_path_only():
        careful = repair(text)
    assert fields(fast) == fields(careful)


@pytest.mark.parametrize(
    ("value", "steps_per_member"),
    [("7", 1), ('"x"', 1), ("true", 1), ("True", 2), ("[1]", 3)],
)
def test_hot_path_takes_single_quoted_members(
    value: str, steps_per_member: int
) -> None:
    # A member is a key, a colon, a value and a comma (four careful steps
    # before): with a plain scalar only its comma is a careful step; a Python
    # literal adds one, an array its bracket and its closer.
    members = 50
    record = "{" + ",".join(f"'k{i}':{value}" for i in range(members)) + "}"
    with pass_steps_counted() as steps:
        result = repair(record)
    assert result is not None
    assert result.repairs[0] == "single_quotes_replaced"
    assert steps.calls <= steps_per_member * members + 1
