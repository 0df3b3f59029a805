"""partial_model: every field optional, recursively; cached; named; pickled."""

from __future__ import annotations

import datetime as dt  # noqa: TC003 - pydantic reads the annotations
import importlib
import pickle
import typing
from typing import Annotated, Any, Generic, Literal, TypeVar

import pytest
from pydantic import BaseModel, Field, RootModel, ValidationError, field_validator

from langchain_jsonrecover import partial_model
from langchain_jsonrecover.partial_models import (
    PartialBase,
    partial_type,
    set_candidate,
)

T = TypeVar("T")


class Tag(BaseModel):
    label: str


class Person(BaseModel):
    name: str = Field(alias="fullName")
    age: Annotated[int, Field(gt=0)]
    born: dt.date
    tags: list[Tag]
    boss: Tag | None = None
    kind: Literal["a", "b"]


class Cat(BaseModel):
    pet: Literal["cat"]
    meows: int


class Dog(BaseModel):
    pet: Literal["dog"]
    barks: int


class Owner(BaseModel):
    pet: Cat | Dog = Field(discriminator="pet")
    pets: dict[str, Tag]


class Box(BaseModel, Generic[T]):
    item: T


class People(RootModel[list[Person]]):
    pass


class Shouting(BaseModel):
    word: str

    @field_validator("word")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()


class Node(BaseModel):
    value: int
    children: list[Node] = []


def test_every_field_optional_default_none_recursively() -> None:
    partial = partial_model(Person)
    empty = partial()
    assert empty.model_dump() == {
        "name": None,
        "age": None,
        "born": None,
        "tags": None,
        "boss": None,
        "kind": None,
    }
    item: Any = partial.model_validate({"fullName": "Ada", "tags": [{}], "boss": {}})
    assert item.tags[0].label is None
    assert type(item.tags[0]) is partial_model(Tag)
    assert type(item.boss) is partial_model(Tag)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"age": 0}, "greater_than"),
        ({"born": "2024-01-1"}, "date_from_datetime_parsing"),
        ({"kind": "c"}, "literal_error"),
    ],
)
def test_constraints_and_types_are_kept(data: dict[str, object], error: str) -> None:
    with pytest.raises(ValidationError) as raised:
        partial_model(Person).model_validate(data)
    assert raised.value.errors()[0]["type"] == error


@pytest.mark.parametrize(
    ("model", "name"),
    [
        (Person, "PartialPerson"),
        (Box[int], "PartialBox[int]"),
        (People, "PartialPeople"),
        (Node, "PartialNode"),
    ],
)
def test_cached_and_named(model: type[BaseModel], name: str) -> None:
    partial = partial_model(model)
    assert partial is partial_model(model)
    assert partial.__name__ == name
    assert issubclass(partial, PartialBase)
    assert partial_model(partial) is partial


def test_unions_and_containers_are_kept_whole() -> None:
    fields = partial_model(Owner).model_fields
    assert fields["pet"].annotation == (Cat | Dog) | None
    assert fields["pets"].annotation == dict[str, Tag] | None
    assert typing.get_origin(partial_type(list[Tag])) is list
    assert typing.get_args(partial_type(list[Tag])) == (partial_model(Tag),)
    assert partial_type(Tag | None) is partial_model(Tag)


def test_root_models_and_lists_of_models() -> None:
    partial: Any = partial_model(People)
    assert partial().root is None
    item = partial.model_validate([{"fullName": "Ada"}])
    assert type(item.root[0]) is partial_model(Person)


def test_a_model_holding_itself_keeps_its_inner_ones_whole() -> None:
    assert partial_model(Node).model_fields["children"].annotation == list[Node] | None


def test_validators_are_not_copied() -> None:
    shouting: Any = partial_model(Shouting)
    assert shouting(word="hi").word == "hi"


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (Person, {"fullName": "Ada", "tags": [{"label": "x"}], "born": "2024-01-02"}),
        (People, [{"fullName": "Ada", "boss": {}}]),
        (Box[int], {"item": 3}),
    ],
)
def test_instances_pickle(model: type[BaseModel], data: object) -> None:
    item = partial_model(model).model_validate(data)
    set_candidate(item, 2)
    back = pickle.loads(pickle.dumps(item))  # noqa: S301 - our own bytes
    assert back == item
    assert type(back) is type(item)
    assert back.partial_candidate == 2


def test_the_class_pickles_by_its_name() -> None:
    partial = partial_model(Person)
    assert pickle.loads(pickle.dumps(partial)) is partial  # noqa: S301


def test_not_a_model_is_refused() -> None:
    with pytest.raises(TypeError, match="pydantic model class"):
        partial_model(dict)  # type: ignore[arg-type]


def test_a_fresh_process_finds_the_class_by_its_stable_name() -> None:
    name = partial_model(Person).__qualname__
    module = Person.__module__.replace(".", "/")
    assert name == f"PartialPerson@{module}:Person"
    partial_models = importlib.import_module("langchain_jsonrecover.partial_models")
    partial_models._BY_NAME.pop(name)
    assert getattr(partial_models, name) is partial_model(Person)
    with pytest.raises(AttributeError):
        getattr(partial_models, f"PartialNothing@{module}:Nothing")
