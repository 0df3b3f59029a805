"""Candidate choice and masking (issue 21, families 11, 12, 14, 15).

Each family's rule through each entry point it concerns: the parsers (sync
and async), ``extract_json`` and ``recover_record`` (the batch and records
path). A row's ``expected`` is the value, or an error class.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
    extract_json,
    recover_record,
)

if TYPE_CHECKING:
    from collections.abc import Callable

Entry = tuple[str, "Callable[[str], Any]"]


def _entries(**options: Any) -> list[Entry]:
    """The entry points, each built with ``options``."""
    fence = JsonFenceOutputParser(**options)
    entries: list[Entry] = [
        ("parse", fence.parse),
        ("aparse", lambda text: asyncio.run(fence.aparse(text))),
        ("record", lambda text: _from_row(recover_record(text, fence))),
    ]
    if "prefer" not in options:
        trunc = TruncationRecoveringOutputParser(**options)
        entries.append(("truncation", trunc.parse))
        if not options:
            entries.append(("extract_json", lambda text: extract_json(text).value))
    return entries


class _RowError(JsonRecoveryError):
    """A failed row, raised again so rows are checked as the parsers are."""


def _from_row(row: dict[str, Any]) -> Any:
    if not row["ok"]:
        raise _RowError(row["error"]["message"], llm_output="")
    return row["value"]


def _check(entry: Callable[[str], Any], text: str, expected: Any) -> None:
    if isinstance(expected, type) and issubclass(expected, Exception):
        with pytest.raises((expected, _RowError)):
            entry(text)
    else:
        assert entry(text) == expected


OPTIONS = [
    pytest.param({}, id="default"),
    pytest.param({"repair": True}, id="repair"),
    pytest.param({"prefer": "last"}, id="last"),
    pytest.param({"prefer": "last", "repair": True}, id="last_repair"),
]


# ------------------------------------------------ 11: objects before arrays

CITATIONS = [
    ('Draft {"n": 1}. Final {"n": 2}. Sources: [4]', {"n": 1}, {"n": 2}),
    ('[2] The filing says {"revenue": 10}', {"revenue": 10}, {"revenue": 10}),
    ('[1][3] Answer: {"a": [1, 2]} Sources: [4], [5]', {"a": [1, 2]}, {"a": [1, 2]}),
    ('[1, 2] and {"a": 1}', {"a": 1}, {"a": 1}),
    ('{"a": 1} see [3]', {"a": 1}, {"a": 1}),
    ('See [3].\n{\n  "a": {"b": [1]}\n}\n[4]', {"a": {"b": [1]}}, {"a": {"b": [1]}}),
    ('[{"id": 1}, {"id": 2}]', [{"id": 1}, {"id": 2}], [{"id": 1}, {"id": 2}]),
    ("[1, 2] then [3]", [1, 2], [3]),
    ('Sources: [4] and {"n": 1} or {"n": 2}', {"n": 1}, {"n": 2}),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("text", "first", "last"), CITATIONS)
def test_objects_come_before_arrays_in_every_order(
    options: dict[str, Any], text: str, first: Any, last: Any
) -> None:
    expected = last if options.get("prefer") == "last" else first
    for _, entry in _entries(**options):
        _check(entry, text, expected)
