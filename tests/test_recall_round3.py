"""Issue 22, round 3: replies read with one reading, each rule a table.

Each row is a reply, the schema it is read with (``None``: none), and what the
repairing ``extract`` gives: the value with the repair it names, or an error
(``ERROR``). The rows that stay errors are the second readings each rule
leaves alone.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.schema.validate import Schema

ERROR: Final = object()


class Summary(BaseModel):
    section_summary: str


class Place(BaseModel):
    city: str
    tags: list[str]


def _read(reply: str, schema: Any) -> Any:
    found = extract(
        reply, schema=None if schema is None else Schema(schema), repair=True
    )
    return found if isinstance(found, Extraction) else ERROR


def _assert_row(reply: str, schema: Any, expected: Any, repair: str) -> None:
    found = _read(reply, schema)
    if expected is ERROR:
        assert found is ERROR, found
        if schema is not None:
            parser = JsonFenceOutputParser(pydantic_object=schema, repair=True)
            with pytest.raises(OutputParserException):
                parser.parse(reply)
        return
    assert isinstance(found, Extraction), reply
    value = found.value
    assert (value if schema is None else value.model_dump()) == expected
    assert repair in found.repairs
    if schema is not None:
        parser = JsonFenceOutputParser(pydantic_object=schema, repair=True)
        assert parser.parse(reply) == schema.model_validate(expected)


# stray_closer_dropped: one ``}`` after a whole root, nothing after it.
STRAY_BRACE = [
    (
        '{"section_summary": "a, b and c."}\n}',
        Summary,
        {"section_summary": "a, b and c."},
    ),
    ('{"a": "x y"}\n}', None, {"a": "x y"}),
    ('["x y", "z"] }', None, ["x y", "z"]),
    ('{"a": {"b": "x y"}}\n}', None, {"a": {"b": "x y"}}),
    # Two stray closers, or a bare key first (a prefilled ``{``): not this rule.
    ('{"a": "x y"}\n}}', None, ERROR),
    ('result: {"a": "x y"}}', None, ERROR),
    # A stray ``]`` keeps its two readings (family 7): no schema, an error.
    ('{"a": "x y"}\n]', None, ERROR),
    # Text after the closer: not one stray closer.
    ('{"a": "x y"}\n} and more', None, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), STRAY_BRACE)
def test_a_stray_brace_after_a_whole_root_is_dropped(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "stray_closer_dropped")


# tuples_listed: Python tuples in a Python-printed value, read as lists.
TUPLES = [
    (
        "{'city': 'Oslo', 'tags': ('harbour', 'north')}",
        Place,
        {"city": "Oslo", "tags": ["harbour", "north"]},
    ),
    (
        "{'city': 'Oslo', 'tags': ('harbour',)}",
        None,
        {"city": "Oslo", "tags": ["harbour"]},
    ),
    ("{'a': (), 'b': None}", None, {"a": [], "b": None}),
    ("{'a': ((1, 2), (3, 4))}", None, {"a": [[1, 2], [3, 4]]}),
    ("[('x', True), ('y', False)]", None, [["x", True], ["y", False]]),
    ("{'a': 'f(x)', 'b': (1, 2)}", None, {"a": "f(x)", "b": [1, 2]}),
    # Not Python-printed: a ``(`` in JSON is no tuple of Python's.
    ('{"tags": ("harbour", "north")}', None, ERROR),
    # A ``(`` after a word is a call, not a tuple.
    ("{'p': Point(1, 2)}", None, ERROR),
    # A ``(`` closed by another closer.
    ("{'a': (1, 2]}", None, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), TUPLES)
def test_a_python_tuple_is_read_as_a_list(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "tuples_listed")
