"""Format instructions say everything validation checks (``_instructions.py``).

Every union member with its fields and discriminator, every constraint in
words, ``Literal`` and enum values, closed objects, defaults; recursive and
shared definitions named instead of written out again; bounded on deep and
cyclic schemas; no longer than 1.5x the old text on plain models.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from _json_values import SETTINGS
from _plain_models import PLAIN, Node, Order
from hypothesis import given
from hypothesis import strategies as st
from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.prompts import instructions
from langchain_jsonrecover._core.prompts.instructions import shape_of
from langchain_jsonrecover._core.schema.validate import Schema

FIXTURES = Path(__file__).parent / "fixtures"


class Cat(BaseModel):
    pet_type: Literal["cat"] = "cat"
    meows: int


class Dog(BaseModel):
    pet_type: Literal["dog"]
    barks: float


class Lizard(BaseModel):
    pet_type: Literal["lizard", "gecko"]
    scales: bool = True


class Owner(BaseModel):
    pet: Annotated[Cat | Dog | Lizard, Field(discriminator="pet_type")]


class MaybeOwner(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="pet_type")] | None = None
    pets: list[Annotated[Cat | Dog, Field(discriminator="pet_type")]] = []


class Mixed(BaseModel):
    value: Cat | int | None


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Choices(BaseModel):
    color: Color = Color.RED
    level: Level
    mode: Literal["fast", "slow"]
    answer: Literal[42]
    colors: list[Color] = []


class Constrained(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(pattern=r"^[A-Z]{3}\d$", min_length=4, max_length=4)
    name: str = Field(min_length=1)
    count: int = Field(gt=0, le=10, multiple_of=2)
    ratio: float = Field(ge=0, lt=1)
    tags: list[Annotated[str, Field(max_length=8)]] = Field(min_length=1, max_length=5)
    pair: tuple[int, str]
    score: Annotated[int, Field(ge=0)] | None = None


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    x: int


class Outer(BaseModel):
    inner: Inner
    labels: dict[str, Inner] = {}


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    full_name: str = Field(alias="fullName", description="As on the passport")
    birth_year: int = Field(validation_alias=AliasChoices("birthYear", "born"))


class Home(BaseModel):
    street: str


class Family(BaseModel):
    home: Home
    holiday_home: Home | None = None


class Employee(BaseModel):
    name: str
    manager: Employee | None = None
    team: Team | None = None


class Team(BaseModel):
    lead: Employee
    members: list[Employee] = []


class WithDefaults(BaseModel):
    options: dict[str, Any] = {"colours": ["red", "green", "blue"], "size": "large"}


JsonAlias = TypeAliasType(
    "JsonAlias", "dict[str, JsonAlias] | list[JsonAlias] | str | int | None"
)


class Holder(BaseModel):
    data: JsonAlias


SELF_REFERENCING: dict[str, Any] = {
    "title": "Tree",
    "type": "object",
    "properties": {
        "value": {"type": "integer", "minimum": 0, "exclusiveMaximum": 100},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
    "required": ["value"],
}

DRAFT_4: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {
        "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        "code": {"type": ["string", "null"], "maxLength": 5},
        "ids": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
        "meta": {"type": "object", "minProperties": 1},
    },
    "required": ["price"],
}

OPENAPI_UNION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "shape": {
            "oneOf": [
                {"$ref": "#/definitions/Circle"},
                {"$ref": "#/definitions/Square"},
            ],
            "discriminator": {"propertyName": "kind"},
        },
        "note": {"allOf": [{"$ref": "#/definitions/Note"}], "description": "Why"},
    },
    "required": ["shape"],
    "definitions": {
        "Circle": {
            "type": "object",
            "properties": {"kind": {"enum": ["circle"]}, "r": {"type": "number"}},
            "required": ["kind", "r"],
        },
        "Square": {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["side"],
        },
        "Note": {"type": "string", "maxLength": 80},
    },
}


def fields_of(target: Any) -> str:
    schema = Schema(target)
    return shape_of(schema.json_schema, schema.name).fields


def noun_of(target: Any) -> str:
    schema = Schema(target)
    return shape_of(schema.json_schema, schema.name).noun


CAT_DOG_MEMBERS = (
    "- Cat, with fields:\n"
    '  - "pet_type" (exactly "cat", optional)\n'
    '  - "meows" (integer, required)\n'
    "- Dog, with fields:\n"
    '  - "pet_type" (exactly "dog", required)\n'
    '  - "barks" (number, required)'
)

CASES: list[tuple[str, Any, str, str]] = [
    (
        "nested_models_with_defaults",
        Order,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "id" (integer, required)\n'
            '- "customer" (object, required), with fields:\n'
            '  - "name" (string, required): Full name\n'
            '  - "age" (integer, required)\n'
            '- "shipping" (object or null, optional, default null), with fields:\n'
            '  - "street" (string, required)\n'
            '  - "city" (string, required)\n'
            '  - "country" (string, optional, default "UK")\n'
            '- "items" (array of objects, required), with fields:\n'
            '  - "sku" (string, required): Stock keeping unit\n'
            '  - "quantity" (integer, required)\n'
            '  - "unit_price" (number, required)\n'
            '- "notes" (array of string, optional, default [])\n'
            '- "paid" (boolean, optional, default false)'
        ),
    ),
    (
        "discriminated_union_every_member_its_tag_required",
        Owner,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "pet" (object, required), one of (chosen by "pet_type"):\n'
            "  - Cat, with fields:\n"
            '    - "pet_type" (exactly "cat", required)\n'
            '    - "meows" (integer, required)\n'
            "  - Dog, with fields:\n"
            '    - "pet_type" (exactly "dog", required)\n'
            '    - "barks" (number, required)\n'
            "  - Lizard, with fields:\n"
            '    - "pet_type" (one of "lizard", "gecko", required)\n'
            '    - "scales" (boolean, optional, default true)'
        ),
    ),
    (
        "optional_and_listed_discriminated_unions_name_members_written_before",
        MaybeOwner,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "pet" (Cat object or Dog object or null, optional, default null), '
            'one of (chosen by "pet_type"):\n'
            "  - Cat, with fields:\n"
            '    - "pet_type" (exactly "cat", required)\n'
            '    - "meows" (integer, required)\n'
            "  - Dog, with fields:\n"
            '    - "pet_type" (exactly "dog", required)\n'
            '    - "barks" (number, required)\n'
            '- "pets" (array of (Cat object or Dog object), optional, default []), '
            'each one of (chosen by "pet_type"):\n'
            "  - Cat (fields as above)\n"
            "  - Dog (fields as above)"
        ),
    ),
    (
        "union_of_a_model_and_a_scalar",
        Mixed,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "value" (object or integer or null, required), one of:\n'
            "  - Cat, with fields:\n"
            '    - "pet_type" (exactly "cat", optional)\n'
            '    - "meows" (integer, required)\n'
            "  - integer"
        ),
    ),
    (
        "top_level_union",
        Cat | Dog,
        "JSON object",
        "The JSON object is one of these:\n" + CAT_DOG_MEMBERS,
    ),
    (
        "top_level_union_or_null",
        Cat | Dog | None,
        "JSON value",
        "The JSON object is one of these:\n"
        + CAT_DOG_MEMBERS
        + "\nThe JSON may also be null.",
    ),
    (
        "array_of_a_union",
        list[Cat | Dog],
        "JSON array",
        "The JSON array holds items, each one of these:\n" + CAT_DOG_MEMBERS,
    ),
    (
        "enum_and_literal_values",
        Choices,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "color" (one of "red", "green", optional, default "red")\n'
            '- "level" (one of 1, 2, required)\n'
            '- "mode" (one of "fast", "slow", required)\n'
            '- "answer" (exactly 42, required)\n'
            '- "colors" (array of (one of "red", "green"), optional, default [])'
        ),
    ),
    (
        "constraints_in_words_and_no_other_fields",
        Constrained,
        "JSON object",
        (
            "The JSON object has these fields and no others:\n"
            '- "code" (string, exactly 4 characters, matching the regex `^[A-Z]{3}\\d$`, '
            "required)\n"
            '- "name" (string, at least 1 character, required)\n'
            '- "count" (integer, greater than 0, at most 10, a multiple of 2, required)\n'
            '- "ratio" (number, at least 0, less than 1, required)\n'
            '- "tags" (array of string (at most 8 characters), 1 to 5 items, required)\n'
            '- "pair" (array [integer, string], exactly 2 items, required)\n'
            '- "score" (integer (at least 0) or null, optional, default null)'
        ),
    ),
    (
        "closed_nested_model_and_dict_of_models",
        Outer,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "inner" (Inner object, required), with these fields and no others:\n'
            '  - "x" (integer, required)\n'
            '- "labels" (object with Inner object values, optional, default {}), '
            "with fields as for Inner above"
        ),
    ),
    (
        "aliases_are_the_names_to_send",
        Aliased,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "fullName" (string, required): As on the passport\n'
            '- "birthYear" (integer, required)'
        ),
    ),
    (
        "a_model_used_twice_is_written_once",
        Family,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "home" (Home object, required), with fields:\n'
            '  - "street" (string, required)\n'
            '- "holiday_home" (Home object or null, optional, default null), '
            "with fields as for Home above"
        ),
    ),
    (
        "recursive_model_is_named_not_expanded",
        Node,
        "JSON object",
        (
            "The JSON object (Node) has these fields:\n"
            '- "kind" (one of "leaf", "branch", required)\n'
            '- "children" (array of Node objects, optional, default []), '
            "with fields as for Node above"
        ),
    ),
    (
        "mutually_recursive_models",
        Employee,
        "JSON object",
        (
            "The JSON object (Employee) has these fields:\n"
            '- "name" (string, required)\n'
            '- "manager" (Employee object or null, optional, default null), '
            "with fields as for Employee above\n"
            '- "team" (object or null, optional, default null), with fields:\n'
            '  - "lead" (Employee object, required), with fields as for Employee above\n'
            '  - "members" (array of Employee objects, optional, default []), '
            "with fields as for Employee above"
        ),
    ),
    (
        "recursive_type_alias_is_named",
        Holder,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "data" (JsonAlias = object with JsonAlias values or array of JsonAlias '
            "or string or integer or null, required)"
        ),
    ),
    (
        "long_default_cut_short",
        WithDefaults,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "options" (object, optional, default '
            '{"colours":["red","green","blue"],"size":"large"})'
        ),
    ),
    (
        "dict_of_models",
        dict[str, Cat],
        "JSON object",
        (
            "The JSON object maps each key to an object with these fields:\n"
            '- "pet_type" (exactly "cat", optional)\n'
            '- "meows" (integer, required)'
        ),
    ),
    (
        "array_with_item_counts",
        Annotated[list[Cat], Field(min_length=1)],
        "JSON array",
        (
            "The JSON array (at least 1 item) holds objects with these fields:\n"
            '- "pet_type" (exactly "cat", optional)\n'
            '- "meows" (integer, required)'
        ),
    ),
    ("top_level_enum", Color, "JSON value", 'The JSON is one of "red", "green".'),
    ("top_level_literal", Literal["a"], "JSON value", 'The JSON is exactly "a".'),
    (
        "nested_arrays_grouped",
        list[list[str | None]],
        "JSON array",
        "The JSON is an array of array of (string or null).",
    ),
    (
        "json_schema_refers_to_its_root",
        SELF_REFERENCING,
        "JSON object",
        (
            "The JSON object (Tree) has these fields:\n"
            '- "value" (integer, at least 0, less than 100, required)\n'
            '- "children" (array of Tree objects, optional), with fields as for Tree above'
        ),
    ),
    (
        "json_schema_draft_4_bounds_and_counts",
        DRAFT_4,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "price" (number, greater than 0, required)\n'
            '- "code" (string or null, at most 5 characters, optional)\n'
            '- "ids" (array of integer, no repeated items, optional)\n'
            '- "meta" (object, at least 1 key, optional)'
        ),
    ),
    (
        "json_schema_openapi_discriminator_and_all_of",
        OPENAPI_UNION,
        "JSON object",
        (
            "The JSON object has these fields:\n"
            '- "shape" (object, required), one of (chosen by "kind"):\n'
            "  - Circle, with fields:\n"
            '    - "kind" (exactly "circle", required)\n'
            '    - "r" (number, required)\n'
            "  - Square, with fields:\n"
            '    - "kind" (exactly "square", required)\n'
            '    - "side" (number, required)\n'
            '- "note" (string, at most 80 characters, optional): Why'
        ),
    ),
]


@pytest.mark.parametrize(
    ("target", "noun", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_instructions_say_what_validation_checks(
    target: Any, noun: str, expected: str
) -> None:
    assert fields_of(target) == expected
    assert noun_of(target) == noun


def test_parser_instructions_list_the_union_then_what_to_send() -> None:
    target: Any = Cat | Dog
    text = JsonFenceOutputParser(pydantic_object=target).get_format_instructions()
    assert text == (
        "The JSON object is one of these:\n"
        + CAT_DOG_MEMBERS
        + "\n\nRespond with only one JSON object: no prose before or after it, "
        "no markdown code fences."
    )


def test_feedback_on_a_schema_error_lists_the_members() -> None:
    step = JsonFenceOutputParser(pydantic_object=Owner).process('{"pet": {"x": 1}}')
    assert not hasattr(step, "value")
    assert '- "pet_type" (exactly "cat", required)' in str(step.feedback.content)


@pytest.mark.parametrize(
    ("reply", "valid"),
    [
        ('{"pet": {"meows": 1}}', False),
        ('{"pet": {"pet_type": "cat", "meows": 1}}', True),
    ],
    ids=["tag_left_to_its_default", "tag_sent"],
)
def test_a_discriminator_with_a_default_is_required_as_the_text_says(
    reply: str, valid: bool
) -> None:
    assert '"pet_type" (exactly "cat", required)' in fields_of(Owner)
    step = JsonFenceOutputParser(pydantic_object=Owner).process(reply)
    assert hasattr(step, "value") is valid


def test_fixture_holds_every_plain_model() -> None:
    before = json.loads((FIXTURES / "instructions_before.json").read_text("utf-8"))
    assert sorted(before) == sorted(PLAIN)


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_models_stay_within_one_and_a_half_times_the_old_text(
    name: str,
) -> None:
    before = json.loads((FIXTURES / "instructions_before.json").read_text("utf-8"))
    now = JsonFenceOutputParser(pydantic_object=PLAIN[name]).get_format_instructions()
    assert len(now) <= 1.5 * len(before[name])
    # Every field named before is named now.
    for line in before[name].splitlines():
        if line.lstrip().startswith('- "'):
            assert line.split("(")[0].strip() in now


# --- bounded on deep, cyclic and odd schemas ------------------------------------


def deep_objects(n: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(n):
        node = {"type": "object", "properties": {"a": node}, "required": ["a"]}
    return node


def deep_arrays(n: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "integer"}
    for _ in range(n):
        node = {"type": "array", "items": node}
    return {"type": "object", "properties": {"a": node}}


def deep_unions(n: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string"}}}
    for _ in range(n):
        node = {"anyOf": [node, {"type": "null"}]}
    return {"type": "object", "properties": {"a": node}}


def deep_refs(n: int) -> dict[str, Any]:
    defs = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(n)}
    defs[f"D{n}"] = {"type": "integer"}
    return {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/D0"}},
        "$defs": defs,
    }


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (deep_objects(5000), "with fields nested too deep to list"),
        (deep_arrays(5000), "array of array of"),
        (deep_unions(5000), '"a" (object or null, optional), with fields:'),
        (deep_refs(5000), '"a" (any JSON value, optional)'),
        (
            {
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            },
            '"a" (any JSON value, optional)',
        ),
        (
            {"properties": {"a": {"$ref": "#/$defs/Missing"}}},
            '"a" (any JSON value, optional)',
        ),
        (
            {
                "properties": {
                    "a": {"enum": "red", "items": True, "minLength": "3"},
                    "b": {"type": "array", "items": [], "maxItems": None},
                    "c": {"anyOf": ["x", {"type": "null"}]},
                },
                "required": None,
            },
            '"b" (array, optional)',
        ),
    ],
    ids=[
        "5000_nested_objects",
        "5000_nested_arrays",
        "5000_nested_unions",
        "5000_chained_refs",
        "refs_in_a_cycle",
        "ref_to_nothing",
        "values_of_the_wrong_type",
    ],
)
def test_deep_cyclic_and_odd_schemas_are_described_within_bounds(
    schema: dict[str, Any], says: str
) -> None:
    text = shape_of(schema).fields
    assert says in text
    assert len(text) < 3000


def shared_unions(n: int) -> dict[str, Any]:
    """Each definition a union of the next one twice over: 2**n paths."""
    defs: dict[str, Any] = {
        f"U{i}": {
            "anyOf": [
                {"$ref": f"#/$defs/U{i + 1}"},
                {"type": "array", "items": {"$ref": f"#/$defs/U{i + 1}"}},
                {"type": "object", "properties": {"u": {"$ref": f"#/$defs/U{i + 1}"}}},
            ]
        }
        for i in range(n)
    }
    defs[f"U{n}"] = {"type": "object", "properties": {"leaf": {"type": "integer"}}}
    fields = {f"f{i}": {"$ref": f"#/$defs/U{i}"} for i in range(n)}
    return {"type": "object", "properties": fields, "$defs": defs}


def wide_models(n: int) -> dict[str, Any]:
    """n fields, each a model holding two references to one shared model."""
    shared = {"type": "object", "properties": {"s": {"type": "string"}}}
    defs: dict[str, Any] = {"Shared": shared}
    for i in range(n):
        defs[f"M{i}"] = {
            "type": "object",
            "properties": {
                "x": {"$ref": "#/$defs/Shared"},
                "y": {"type": "array", "items": {"$ref": "#/$defs/Shared"}},
            },
        }
    fields = {f"f{i}": {"$ref": f"#/$defs/M{i}"} for i in range(n)}
    return {"type": "object", "properties": fields, "$defs": defs}


@pytest.mark.parametrize("build", [shared_unions, wide_models])
def test_work_and_text_grow_linearly_with_the_schema(
    build: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    follow = instructions._Writer.follow

    def counted(self: Any, node: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        return follow(self, node)

    monkeypatch.setattr(instructions._Writer, "follow", counted)
    work, size = [], []
    for n in (60, 120):
        calls = 0
        size.append(len(shape_of(build(n)).fields))
        work.append(calls)
    assert work[1] <= 2.5 * work[0]
    assert size[1] <= 2.5 * size[0]


class Shelter(BaseModel):
    any_pet: Cat | Dog
    tagged_pet: Annotated[Cat | Dog, Field(discriminator="pet_type")]


def test_a_member_written_without_its_tag_says_the_tag_is_required_later() -> None:
    assert fields_of(Shelter) == (
        "The JSON object has these fields:\n"
        '- "any_pet" (Cat object or Dog object, required), one of:\n'
        "  - Cat, with fields:\n"
        '    - "pet_type" (exactly "cat", optional)\n'
        '    - "meows" (integer, required)\n'
        "  - Dog, with fields:\n"
        '    - "pet_type" (exactly "dog", required)\n'
        '    - "barks" (number, required)\n'
        '- "tagged_pet" (Cat object or Dog object, required), '
        'one of (chosen by "pet_type"):\n'
        '  - Cat (fields as above, with "pet_type" required)\n'
        '  - Dog (fields as above, with "pet_type" required)'
    )


def test_schemas_guide_shows_what_its_example_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = Path(__file__).parents[1] / "docs" / "guides" / "schemas.md"
    guide = source.read_text("utf-8")
    section = guide.split("## Format instructions:", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    exec(compile(code, str(source), "exec", dont_inherit=True), {})  # noqa: S102
    assert capsys.readouterr().out == shown


ALL_OF: dict[str, Any] = {
    "allOf": [
        {"$ref": "#/$defs/Base"},
        {
            "properties": {"size": {"type": "integer", "minimum": 1}},
            "required": ["size"],
        },
    ],
    "properties": {"note": {"type": "string"}},
    "$defs": {
        "Base": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        }
    },
}


def test_all_of_merges_the_fields_of_its_members() -> None:
    assert shape_of(ALL_OF).fields == (
        "The JSON object has these fields:\n"
        '- "id" (string, required)\n'
        '- "size" (integer, at least 1, required)\n'
        '- "note" (string, optional)'
    )


# --- any JSON as a schema ---------------------------------------------------------

KEYWORDS = [
    "$ref",
    "$defs",
    "properties",
    "required",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "type",
    "default",
    "description",
    "title",
    "discriminator",
    "propertyName",
    "additionalProperties",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minItems",
    "pattern",
    "multipleOf",
    "a",
    "B",
]
REFS = st.sampled_from(["#", "#/$defs/a", "#/$defs/B", "#/properties/a", "#/x/0", "x"])
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["object", "array", "string", "null", "integer", "a", "B"])
    | REFS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=5)
    ),
    max_leaves=40,
)


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYWORDS), JSON_VALUES, max_size=6))
def test_any_json_object_as_a_schema_gets_instructions(schema: dict[str, Any]) -> None:
    shape = shape_of(schema)
    assert shape.noun in {"JSON object", "JSON array", "JSON value"}
    assert shape.fields
    assert shape.instructions().endswith("no markdown code fences.")
