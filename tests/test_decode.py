"""The strict decoder's depth check: the bracket skeleton agrees with the value."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from langchain_jsonrecover._decode import loads_within, within_depth


def depth(value: Any) -> int:
    """How many containers deep a value nests (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def nested(levels: int) -> Any:
    """Objects and arrays alternating, ``levels`` deep, with siblings at each level."""
    value: Any = 1
    for level in range(levels):
        value = {"k": value, "n": [level]} if level % 2 else [value, {}, [2]]
    return value


SHAPES = [
    pytest.param(nested(levels), id=f"{levels} levels")
    for levels in (1, 2, 3, 5, 10, 21, 22, 23, 24, 25, 30, 47, 60)
] + [
    pytest.param(["]]", [[["x"]]], "[["], id="brackets in strings"),
    pytest.param({"a": "}{", "b": [[{}]]}, id="a closer first in a string"),
    pytest.param([[[]]] * 50, id="many shallow siblings"),
]


@pytest.mark.parametrize("value", SHAPES)
@pytest.mark.parametrize("max_depth", [1, 2, 3, 4, 10, 22, 23, 24, 40, 200])
def test_depth_check_matches_the_value(value: Any, max_depth: int) -> None:
    text = orjson.dumps(value).decode()
    padded = text + " " * 300  # long enough that no length shortcut answers
    expected = depth(value) <= max_depth
    assert within_depth(padded, value, max_depth) is expected
    decoded, shallow = loads_within(padded, max_depth)
    assert decoded == value
    assert shallow is expected
