"""What ``extract_json`` accepts: text, UTF-8 bytes, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from langchain_jsonrecover import JsonFenceOutputParser, extract_json

BYTES: list[Any] = [
    pytest.param(b'{"a": 1}', {"a": 1}, (0, 8), id="ascii"),
    pytest.param(b'\xef\xbb\xbf{"a": 1}', {"a": 1}, (0, 8), id="bom_dropped"),
    pytest.param('{"é": "ü"}'.encode(), {"é": "ü"}, (0, 10), id="utf8_text"),
    pytest.param(
        b'Sure:\n```json\n{"a": [1]}\n```', {"a": [1]}, (14, 24), id="fenced_bytes"
    ),
    pytest.param(bytearray(b"[1, 2]"), [1, 2], (0, 6), id="bytearray"),
    pytest.param(memoryview(b"[1, 2]"), [1, 2], (0, 6), id="memoryview"),
]


@pytest.mark.parametrize(("data", "value", "span"), BYTES)
def test_bytes_are_decoded_as_utf8(
    data: Any, value: Any, span: tuple[int, int]
) -> None:
    found = extract_json(data)
    assert (found.value, found.span) == (value, span)
    assert found.step == ("fence" if b"```" in bytes(data) else "raw")


def test_bytes_give_what_the_parser_gives() -> None:
    data = b'\xef\xbb\xbfOK: {"a": [1, "\xc3\xa9"]}'
    assert extract_json(data).value == JsonFenceOutputParser().parse(data)  # type: ignore[arg-type]


def test_bytes_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(UnicodeDecodeError):
        extract_json(b'{"a": "\xff"}')


@pytest.mark.parametrize(
    ("value", "name"),
    [
        pytest.param(None, "NoneType", id="none"),
        pytest.param(42, "int", id="number"),
        pytest.param({"a": 1}, "dict", id="dict"),
        pytest.param(["{}"], "list", id="list"),
        pytest.param(AIMessage('{"a": 1}'), "AIMessage", id="message"),
    ],
)
def test_anything_else_is_a_type_error(value: Any, name: str) -> None:
    with pytest.raises(TypeError, match=f"str or bytes, not {name}"):
        extract_json(value)


def test_limits_are_checked_after_the_type() -> None:
    with pytest.raises(TypeError):
        extract_json(None, max_chars=0)  # type: ignore[arg-type]
