"""Issue 22, round 3: replies read with one reading, each rule a table.

Each row is a reply, the schema it is read with (``None``: none), and what the
repairing ``extract`` gives: the value with the repair it names, or an error
(``ERROR``). The rows that stay errors are the second readings each rule
leaves alone.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
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


# stray_closer_dropped: one ``}`` after a whole root, nothing after it, read
# where a schema takes the root; without one an error, as a stray ``]`` is.
class Pair(BaseModel):
    a: str


STRAY_BRACE = [
    (
        '{"section_summary": "a, b and c."}\n}',
        Summary,
        {"section_summary": "a, b and c."},
    ),
    ('{"a": "x y"}\n}', Pair, {"a": "x y"}),
    ('{"a": "x y"} }', Pair, {"a": "x y"}),
    ('{"a": "x y"}\n}', None, ERROR),
    # Two stray closers, or a bare key first (a prefilled ``{``): not this rule.
    ('{"a": "x y"}\n}}', Pair, ERROR),
    ('result: {"a": "x y"}}', None, ERROR),
    # A stray ``]`` keeps its two readings (family 7): no schema, an error.
    ('{"a": "x y"}\n]', None, ERROR),
    # Text after the closer: not one stray closer.
    ('{"a": "x y"}\n} and more', Pair, ERROR),
    # The schema does not take the root: an error, not another value.
    ('{"b": "x y"}\n}', Pair, ERROR),
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


# python_call_read: the whole reply is one call with literal keyword arguments,
# read as their object where a schema takes it; never without one.
class Person(BaseModel):
    name: str
    age: int


class Transfer(BaseModel):
    agent_name: str


CALLS = [
    ('Person(name="Ada", age=3)', Person, {"name": "Ada", "age": 3}),
    ("Person(name='Ada', age=3)\n", Person, {"name": "Ada", "age": 3}),
    ('transfer_to_agent(agent_name="Billing")', Transfer, {"agent_name": "Billing"}),
    ('tools.transfer(agent_name="Billing")', Transfer, {"agent_name": "Billing"}),
    # No schema: the call's name may be a tool's, not the answer's.
    ('Person(name="Ada", age=3)', None, ERROR),
    # Positional arguments: which field each fills is a guess.
    ('Person("Ada", 3)', Person, ERROR),
    # A value that is not a literal, or prose around the call.
    ("Person(name=get_name(), age=3)", Person, ERROR),
    ('I would call Person(name="Ada", age=3)', Person, ERROR),
    # Nesting too deep for Python's parser: an error, never a crash.
    ("Person(name=" + "[" * 3000 + "]" * 3000 + ", age=3)", Person, ERROR),
    # The schema does not take the arguments.
    ('Person(name="Ada")', Person, ERROR),
    ('Person(name="Ada", age="three")', Person, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), CALLS)
def test_a_python_call_is_read_as_its_arguments_where_a_schema_decides(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "python_call_read")


# echoed_reply_read: a one-key envelope (a payload key or a field's name) whose
# string is a reply of its own (a fence, prose), read as that reply where the
# schema takes it.
class Scroll(BaseModel):
    prompt: str


class Echo(BaseModel):
    output: Scroll
    reasoning: str


INNER = '{"output": {"prompt": "a scroll"}, "reasoning": "asked for one"}'
FENCED = "```json\n" + INNER + "\n```"
ECHOES = [
    (
        orjson.dumps({"output": "\n" + FENCED}).decode(),
        Echo,
        {"output": {"prompt": "a scroll"}, "reasoning": "asked for one"},
    ),
    (
        orjson.dumps({"reasoning": "Here it is:\n" + FENCED}).decode(),
        Echo,
        {"output": {"prompt": "a scroll"}, "reasoning": "asked for one"},
    ),
    # A key that is neither the payload's name nor a field: an error.
    (orjson.dumps({"draft": FENCED}).decode(), Echo, ERROR),
    # Two fences in the string: which one is the reply?
    (orjson.dumps({"output": FENCED + "\n" + FENCED}).decode(), Echo, ERROR),
    # The echoed reply does not match the schema either.
    (orjson.dumps({"output": '```json\n{"prompt": 1}\n```'}).decode(), Echo, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), ECHOES)
def test_an_echoed_reply_in_an_envelope_is_read_as_the_reply(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "echoed_reply_read")


# Payload words: a one-key wrapper whose key is only words that name the
# payload (``json_input``) is unwrapped; any other word keeps the error.
class Scene(BaseModel):
    details: str


WRAPPERS = [
    ('{"json_input": {"details": "x"}}', Scene, {"details": "x"}),
    ('{"outputData": {"details": "x"}}', Scene, {"details": "x"}),
    ('{"json_tool_call": {"details": "x"}}', Scene, ERROR),
    ('{"input_errors": {"details": "x"}}', Scene, ERROR),
    ('{"_": {"details": "x"}}', Scene, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), WRAPPERS)
def test_a_wrapper_of_payload_words_is_unwrapped(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "wrapper_unwrapped")


# lost_closer_added: the root object lost its ``}`` after whole members, the
# model did not say it was cut off, and every field of the schema is there.
class City(BaseModel):
    city: str
    unit: str = "celsius"


class Poem(BaseModel):
    poem: str
    count: int


LOST_CLOSER: list[tuple[str, Any, Any]] = [
    ('{"city": "Rome", "unit": "kelvin"', City, {"city": "Rome", "unit": "kelvin"}),
    (
        '{\n  "poem": "Two lines.",\n  "count": 2\n',
        Poem,
        {"poem": "Two lines.", "count": 2},
    ),
    (
        'Here: {"city": "Rome", "unit": "kelvin"',
        City,
        {"city": "Rome", "unit": "kelvin"},
    ),
    # A field missing: the cut may have taken it (its default would stand in).
    ('{"city": "Rome"', City, ERROR),
    # A number at the end may be cut (``2`` of ``25``).
    ('{"poem": "Two lines.", "count": 2', Poem, ERROR),
    # More than the root open, a key cut, a comma last: not one lost closer.
    ('{"city": "Rome", "unit": ["kelvin"', City, ERROR),
    ('{"city": "Rome", "unit": "kelvin", "no', City, ERROR),
    ('{"city": "Rome", "unit": "kelvin",', City, ERROR),
    # No schema: a cut and a lost closer are two readings.
    ('{"city": "Rome", "unit": "kelvin"', None, ERROR),
]


@pytest.mark.parametrize(("reply", "schema", "expected"), LOST_CLOSER)
def test_a_lost_closer_after_every_field_is_added(
    reply: str, schema: Any, expected: Any
) -> None:
    _assert_row(reply, schema, expected, "lost_closer_added")


def test_a_reply_cut_at_its_token_limit_is_read_as_a_cut() -> None:
    found = extract(
        '{"city": "Rome", "unit": "kelvin"',
        schema=Schema(City),
        repair=True,
        close_truncated=True,
        cut_off=True,
    )
    assert isinstance(found, Extraction)
    assert "lost_closer_added" not in found.repairs
