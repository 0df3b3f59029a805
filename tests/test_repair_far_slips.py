"""Slips the single-edit search must see far from where the decoder stopped.

A lost opening quote supplied before items and commas the decoder read, and
a stray closer more than a window before the end, each have a second
reading: the reply is an ``InvalidJsonError`` carrying the raw reply, through
every parser with ``repair=True`` and every entry point (``parse``,
``invoke``, ``ainvoke``, the last streamed item). The one-reading cases
beside them are still read.
"""

from __future__ import annotations

from typing import Any

import pytest
from _entry_points import ENTRY_POINTS, read_through
from test_repair_two_readings import PARSERS

from langchain_jsonrecover import InvalidJsonError

_LONG = "x" * 80


REFUSED = [
    # A quote before ``1`` makes the item and two commas one string; the
    # quote may as well be lost before the second comma ([1, ",", "x"]).
    pytest.param('[1, ,", "x"]', id="quote-swallows-items"),
    pytest.param('[true, ,", "a: b"]', id="quote-swallows-literal"),
    # A stray ``}`` after ``]`` far before the end: dropping it keeps name
    # and prefs in user; dropping the last ``}`` moves them up a level.
    pytest.param(
        '{\n  "user": {\n    "tags": [\n      1\n    ]},\n    "name": "Bob",\n'
        '    "prefs": {\n      "a": true,\n      "b": 0.5\n    }\n  }\n}',
        id="stray-closer-indented",
    ),
    pytest.param(
        '{"user": {"tags": [1]}, "name": "Bob", "note": "'
        + _LONG
        + '", "prefs": {"a": 1}}}',
        id="stray-closer-compact",
    ),
    pytest.param(
        '{\n    "x y": {\n        "1": {"q": 1},\n        "k:v": [1751, -0.0]},\n'
        '        "x y": [140, null, null, false],\n'
        '        "items": {"z": "' + _LONG + '"}\n    }\n}',
        id="stray-closer-repeated-key",
    ),
    pytest.param(
        '{"a": 1, "b": {"c": 2}, "note": "' + _LONG + '", "d": 3}}',
        id="stray-closer-or-last",
    ),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", REFUSED)
def test_a_far_slip_with_two_readings_is_an_error(
    reply: str, make: Any, entry: str
) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        read_through(make(), reply, entry)
    assert caught.value.llm_output == reply


READ = [
    # The lost quote at the decoder's stop takes in no structure it read.
    ('{"a": hello world", "b": 1}', {"a": "hello world", "b": 1}),
    ('{"a": 12 apples", "b": 1}', {"a": "12 apples", "b": 1}),
    # An extra closer at the end where no closer far back holds members of
    # one kind after it: an array closed inside the object, a last member.
    (
        '{"a": [1], "note": "' + _LONG + '", "c": 2}}',
        {"a": [1], "note": _LONG, "c": 2},
    ),
    (
        '{"a": 1, "note": "' + _LONG + '", "c": {"d": 2}}}',
        {"a": 1, "note": _LONG, "c": {"d": 2}},
    ),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize(("reply", "expected"), READ)
def test_a_slip_with_one_reading_is_still_read(
    reply: str, expected: Any, make: Any, entry: str
) -> None:
    assert read_through(make(), reply, entry) == expected
