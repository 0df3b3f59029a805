"""Static types: mypy checks these ``assert_type`` calls when it checks tests/."""

from __future__ import annotations

from typing import Any, assert_type

from pydantic import BaseModel

from langchain_jsonrecover import (
    Continue,
    Halt,
    JsonFenceOutputParser,
    RegexJsonOutputParser,
)


class Person(BaseModel):
    name: str


def test_schema_parser_returns_the_model() -> None:
    parser = JsonFenceOutputParser(pydantic_object=Person)
    assert_type(parser, JsonFenceOutputParser[Person])
    assert_type(parser.parse('{"name": "Ada"}'), Person)
    assert_type(parser.invoke('{"name": "Ada"}'), Person)
    assert parser.parse('{"name": "Ada"}') == Person(name="Ada")


def test_list_schema_returns_a_list() -> None:
    parser = JsonFenceOutputParser(pydantic_object=list[Person])
    assert_type(parser.parse("[]"), list[Person])


def test_plain_parser_returns_any() -> None:
    assert_type(JsonFenceOutputParser().parse("{}"), Any)


def test_dict_schema_returns_a_dict() -> None:
    parser = JsonFenceOutputParser(pydantic_object={"type": "object"})
    assert_type(parser.parse("{}"), dict[str, Any])


def test_regex_parser_with_schema() -> None:
    parser = RegexJsonOutputParser(r"<j>(.*?)</j>", pydantic_object=Person)
    assert_type(parser.parse('<j>{"name": "Ada"}</j>'), Person)


def test_process_is_typed() -> None:
    step = JsonFenceOutputParser(pydantic_object=Person).process('{"name": "Ada"}')
    assert_type(step, Continue[Person] | Halt)
    assert isinstance(step, Continue)
    assert_type(step.value, Person)
