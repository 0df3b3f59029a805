"""Envelopes with a schema: unwrapped only when the inner value fills a field.

A value that holds the schema's keys and fails is never replaced by a value
made of defaults: the error stands, so the retry chain asks again.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser, SchemaValidationError


class Summary(BaseModel):
    summary: str = ""
    keywords: list[str] = []


class Search(BaseModel):
    city: str | None = None
    max_price: int | None = None


class Person(BaseModel):
    name: str
    age: int


class Settings(BaseModel):
    """A model whose name is also one of its fields."""

    settings: dict[str, int] = {}
    mode: str = "fast"


ERRORS: list[tuple[str, Any, str, list[str]]] = [
    (
        "field_named_like_the_model_is_no_envelope",
        Summary,
        '{"summary": {"text": "Rain all week.", "keywords": ["rain"]}}',
        ["summary"],
    ),
    (
        "failed_arguments_beat_all_defaults",
        Search,
        '{"arguments": {"city": "Paris", "max_price": "cheap"}}',
        ["max_price"],
    ),
    (
        "failed_parameters_beat_all_defaults",
        Search,
        '{"name": "search", "parameters": {"city": "Oslo", "max_price": "low"}}',
        ["max_price"],
    ),
    (
        "echoed_schema_with_failing_data",
        Search,
        '{"type": "object", "properties": {"city": "Paris", "max_price": "cheap"}}',
        ["max_price"],
    ),
    (
        "echoed_schema_without_data",
        Search,
        (
            '{"type": "object", "properties": {"city": {"type": "string"},'
            ' "max_price": {"type": "integer"}}}'
        ),
        ["city", "max_price"],
    ),
    (
        "model_name_field_that_fails",
        Settings,
        '{"settings": {"depth": "deep"}}',
        ["settings.depth"],
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "paths"),
    [row[1:] for row in ERRORS],
    ids=[row[0] for row in ERRORS],
)
def test_failing_schema_keys_are_reported_not_defaulted(
    target: Any, text: str, paths: list[str]
) -> None:
    with pytest.raises(SchemaValidationError) as caught:
        JsonFenceOutputParser(pydantic_object=target).parse(text)
    assert [e["path"] for e in caught.value.errors] == paths


VALUES: list[tuple[str, Any, str, Any, tuple[str, ...]]] = [
    (
        "summary_as_a_string_is_the_field",
        Summary,
        '{"summary": "Rain all week.", "keywords": ["rain"]}',
        Summary(summary="Rain all week.", keywords=["rain"]),
        (),
    ),
    (
        "arguments_that_fill_a_field",
        Search,
        '{"arguments": {"city": "Paris"}}',
        Search(city="Paris"),
        ("unwrapped_arguments",),
    ),
    (
        "model_name_field_that_validates",
        Settings,
        '{"settings": {"depth": 3}}',
        Settings(settings={"depth": 3}),
        (),
    ),
    (
        "model_name_envelope_still_unwrapped",
        Person,
        '{"person": {"name": "Ada", "age": 36}}',
        Person(name="Ada", age=36),
        ("unwrapped_model_name",),
    ),
]


@pytest.mark.parametrize(
    "text", ['{"arguments": {"town": "Paris"}}', '{"arguments": {}}']
)
def test_an_envelope_that_fills_nothing_is_an_error(text: str) -> None:
    # All defaults would validate, and "Paris" would be lost without a word.
    with pytest.raises(SchemaValidationError, match="none of the schema's fields"):
        JsonFenceOutputParser(pydantic_object=Search).parse(text)


@pytest.mark.parametrize(
    ("target", "text", "expected", "repairs"),
    [row[1:] for row in VALUES],
    ids=[row[0] for row in VALUES],
)
def test_envelope_unwrapped_only_when_it_fills_a_field(
    target: Any, text: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    found = JsonFenceOutputParser(pydantic_object=target).extract(text)
    assert found.value == expected
    assert found.repairs == repairs
