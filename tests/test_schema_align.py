"""Schema-aligned reading: one coercion where the schema admits exactly one.

Each case is a reply a model might send, the schema, and either the value a
careful reader accepts (with the repairs listed) or an error where two readings
are plausible or the data is not there.
"""

from __future__ import annotations

import enum
import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from langchain_jsonrecover import JsonFenceOutputParser, SchemaValidationError
from langchain_jsonrecover._core.schema.align import Aligner
from langchain_jsonrecover._core.schema.nodes import normalize_key
from langchain_jsonrecover._core.schema.validate import Accepted, Rejected, Schema


class Trip(BaseModel):
    city: str
    days: int = 1


class Plan(BaseModel):
    response: list[Trip]


class Section(BaseModel):
    heading_text: str
    path: str = ""


class Color(enum.Enum):
    RED = "red"
    GREEN = "Green"


class Paint(BaseModel):
    color: Color
    finish: Literal["matte", "gloss"] = "matte"


class Tint(BaseModel):
    """A union of two sets of allowed strings."""

    tint: Color | Literal["blue"]


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Pet(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class AnyPet(BaseModel):
    """A union without a declared discriminator: the Literal fields tell."""

    pet: Cat | Dog


class Search(BaseModel):
    city: str | None = None
    max_price: int | None = None


class Home(BaseModel):
    owner: str
    address: Trip | None = None


class Note(BaseModel):
    text: str
    extra: str | Trip = ""


class Movie(TypedDict):
    title: str
    year: int


class Account(BaseModel):
    user_name: str
    username: str = ""


class Person(BaseModel):
    name: str
    age: int


class Switch(BaseModel):
    state: Literal["on", "ON"]


class Named(BaseModel):
    name: str


class Labelled(BaseModel):
    name: str
    label: str = ""


class Either(BaseModel):
    item: Named | Labelled


class Open(BaseModel):
    """Extra keys are data here."""

    model_config = ConfigDict(extra="allow")
    title: str = ""
    year: int


class Count(BaseModel):
    foo: int


class Greeting(BaseModel):
    hi: list[str]


ITEM_SCHEMA = {
    "title": "Item",
    "type": "object",
    "properties": {
        "item_id": {"type": "integer"},
        "size": {"enum": ["small", "large"]},
        "parts": {"type": "array", "items": {"$ref": "#/$defs/Part"}},
    },
    "required": ["item_id"],
    "$defs": {"Part": {"type": "object", "properties": {"name": {"type": "string"}}}},
}

KYOTO = [Trip(city="Kyoto")]

READINGS: list[tuple[str, Any, str, Any, tuple[str, ...]]] = [
    (
        "json_string_where_an_array_is_wanted",
        Plan,
        '{"response": "[{\\"city\\": \\"Kyoto\\"}]"}',
        Plan(response=KYOTO),
        ("decoded_json_string",),
    ),
    (
        "json_string_encoded_twice",
        Plan,
        '{"response": "\\"[{\\\\\\"city\\\\\\": \\\\\\"Kyoto\\\\\\"}]\\""}',
        Plan(response=KYOTO),
        ("decoded_json_string",),
    ),
    (
        "json_string_in_an_optional_field",
        Home,
        '{"owner": "Ada", "address": "{\\"city\\": \\"Oslo\\", \\"days\\": 2}"}',
        Home(owner="Ada", address=Trip(city="Oslo", days=2)),
        ("decoded_json_string",),
    ),
    (
        "json_strings_as_map_values",
        dict[str, Trip],
        '{"a": "{\\"city\\": \\"Rome\\"}", "b": {"city": "Nice"}}',
        {"a": Trip(city="Rome"), "b": Trip(city="Nice")},
        ("decoded_json_string",),
    ),
    (
        "wrapper_that_names_the_payload",
        Section,
        '{"Output": {"heading_text": "Intro"}}',
        Section(heading_text="Intro"),
        ("wrapper_unwrapped",),
    ),
    (
        "wrapper_named_after_the_schema_title_in_snake_case",
        Person,
        '{"person": {"name": "Ada", "age": "36"}}',
        Person(name="Ada", age=36),
        ("unwrapped_model_name",),
    ),
    (
        "wrapper_around_an_array_named_after_its_items",
        list[Trip],
        '{"trips": [{"city": "Kyoto"}]}',
        KYOTO,
        ("wrapper_unwrapped",),
    ),
    (
        "wrapper_around_an_array_named_result",
        list[Trip],
        '{"result": [{"city": "Kyoto"}]}',
        KYOTO,
        ("wrapper_unwrapped",),
    ),
    (
        "wrapper_of_a_nested_object",
        Home,
        '{"owner": "Ada", "address": {"trip": {"city": "Oslo"}}}',
        Home(owner="Ada", address=Trip(city="Oslo")),
        ("wrapper_unwrapped",),
    ),
    (
        "tool_call_envelope",
        Section,
        (
            '{"type": "function", "function": {"name": "write",'
            ' "parameters": {"heading_text": "Intro"}}}'
        ),
        Section(heading_text="Intro"),
        ("tool_envelope_unwrapped",),
    ),
    (
        "tool_call_envelope_with_arguments_as_a_string",
        Section,
        (
            '{"type": "function", "function": {"name": "write",'
            ' "arguments": "{\\"heading_text\\": \\"Intro\\"}"}}'
        ),
        Section(heading_text="Intro"),
        ("tool_envelope_unwrapped",),
    ),
    (
        "fenced_json_in_a_string",
        Section,
        '{"result": "```json\\n{\\"heading_text\\": \\"Intro\\"}\\n```"}',
        Section(heading_text="Intro"),
        ("fenced_string_decoded", "wrapper_unwrapped"),
    ),
    (
        "key_case_and_spaces",
        Person,
        '{" Name ": "Ada", "AGE": 36}',
        Person(name="Ada", age=36),
        ("key_matched",),
    ),
    (
        "key_separators",
        Section,
        '{"heading-text": "Intro", "PATH": "/a"}',
        Section(heading_text="Intro", path="/a"),
        ("key_matched",),
    ),
    (
        "key_with_tag_residue",
        Section,
        '{"heading text</arg_key>": "Intro", "<arg_key>path": "/srv"}',
        Section(heading_text="Intro", path="/srv"),
        ("key_matched",),
    ),
    (
        "key_matched_in_every_list_item",
        list[Trip],
        '[{"City": "Kyoto"}, {"city ": "Oslo", "Days": 3}]',
        [Trip(city="Kyoto"), Trip(city="Oslo", days=3)],
        ("key_matched",),
    ),
    (
        "key_matched_fills_an_all_optional_model",
        Search,
        '{"City": "Paris", "max-price": 90}',
        Search(city="Paris", max_price=90),
        ("key_matched",),
    ),
    (
        "enum_by_case_and_spaces",
        Paint,
        '{"color": " RED ", "finish": "Gloss"}',
        Paint(color=Color.RED, finish="gloss"),
        ("enum_matched",),
    ),
    (
        "enum_value_with_its_own_case",
        Paint,
        '{"color": "green"}',
        Paint(color=Color.GREEN),
        ("enum_matched",),
    ),
    (
        "enum_across_a_union_of_allowed_values",
        list[Tint],
        '[{"tint": "Red "}, {"tint": "BLUE"}]',
        [Tint(tint=Color.RED), Tint(tint="blue")],
        ("enum_matched",),
    ),
    (
        "discriminator_by_case",
        Pet,
        '{"pet": {"kind": "Cat", "lives": 9}}',
        Pet(pet=Cat(kind="cat", lives=9)),
        ("enum_matched",),
    ),
    (
        "implicit_discriminator",
        AnyPet,
        '{"pet": {"kind": "DOG ", "good": true}}',
        AnyPet(pet=Dog(kind="dog", good=True)),
        ("enum_matched",),
    ),
    (
        "typed_dict_through_type_adapter",
        Movie,
        '{"Title": "Alien", "YEAR": 1979}',
        {"title": "Alien", "year": 1979},
        ("key_matched",),
    ),
    (
        "json_schema_dict",
        ITEM_SCHEMA,
        '{"Item-ID": 7, "size": "Large", "parts": "[{\\"name\\": \\"bolt\\"}]"}',
        {"item_id": 7, "size": "large", "parts": [{"name": "bolt"}]},
        ("key_matched", "enum_matched", "decoded_json_string"),
    ),
    (
        "a_near_key_with_the_same_value_is_one_reading",
        Section,
        '{"heading_text": "Intro", "Heading Text": "Intro"}',
        Section(heading_text="Intro"),
        (),
    ),
    (
        "json_string_kept_where_a_string_is_allowed",
        Note,
        '{"text": "{\\"city\\": \\"Oslo\\"}", "extra": "{\\"city\\": \\"Oslo\\"}"}',
        Note(text='{"city": "Oslo"}', extra='{"city": "Oslo"}'),
        (),
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "expected", "repairs"),
    [row[1:] for row in READINGS],
    ids=[row[0] for row in READINGS],
)
def test_aligned_reading(
    target: Any, text: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    found = JsonFenceOutputParser(pydantic_object=target).extract(text)
    assert found.value == expected
    assert found.repairs == repairs


# Where two readings are plausible, or the data is not there: the error stands.

DECLINED: list[tuple[str, Any, str, list[str]]] = [
    (
        "key_matching_two_fields",
        Account,
        '{"User-Name": "ada"}',
        ["user_name"],
    ),
    (
        "two_keys_matching_one_field",
        Person,
        '{"Name": "Ada", "NAME": "Bob", "age": 36}',
        ["name"],
    ),
    ("enum_matching_two_values", Switch, '{"state": "On"}', ["state"]),
    (
        "enum_named_in_prose",
        Paint,
        '{"color": "The answer is red"}',
        ["color"],
    ),
    ("enum_in_an_array", Paint, '{"color": ["red"]}', ["color"]),
    (
        "union_branches_with_the_same_keys",
        Either,
        '{"item": {"Name": "x"}}',
        ["item.Named.name", "item.Labelled.name"],
    ),
    (
        "unknown_discriminator",
        Pet,
        '{"pet": {"kind": "bird", "lives": 1}}',
        ["pet"],
    ),
    (
        "two_wrappers",
        Section,
        '{"a": {"b": {"heading_text": "Intro"}}}',
        ["heading_text"],
    ),
    (
        "wrapper_key_matching_a_field",
        Section,
        '{"Heading-Text": {"heading_text": "Intro"}}',
        ["heading_text"],
    ),
    (
        "wrapper_beside_another_key",
        Section,
        '{"data": {"heading_text": "Intro"}, "status": "ok"}',
        ["heading_text"],
    ),
    (
        "wrapper_around_a_scalar",
        Person,
        '{"name": "Ada", "age": {"value": 36}}',
        ["age"],
    ),
    (
        "wrapper_around_an_empty_array",
        list[Trip],
        '{"trips": []}',
        [""],
    ),
    (
        "json_string_of_the_wrong_kind",
        Home,
        '{"owner": "Ada", "address": "42"}',
        ["address"],
    ),
    ("array_for_an_object", Person, '[{"name": "Ada", "age": 36}]', [""]),
    ("object_for_an_array", list[Trip], '{"city": "Kyoto"}', [""]),
    ("key_that_may_be_data_is_no_wrapper", Open, '{"draft": {"year": 1999}}', [""]),
    # BAML's test_nested_obj_from_int reads 1214 as {"foo": 1214}: a guess.
    ("number_for_a_one_field_model", Count, "1214", [""]),
    # BAML's test_wrapped_objects reads {"hi": "a"} as [{"hi": ["a"]}].
    ("object_and_string_for_lists", list[Greeting], '{"hi": "a"}', [""]),
    ("one_field_model_with_another_key", Named, '{"title": "Ada"}', ["name"]),
    ("wrapper_for_a_number", int, '{"value": 42}', [""]),
    (
        "json_string_that_does_not_decode",
        Plan,
        '{"response": "[{city: Kyoto}]"}',
        ["response"],
    ),
    (
        "wrapper_whose_inner_fails_reports_the_inner",
        Person,
        '{"data": {"name": "Ada", "age": "old"}}',
        ["age"],
    ),
    (
        "matched_keys_that_fail_report_the_matched",
        Person,
        '{"Name": "Ada", "Age": "old"}',
        ["age"],
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "paths"),
    [row[1:] for row in DECLINED],
    ids=[row[0] for row in DECLINED],
)
def test_no_coercion_where_the_schema_admits_two(
    target: Any, text: str, paths: list[str]
) -> None:
    with pytest.raises(SchemaValidationError) as caught:
        JsonFenceOutputParser(pydantic_object=target).parse(text)
    assert [e["path"] for e in caught.value.errors] == paths


KEYS: list[tuple[str, str]] = [
    ("Heading ", "heading"),
    ("heading-text", "headingtext"),
    ("path</arg_key>", "path"),
    ("<arg_value>x", "x"),
    ("a<b>", "a"),
    ("a<b", "a<b"),
    ("<|im_end|>", "<|imend|>"),
    ("", ""),
]


@pytest.mark.parametrize(("key", "normal"), KEYS, ids=[k for k, _ in KEYS])
def test_keys_compared_without_case_separators_or_tags(key: str, normal: str) -> None:
    assert normalize_key(key) == normal


def test_fenced_json_string_as_the_whole_value() -> None:
    value = '```json\n{"name": "Ada", "age": 36}\n```'
    assert Schema(Person).accept(value) == Accepted(
        Person(name="Ada", age=36), ("fenced_string_decoded",), aligned=True
    )


def test_value_is_never_changed_in_place() -> None:
    value = {"wrap": {"Heading Text": "x", "path": "[1]"}}
    copy = {"wrap": {"Heading Text": "x", "path": "[1]"}}
    accepted = Schema(Section).accept(value)
    assert value == copy
    assert accepted == Schema(Section).accept(copy)


def _count_walk(monkeypatch: pytest.MonkeyPatch, value: Any, target: Any) -> int:
    calls = 0
    walk = Aligner._align

    def counting(self: Aligner, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        return walk(self, *args)

    monkeypatch.setattr(Aligner, "_align", counting)
    Schema(target).accept(value)
    return calls


def _wrappers(depth: int) -> Any:
    value: Any = {"heading_text": 1}
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    ("build", "target"),
    [
        (_wrappers, dict[str, Any]),
        (lambda n: {"m": [_wrappers(5) for _ in range(n)]}, dict[str, list[Section]]),
        (lambda n: [{"City": str(i), "days": "x"} for i in range(n)], list[Trip]),
        (lambda n: {f"K{i}": {"Name": "a"} for i in range(n)}, dict[str, Either]),
    ],
    ids=["nested_wrappers", "wrappers_in_lists", "matched_keys", "union_items"],
)
def test_walk_is_linear(
    monkeypatch: pytest.MonkeyPatch, build: Any, target: Any
) -> None:
    small = _count_walk(monkeypatch, build(20), target)
    large = _count_walk(monkeypatch, build(40), target)
    assert large <= 2 * small + 4


def test_walk_stops_deepening_at_its_limit() -> None:
    value: Any = "[1]"
    for _ in range(5000):
        value = {"x": value}
    aligner = Aligner({"$ref": "#/$defs/N", "$defs": {"N": _NODE}}, max_depth=64)
    aligned, repairs = aligner.align(value)
    assert repairs == ()
    below, original = aligned, value
    for _ in range(100):
        below, original = below["x"], original["x"]
    assert below is original  # not walked, not copied


_NODE = {
    "type": "object",
    "properties": {"x": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "array"}]}},
}


# A value valid only because a default stands in for a key spelt otherwise.


class Profile(BaseModel):
    name: str
    age: int = 0


HIDDEN: list[tuple[str, str, Any, tuple[str, ...]]] = [
    (
        "near_key_fills_the_field",
        '{"name": "Ada", "Age": 36}',
        Profile(name="Ada", age=36),
        ("key_matched",),
    ),
    (
        "field_present_with_a_near_key_of_the_same_value",
        '{"name": "Ada", "age": 1, "Age": 1}',
        Profile(name="Ada", age=1),
        (),
    ),
    (
        "field_present_with_a_near_key_of_another_value",
        '{"name": "Ada", "age": 1, "Age": 36}',
        ["age"],
        (),
    ),
    ("near_key_that_fails_is_reported", '{"name": "Ada", "Age": "old"}', ["age"], ()),
    (
        "unrelated_extra_key_ignored",
        '{"name": "Ada", "height": 170}',
        Profile(name="Ada"),
        (),
    ),
]


NESTED_HIDDEN: list[tuple[str, Any, str, Any, tuple[str, ...]]] = [
    (
        "in_list_items",
        list[Trip],
        '[{"city": "Kyoto", "Days": 2}, {"city": "Oslo"}]',
        [Trip(city="Kyoto", days=2), Trip(city="Oslo")],
        ("key_matched",),
    ),
    (
        "in_a_nested_object_that_fails",
        Home,
        '{"owner": "Ada", "address": {"city": "Oslo", "DAYS": "many"}}',
        ["address.days"],
        (),
    ),
    (
        "in_map_values",
        dict[str, Trip],
        '{"a": {"city": "Rome", "days ": 4}}',
        {"a": Trip(city="Rome", days=4)},
        ("key_matched",),
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "expected", "repairs"),
    [row[1:] for row in NESTED_HIDDEN],
    ids=[row[0] for row in NESTED_HIDDEN],
)
def test_default_never_hides_a_key_spelt_otherwise_at_any_depth(
    target: Any, text: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=target)
    if isinstance(expected, list) and isinstance(expected[0], str):
        with pytest.raises(SchemaValidationError) as caught:
            parser.parse(text)
        assert [e["path"] for e in caught.value.errors] == expected
        return
    found = parser.extract(text)
    assert found.value == expected
    assert found.repairs == repairs


def test_schema_without_defaults_is_searched_for_two_keys_of_one_field() -> None:
    parser = JsonFenceOutputParser(pydantic_object=list[Person])
    with pytest.raises(SchemaValidationError) as caught:
        parser.parse('[{"name": "Ada", "age": 36, "NAME": "Bob"}]')
    assert [e["path"] for e in caught.value.errors] == ["name"]


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [row[1:] for row in HIDDEN],
    ids=[row[0] for row in HIDDEN],
)
def test_default_never_hides_a_key_spelt_otherwise(
    text: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=Profile)
    if isinstance(expected, list):
        with pytest.raises(SchemaValidationError) as caught:
            parser.parse(text)
        assert [e["path"] for e in caught.value.errors] == expected
        return
    found = parser.extract(text)
    assert found.value == expected
    assert found.repairs == repairs


# Which candidate wins: as it stands before read through the schema.

CHOICE: list[tuple[str, str, dict[str, Any], Person, tuple[str, ...]]] = [
    (
        "strict_answer_beats_an_earlier_aligned_one_of_the_same_value",
        'Example: {"Name": "Ada", "age": 36}. Answer: {"name": "Ada", "age": 36}',
        {},
        Person(name="Ada", age=36),
        ("prose_trimmed",),
    ),
    (
        "aligned_candidate_when_none_validates_as_it_stands",
        'Draft: {"foo": 1}. Answer: {"Name": "Ada", "age": 36}',
        {},
        Person(name="Ada", age=36),
        ("prose_trimmed", "key_matched"),
    ),
    (
        "prefer_last_takes_the_last_even_when_aligned",
        'Example: {"foo": 1}. Answer: {"Name": "Ada", "age": 36}',
        {"prefer": "last"},
        Person(name="Ada", age=36),
        ("prose_trimmed", "key_matched"),
    ),
]


@pytest.mark.parametrize(
    ("text", "options", "expected", "repairs"),
    [row[1:] for row in CHOICE],
    ids=[row[0] for row in CHOICE],
)
def test_candidate_as_it_stands_wins_over_an_aligned_one(
    text: str, options: dict[str, Any], expected: Person, repairs: tuple[str, ...]
) -> None:
    found = JsonFenceOutputParser(pydantic_object=Person, **options).extract(text)
    assert found.value == expected
    assert found.repairs == repairs


# Properties: any valid record, misspelt any way the reading admits, comes back.


class Record(BaseModel):
    title: str
    due_date: str
    tags: list[str]
    rating: Literal["low", "high"]
    note: str | None = None


def _respell(draw: st.DrawFn, name: str) -> str:
    """A key that differs from the field only in ways the reading admits."""
    sep = draw(st.sampled_from(["_", "-", " ", ""]))
    case = draw(st.sampled_from([str.lower, str.upper, str.title]))
    key = case(name.replace("_", sep))
    pad = draw(st.sampled_from(["", " ", "  "]))
    tag = draw(st.sampled_from(["", "</arg_key>"]))
    return f"{pad}{key}{pad}{tag}"


@st.composite
def _misspelt(draw: st.DrawFn) -> tuple[Record, str, set[str]]:
    text = st.text(max_size=12)
    record = Record(
        title=draw(text),
        due_date=draw(text),
        tags=draw(st.lists(text, max_size=3)),
        rating=draw(st.sampled_from(["low", "high"])),
        note=draw(st.none() | text),
    )
    value: dict[str, Any] = record.model_dump()
    made: set[str] = set()
    if draw(st.booleans()):
        value = {_respell(draw, k): v for k, v in value.items()}
    if draw(st.booleans()):
        rating = value.pop(next(k for k in value if "rating" in k.lower()))
        value["rating"] = draw(st.sampled_from([" ", ""])) + rating.upper()
        made.add("enum_matched")
    # A respelling may draw the field's own name, and the step above gives the
    # rating its own name back: only a key still changed here is matched.
    if set(value) != set(Record.model_fields):
        made.add("key_matched")
    if draw(st.booleans()):
        tags_key = next(k for k in value if "tags" in k.lower())
        value[tags_key] = json.dumps(value[tags_key])
        made.add("decoded_json_string")
    if draw(st.booleans()):
        wrapper = draw(st.sampled_from(["data", "result", "Output", "Record"]))
        value = {wrapper: value}
        # Under the schema's name it is a known envelope, with its own name.
        made.add("unwrapped_model_name" if wrapper == "Record" else "wrapper_unwrapped")
    return record, json.dumps(value), made


@given(_misspelt())
@settings(max_examples=150, deadline=None)
def test_any_misspelling_the_reading_admits_comes_back(
    case: tuple[Record, str, set[str]],
) -> None:
    record, text, made = case
    found = JsonFenceOutputParser(pydantic_object=Record).extract(text)
    assert found.value == record
    assert set(found.repairs) == made


SELF_REFERRING: list[tuple[str, dict[str, Any]]] = [
    (
        "union_of_itself",
        {
            "$ref": "#/$defs/A",
            "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}},
        },
    ),
    ("ref_to_itself", {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}),
    ("root_in_its_own_union", {"anyOf": [{"$ref": "#"}, {"type": "array"}]}),
]


@pytest.mark.parametrize(
    "schema", [s for _, s in SELF_REFERRING], ids=[n for n, _ in SELF_REFERRING]
)
def test_schema_that_refers_to_itself_ends(schema: dict[str, Any]) -> None:
    aligner = Aligner(schema)
    for value in ({"k": "[1]"}, "[1]", [{"a": 1}], {"x": {"y": 1}}):
        assert aligner.align(value) == (value, ())  # nothing to read, and it ends
        assert aligner.fills(value)


def test_value_that_validates_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_walk(*_: Any, **__: Any) -> Any:
        raise AssertionError

    monkeypatch.setattr(Aligner, "align", no_walk)
    parser = JsonFenceOutputParser(pydantic_object=list[Trip])
    assert parser.parse('[{"city": "Kyoto"}]') == KYOTO


_KEYS = st.sampled_from(
    ["name", "Name ", "age", "AGE", "city", "kind", "pet", "item-id", "_", "data"]
) | st.text(max_size=6)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from(
        ["cat", " DOG", "Large", '{"city": "x"}', "[1]", "```json\n{}\n```"]
    )
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


_SCHEMAS = [
    Schema(t)
    for t in (Person, Pet, AnyPet, Home, list[Trip], dict[str, Trip], ITEM_SCHEMA)
]


@given(_JSON)
@settings(max_examples=200, deadline=None)
def test_any_value_is_accepted_or_rejected_never_a_crash(value: Any) -> None:
    for schema in _SCHEMAS:
        verdict = schema.accept(value)
        assert isinstance(verdict, Accepted | Rejected)


@st.composite
def _wrapped_person(draw: st.DrawFn) -> tuple[Any, str]:
    """A Person's data, spelt and wrapped in ways some readings admit."""
    name = draw(st.sampled_from(["Ada", " Bob", "36"]))
    value: Any = {
        draw(st.sampled_from(["name", "Name ", "NAME", "na-me"])): name,
        draw(st.sampled_from(["age", "Age", " AGE"])): draw(
            st.sampled_from([36, "36"])
        ),
    }
    value.update(
        draw(st.dictionaries(st.sampled_from(["city", "_x"]), st.text(max_size=3)))
    )
    for _ in range(draw(st.integers(0, 3))):
        value = draw(
            st.sampled_from(
                [
                    {"data": value},
                    {"_": value},
                    json.dumps(value),
                    "```json\n" + json.dumps(value) + "\n```",
                    [value],
                    {"arguments": value, "name": "person"},
                ]
            )
        )
    return value, name


@given(_wrapped_person())
@settings(max_examples=300, deadline=None)
def test_a_reading_never_invents_a_value(case: tuple[Any, str]) -> None:
    value, name = case
    verdict = _SCHEMAS[0].accept(value)
    if isinstance(verdict, Accepted):
        assert verdict.value == Person(name=name, age=36)


def _count_search(monkeypatch: pytest.MonkeyPatch, value: Any, target: Any) -> int:
    calls = 0
    renames = Aligner._read_keys

    def counting(self: Aligner, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        return renames(self, *args)

    monkeypatch.setattr(Aligner, "_read_keys", counting)
    assert isinstance(Schema(target).accept(value), Accepted)
    return calls


@pytest.mark.parametrize(
    ("build", "target"),
    [
        (lambda n: [{"city": "x", "Town": "y"} for _ in range(n)], list[Trip]),
        (
            lambda n: {"m": [{"owner": "a", "address": {"city": "x", "zz": 1}}] * n},
            dict[str, list[Home]],
        ),
    ],
    ids=["list_of_objects", "nested_objects"],
)
def test_search_for_hidden_fields_is_linear(
    monkeypatch: pytest.MonkeyPatch, build: Any, target: Any
) -> None:
    small = _count_search(monkeypatch, build(50), target)
    large = _count_search(monkeypatch, build(100), target)
    assert 0 < large <= 2 * small
