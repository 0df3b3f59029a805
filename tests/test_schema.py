"""Schemas: validation, candidate choice, envelopes, aliases, instructions."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType, TypedDict

from langchain_jsonrecover import (
    Halt,
    InvalidJsonError,
    JsonFenceOutputParser,
    NoJsonFoundError,
    RegexJsonOutputParser,
    SchemaValidationError,
)


class Address(BaseModel):
    city: str


class Person(BaseModel):
    """A person."""

    name: str = Field(description="Full name")
    age: int
    address: Address | None = None
    tags: list[str] = []


class Options(BaseModel):
    """Every field has a default."""

    verbose: bool = False
    level: int = 0


class ChatReply(BaseModel):
    chat_message: str


class Movie(TypedDict):
    title: str
    year: int


@dataclasses.dataclass
class Point:
    x: int
    y: int


ADA = Person(name="Ada", age=36)


def person_parser(**kwargs: Any) -> JsonFenceOutputParser[Person]:
    return JsonFenceOutputParser(pydantic_object=Person, **kwargs)


# Validation targets.

TARGETS: list[tuple[str, Any, str, Any]] = [
    ("model_lax_mode", Person, '{"name": "Ada", "age": "36"}', ADA),
    ("model_in_fence", Person, '```json\n{"name": "Ada", "age": 36}\n```', ADA),
    (
        "typed_dict",
        Movie,
        'Here: {"title": "Alien", "year": "1979"}',
        {"title": "Alien", "year": 1979},
    ),
    ("dataclass", Point, '{"x": 1, "y": "2"}', Point(1, 2)),
    ("list_of_models", list[Person], '[{"name": "Ada", "age": 36}]', [ADA]),
    ("scalar_reply_with_scalar_schema", int, "42", 42),
    (
        "dict_schema",
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        '{"a": 1}',
        {"a": 1},
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "expected"),
    [row[1:] for row in TARGETS],
    ids=[row[0] for row in TARGETS],
)
def test_validates_into_the_target(target: Any, text: str, expected: Any) -> None:
    assert JsonFenceOutputParser(pydantic_object=target).parse(text) == expected


def test_regex_parser_validates_too() -> None:
    parser = RegexJsonOutputParser(r"<json>(.*?)</json>", pydantic_object=Person)
    assert parser.parse('<json>{"name": "Ada", "age": 36}</json>') == ADA


# Which candidate wins.

CHOICE: list[tuple[str, str, dict[str, Any], Any]] = [
    (
        "first_that_validates",
        'Draft: {"foo": 1} Final: {"name": "Ada", "age": 36}',
        {},
        ADA,
    ),
    (
        "prefer_last_takes_the_final_answer",
        'Example: {"name": "Bob", "age": 1}. Answer: {"name": "Ada", "age": 36}',
        {"prefer": "last"},
        ADA,
    ),
    (
        "prefer_last_skips_injected_json_before",
        '{"name": "Eve", "age": 0} ```json\n{"name": "Ada", "age": 36}\n```',
        {"prefer": "last"},
        ADA,
    ),
    (
        "later_fence_validates",
        '```json\n{"foo": 1}\n```\n```json\n{"name": "Ada", "age": 36}\n```',
        {},
        ADA,
    ),
]


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [row[1:] for row in CHOICE],
    ids=[row[0] for row in CHOICE],
)
def test_candidate_choice(text: str, options: dict[str, Any], expected: Any) -> None:
    assert person_parser(**options).parse(text) == expected


def test_prefer_first_raises_on_an_example_beside_the_answer() -> None:
    # Issue 21: a value labelled an example with another value beside it is
    # two readings (it gave the example, Bob, before).
    text = 'Example: {"name": "Bob", "age": 1}. Answer: {"name": "Ada", "age": 36}'
    with pytest.raises(SchemaValidationError, match="two readings"):
        person_parser().parse(text)


def test_prefer_last_without_schema() -> None:
    parser = JsonFenceOutputParser(prefer="last")
    assert parser.parse('Example: {"a": 0}. Answer: {"a": 1}') == {"a": 1}


def test_prefer_last_with_regex() -> None:
    parser = RegexJsonOutputParser(r"<j>(.*?)</j>", prefer="last")
    assert parser.parse("<j>[1]</j> <j>[2]</j>") == [2]


def test_none_validates_first_candidates_error() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        person_parser().parse('A: {"name": "Bob"} B: {"age": 3}')
    assert caught.value.errors == [
        {"path": "age", "message": "Field required", "value": ""}
    ]
    assert caught.value.value == {"name": "Bob"}


def test_first_candidate_decode_error_wins_over_later_schema_error() -> None:
    with pytest.raises(InvalidJsonError):
        person_parser().parse(
            '```json\n{"name": "Bob",}\n```\n```json\n{"age": 3}\n```'
        )


def test_bare_scalar_is_no_candidate_without_schema() -> None:
    with pytest.raises(NoJsonFoundError):
        JsonFenceOutputParser().parse("42")


# Envelopes.

ENVELOPES: list[tuple[str, str, str]] = [
    ("arguments", '{"arguments": {"name": "Ada", "age": 36}}', "unwrapped_arguments"),
    (
        "arguments_as_json_string",
        '{"name": "person", "arguments": "{\\"name\\": \\"Ada\\", \\"age\\": 36}"}',
        "unwrapped_arguments",
    ),
    (
        "name_and_parameters",
        '{"name": "Person", "parameters": {"name": "Ada", "age": 36}}',
        "unwrapped_parameters",
    ),
    (
        "schema_echoed",
        '{"type": "object", "properties": {"name": "Ada", "age": 36}}',
        "unwrapped_properties",
    ),
    ("model_name", '{"Person": {"name": "Ada", "age": 36}}', "unwrapped_model_name"),
    (
        "model_name_any_case",
        '{"person": {"name": "Ada", "age": 36}}',
        "unwrapped_model_name",
    ),
    (
        "double_encoded_reply",
        '"{\\"name\\": \\"Ada\\", \\"age\\": 36}"',
        "decoded_json_string",
    ),
    (
        "double_encoded_in_fence",
        '```json\n"{\\"name\\": \\"Ada\\", \\"age\\": 36}"\n```',
        "decoded_json_string",
    ),
]


@pytest.mark.parametrize(
    ("text", "repair"),
    [row[1:] for row in ENVELOPES],
    ids=[row[0] for row in ENVELOPES],
)
def test_envelope_unwrapped_and_listed(text: str, repair: str) -> None:
    found = person_parser().extract(text)
    assert found.value == ADA
    assert found.repairs[-1] == repair


def test_envelopes_need_a_schema() -> None:
    assert JsonFenceOutputParser().parse('{"arguments": {"a": 1}}') == {
        "arguments": {"a": 1}
    }


def test_outer_value_that_validates_is_kept() -> None:
    class Call(BaseModel):
        arguments: dict[str, int]

    parser = JsonFenceOutputParser(pydantic_object=Call)
    assert parser.parse('{"arguments": {"a": 1}}') == Call(arguments={"a": 1})


def test_envelope_around_a_model_with_defaults_is_unwrapped() -> None:
    parser = JsonFenceOutputParser(pydantic_object=Options)
    found = parser.extract('{"arguments": {"verbose": true, "level": 2}}')
    assert found.value == Options(verbose=True, level=2)
    assert found.repairs == ("unwrapped_arguments",)


def test_inner_errors_surface_when_inner_was_meant_for_us() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        person_parser().parse('{"arguments": {"name": "Ada", "age": "old"}}')
    assert [e["path"] for e in caught.value.errors] == ["age"]


def test_outer_errors_stand_when_inner_is_not_ours() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        person_parser().parse('{"arguments": {"foo": 1}}')
    assert [e["path"] for e in caught.value.errors] == ["name", "age"]


def test_only_one_level_is_unwrapped() -> None:
    with pytest.raises(SchemaValidationError):
        person_parser().parse(
            '{"arguments": {"arguments": {"name": "Ada", "age": 36}}}'
        )


# Field aliases.

ALIASES = {
    "response": "chat_message",
    "message": "chat_message",
    "text": "chat_message",
}


@pytest.mark.parametrize("key", ["response", "message", "text", "chat_message"])
def test_field_aliases_rename_top_level_keys(key: str) -> None:
    parser = JsonFenceOutputParser(pydantic_object=ChatReply, field_aliases=ALIASES)
    assert parser.parse(f'{{"{key}": "hi"}}') == ChatReply(chat_message="hi")


def test_field_alias_listed_as_repair() -> None:
    parser = JsonFenceOutputParser(pydantic_object=ChatReply, field_aliases=ALIASES)
    assert parser.extract('{"text": "hi"}').repairs == ("fields_renamed",)


def test_field_alias_beside_the_real_key_of_the_same_value_is_one_reading() -> None:
    parser = JsonFenceOutputParser(pydantic_object=ChatReply, field_aliases=ALIASES)
    assert parser.parse('{"text": "hi", "chat_message": "hi"}').chat_message == "hi"


def test_field_aliases_apply_inside_envelopes() -> None:
    parser = JsonFenceOutputParser(pydantic_object=ChatReply, field_aliases=ALIASES)
    assert parser.parse('{"arguments": {"response": "hi"}}') == ChatReply(
        chat_message="hi"
    )


def test_field_aliases_need_a_schema() -> None:
    with pytest.raises(ValueError, match="give pydantic_object"):
        JsonFenceOutputParser(field_aliases={"a": "b"})


# JSON-schema dicts.

DICT_SCHEMA = {
    "title": "Item",
    "type": "object",
    "properties": {"id": {"type": "integer"}, "label": {"type": "string"}},
    "required": ["id"],
}


def test_dict_schema_errors() -> None:
    parser = JsonFenceOutputParser(pydantic_object=DICT_SCHEMA)
    with pytest.raises(SchemaValidationError) as caught:
        parser.parse('{"label": 3}')
    assert [e["path"] for e in caught.value.errors] == ["", "label"]


def test_dict_schema_without_jsonschema_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.import_module

    def no_jsonschema(name: str, package: str | None = None) -> Any:
        if name == "jsonschema":
            raise ImportError(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", no_jsonschema)
    with pytest.raises(
        ValueError, match=r"pip install 'langchain-jsonrecover\[jsonschema\]'"
    ):
        JsonFenceOutputParser(pydantic_object=DICT_SCHEMA)


def test_invalid_dict_schema_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="not a valid JSON schema"):
        JsonFenceOutputParser(pydantic_object={"type": 12})


def test_unusable_schema_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="not a usable schema"):
        JsonFenceOutputParser(pydantic_object=object())  # type: ignore[call-overload]


# The error and its texts, word for word.


def test_schema_error_message_and_observation() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        person_parser().parse(
            '{"name": "Ada", "age": "thirty", "address": {"city": null}}'
        )
    error = caught.value
    assert str(error) == (
        "The JSON does not match the schema Person (2 errors):\n"
        '  age: Input should be a valid integer, unable to parse string as an integer (got "thirty")\n'
        "  address.city: Input should be a valid string (got null)"
    )
    assert error.observation == (
        "Your JSON does not match the schema:\n"
        '- age: Input should be a valid integer, unable to parse string as an integer (got "thirty")\n'
        "- address.city: Input should be a valid string (got null)\n"
        "Respond with only the corrected JSON object, and nothing else.\n"
        "\n" + PERSON_FIELDS
    )
    assert "https://" not in str(error)
    assert "https://" not in (error.observation or "")


def test_long_values_cut_short() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        person_parser().parse('{"name": "Ada", "age": "' + "9x" * 100 + '"}')
    value = caught.value.errors[0]["value"]
    assert len(value) == 60
    assert value.endswith("…")


def test_many_errors_summarised() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        JsonFenceOutputParser(pydantic_object=list[int]).parse(
            str(list("abcdefghijkl")).replace("'", '"')
        )
    assert str(caught.value).endswith("… and 2 more")
    assert len(caught.value.errors) == 12


PERSON_FIELDS = (
    "The JSON object has these fields:\n"
    '- "name" (string, required): Full name\n'
    '- "age" (integer, required)\n'
    '- "address" (object or null, optional, default null), with fields:\n'
    '  - "city" (string, required)\n'
    '- "tags" (array of string, optional, default [])'
)

FEEDBACK: list[tuple[str, str, str]] = [
    (
        "no_json",
        "I don't know.",
        "Your reply contains no JSON. Respond with only the JSON object, and nothing else.",
    ),
    (
        "invalid_json",
        '{"name": "Ada" "age": 36}',
        (
            "Your reply is not valid JSON: expected ',' or '}' at line 1, column 16. "
            "Respond with only the corrected JSON object, and nothing else."
        ),
    ),
    (
        "cut_off",
        '{"name": "Ada", "age": 3',
        (
            "Your reply stops before the JSON is complete. Respond with the complete "
            "JSON object, and nothing else; make it shorter if needed."
        ),
    ),
    (
        "only_reasoning",
        "<think>The answer is",
        (
            "Your reply contains only reasoning and no JSON. After your reasoning, "
            "respond with only the JSON object, and nothing else."
        ),
    ),
    (
        "schema",
        '{"name": "Ada"}',
        (
            "Your JSON does not match the schema:\n- age: Field required\n"
            "Respond with only the corrected JSON object, and nothing else."
        ),
    ),
]


@pytest.mark.parametrize(
    ("text", "feedback"),
    [row[1:] for row in FEEDBACK],
    ids=[row[0] for row in FEEDBACK],
)
def test_feedback_word_for_word_with_schema(text: str, feedback: str) -> None:
    step = person_parser(repair=False).process(text)  # the strict decoder's words
    assert isinstance(step, Halt)
    assert step.feedback.content == f"{feedback}\n\n{PERSON_FIELDS}"


@pytest.mark.parametrize(
    ("text", "feedback"),
    [row[1:] for row in FEEDBACK[:4]],
    ids=[row[0] for row in FEEDBACK[:4]],
)
def test_feedback_word_for_word_without_schema(text: str, feedback: str) -> None:
    step = JsonFenceOutputParser(repair=False).process(text)
    assert isinstance(step, Halt)
    assert step.feedback.content == feedback


def test_feedback_for_a_list_schema_names_an_array() -> None:
    step = JsonFenceOutputParser(pydantic_object=list[Point]).process("no")
    assert isinstance(step, Halt)
    assert step.feedback.content == (
        "Your reply contains no JSON. Respond with only the JSON array, and nothing else.\n\n"
        "The JSON array holds objects with these fields:\n"
        '- "x" (integer, required)\n'
        '- "y" (integer, required)'
    )


# Format instructions.

INSTRUCTIONS: list[tuple[str, Any, str]] = [
    (
        "model",
        Person,
        PERSON_FIELDS
        + "\n\nRespond with only one JSON object: no prose before or after it, no markdown code fences.",
    ),
    (
        "typed_dict",
        Movie,
        (
            'The JSON object has these fields:\n- "title" (string, required)\n- "year" (integer, required)\n\n'
            "Respond with only one JSON object: no prose before or after it, no markdown code fences."
        ),
    ),
    (
        "scalar",
        int,
        (
            "The JSON is an integer.\n\n"
            "Respond with only one JSON value: no prose before or after it, no markdown code fences."
        ),
    ),
    (
        "list_of_strings",
        list[str],
        (
            "The JSON is an array of string.\n\n"
            "Respond with only one JSON array: no prose before or after it, no markdown code fences."
        ),
    ),
    (
        "dict_schema",
        DICT_SCHEMA,
        (
            'The JSON object has these fields:\n- "id" (integer, required)\n- "label" (string, optional)\n\n'
            "Respond with only one JSON object: no prose before or after it, no markdown code fences."
        ),
    ),
    (
        "none",
        None,
        "Respond with only one JSON object: no prose before or after it, no markdown code fences.",
    ),
]


@pytest.mark.parametrize(
    ("target", "expected"),
    [row[1:] for row in INSTRUCTIONS],
    ids=[row[0] for row in INSTRUCTIONS],
)
def test_format_instructions(target: Any, expected: str) -> None:
    instructions = JsonFenceOutputParser(
        pydantic_object=target
    ).get_format_instructions()
    assert instructions == expected
    assert '"properties"' not in instructions
    assert "Title" not in instructions  # pydantic's titles are noise


def test_format_instructions_enum_and_recursive_model() -> None:
    from typing import Literal  # noqa: PLC0415

    class Node(BaseModel):
        kind: Literal["leaf", "branch"]
        children: list[Node] = []

    text = JsonFenceOutputParser(pydantic_object=Node).get_format_instructions()
    assert '- "kind" (one of "leaf", "branch", required)' in text
    assert (
        '- "children" (array of Node objects, optional, default []), '
        "with fields as for Node above"
    ) in text


# LangChain's view of the output type.


def test_output_type_reports_the_schema() -> None:
    assert person_parser().OutputType is Person
    assert person_parser().get_output_schema() is Person
    assert (
        JsonFenceOutputParser(pydantic_object=DICT_SCHEMA).OutputType == dict[str, Any]
    )
    assert JsonFenceOutputParser().OutputType is Any


def test_example_with_defaults_only_does_not_beat_the_answer() -> None:
    parser = JsonFenceOutputParser(pydantic_object=Options)
    assert parser.parse('Example: {"foo": 1}. Answer: {"verbose": true}') == Options(
        verbose=True
    )
    # Alone, a value holding none of the fields fills nothing from the reply:
    # all defaults would pass validation, and nobody would ask again.
    with pytest.raises(SchemaValidationError, match="none of the schema's fields"):
        parser.parse('{"foo": 1}')
    assert parser.parse("{}") == Options()


JsonAlias = TypeAliasType(
    "JsonAlias", "dict[str, JsonAlias] | list[JsonAlias] | str | int | None"
)


class Holder(BaseModel):
    data: JsonAlias


def test_recursive_type_alias_schema_has_instructions() -> None:
    parser = JsonFenceOutputParser(pydantic_object=Holder)
    assert '"data"' in parser.get_format_instructions()
    assert parser.parse('{"data": {"a": [1, "x"]}}') == Holder(data={"a": [1, "x"]})


def test_array_schema_with_boolean_items() -> None:
    parser = JsonFenceOutputParser(pydantic_object={"type": "array", "items": True})
    assert parser.get_format_instructions().startswith("The JSON is an array.")
    result: Any = parser.parse("[1, 2]")
    assert result == [1, 2]
