"""Typed partials through ``model | parser``: types, the final value, no value changed."""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import json
import random
from typing import Annotated, Any, Literal

import pytest
from _chunked_chat import ChunkedChat, random_chunks
from pydantic import BaseModel, Field, field_validator
from typing_extensions import TypedDict

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    partial_model,
)
from langchain_jsonrecover.parsers import partial_values
from langchain_jsonrecover.partial_models import PartialBase


class Color(enum.Enum):
    GR = "gr"
    GREEN = "green"


class Item(BaseModel):
    sku: Annotated[str, Field(pattern=r"^[A-Z]+-\d+$")]
    qty: int
    price: float


class Buyer(BaseModel):
    name: str
    vip: bool


class Order(BaseModel):
    id: int
    status: Literal["p", "paid", "sent"]
    color: Color
    placed: dt.date
    at: dt.datetime
    note: str
    buyer: Buyer
    items: list[Item]
    tags: list[str]
    scores: list[float]


class Shout(BaseModel):
    word: str
    other: str

    @field_validator("word")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()


class Row(TypedDict):
    a: int


def _number(rng: random.Random) -> float | int:
    return rng.choice(
        [rng.randint(-(10**9), 10**9), round(rng.uniform(0, 5000), 3), 1999.5, 6739158]
    )


def _order(rng: random.Random) -> dict[str, Any]:
    return {
        "id": rng.randint(1, 10**12),
        "status": rng.choice(["p", "paid", "sent"]),
        "color": rng.choice(["gr", "green"]),
        "placed": f"2024-{rng.randint(1, 12):02}-{rng.randint(10, 28)}",
        "at": rng.choice(["2024-01-01T10:00:30", "2024-01-01T10:00:30.125+02:00"]),
        "note": "".join(rng.choice('ab 12,."\\é') for _ in range(rng.randint(0, 12))),
        "buyer": {"name": "Ada " * rng.randint(1, 3), "vip": rng.random() < 0.5},
        "items": [
            {
                "sku": f"AB-{rng.randint(1, 99999)}",
                "qty": rng.randint(1, 999),
                "price": _number(rng),
            }
            for _ in range(rng.randint(0, 3))
        ],
        "tags": [rng.choice(["x", "xy", "xyz"]) for _ in range(rng.randint(0, 3))],
        "scores": [_number(rng) for _ in range(rng.randint(0, 3))],
    }


def _reply(seed: int) -> str:
    rng = random.Random(seed)  # noqa: S311 - test data
    fields = list(_order(rng).items())
    rng.shuffle(fields)
    body = json.dumps(dict(fields), indent=rng.choice([None, 2]), ensure_ascii=False)
    return rng.choice(["{}", "Here:\n```json\n{}\n```\nDone.", "Sure! {}"]).format(body)


def agrees(shown: Any, final: Any, *, grows: bool) -> bool:
    """Whether a partial value says nothing the final value changes."""
    if isinstance(shown, PartialBase):
        for name, info in type(final).model_fields.items():
            value = getattr(shown, name)
            plain = info.annotation in {str, list[str]} and not info.metadata
            if value is not None and not agrees(
                value, getattr(final, name), grows=plain
            ):
                return False
        return True
    if isinstance(shown, list):
        return len(shown) <= len(final) and all(
            agrees(s, f, grows=grows) for s, f in zip(shown, final, strict=False)
        )
    if grows and isinstance(shown, str):
        return bool(final.startswith(shown))
    return type(shown) is type(final) and bool(shown == final)


def _stream(parser: Any, reply: str, seed: int) -> list[Any]:
    return list((ChunkedChat(reply=reply, seed=seed) | parser).stream("hi"))


async def _astream(parser: Any, reply: str, seed: int) -> list[Any]:
    return [
        v async for v in (ChunkedChat(reply=reply, seed=seed) | parser).astream("hi")
    ]


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("how", ["sync", "async"])
async def test_partials_are_typed_and_never_show_a_changed_value(
    seed: int, how: str
) -> None:
    reply = _reply(seed)
    parser = JsonFenceOutputParser(pydantic_object=Order)
    items = (
        await _astream(parser, reply, seed)
        if how == "async"
        else _stream(parser, reply, seed)
    )
    final = parser.invoke(reply)
    assert type(items[-1]) is Order
    assert items[-1] == final
    assert len(items) > 1
    assert all(type(item) is partial_model(Order) for item in items[:-1])
    assert all(agrees(item, final, grows=False) for item in items[:-1])
    assert {item.partial_candidate for item in items[:-1]} == {1}


def _until_the_end(parser: Any, reply: str, size: int) -> list[Any]:
    """What a stream yields before its end (a cut reply raises there)."""
    items: list[Any] = []
    with contextlib.suppress(JsonRecoveryError):
        items.extend(parser.transform(iter(random_chunks(reply, 0, size))))
    return items


@pytest.mark.parametrize(
    ("reply", "withheld"),
    [
        # A number, a literal, an enum, a date, a pattern at the cut.
        ('{"note": "x", "id": 12', "id"),
        ('{"note": "x", "status": "p', "status"),
        ('{"note": "x", "color": "gr', "color"),
        ('{"note": "x", "at": "2024-01-01T10:00', "at"),
        ('{"note": "x", "items": [{"qty": 1, "sku": "AB-1', "items"),
    ],
)
def test_a_value_at_the_cut_is_withheld(reply: str, withheld: str) -> None:
    items = _until_the_end(JsonFenceOutputParser(pydantic_object=Order), reply, 1)
    assert items
    assert items[-1].note == "x"
    shown = [getattr(i, withheld) for i in items]
    if withheld == "items":
        shown = [s[0].sku for s in shown if s]
    assert shown == [None] * len(shown)


def test_the_same_values_appear_once_complete() -> None:
    reply = '{"id": 12, "status": "p", "at": "2024-01-01T10:00", "items": [{"sku": "AB-1"}], "note": "a note long enough for a re-parse'
    last = _until_the_end(JsonFenceOutputParser(pydantic_object=Order), reply, 1)[-1]
    assert (last.id, last.status) == (12, "p")
    assert last.at == dt.datetime(2024, 1, 1, 10, 0)  # noqa: DTZ001
    assert last.items[0].sku == "AB-1"


def test_plain_strings_grow_and_complete_values_appear() -> None:
    reply = '{"note": "hello world", "status": "paid", "tags": ["ab", "c"], "id": 7'
    items = _until_the_end(JsonFenceOutputParser(pydantic_object=Order), reply, 2)
    notes = [i.note for i in items if i.note is not None]
    assert len(set(notes)) > 1
    assert all("hello world".startswith(n) for n in notes)
    assert items[-1].status == "paid"
    assert items[-1].tags == ["ab", "c"]


def test_a_field_with_a_validator_appears_only_in_the_final_value() -> None:
    reply = '{"word": "hi", "other": "there"}'
    items = _stream(JsonFenceOutputParser(pydantic_object=Shout), reply, 3)
    assert all(i.word is None for i in items[:-1])
    assert items[-1] == Shout(word="HI", other="there")


def test_another_candidate_is_marked() -> None:
    reply = (
        'Not like {"buyer": {"name": "Bob"}} but:\n```json\n{"buyer": {"name": "Ada"}}'
    )
    items = _until_the_end(JsonFenceOutputParser(pydantic_object=Order), reply, 5)
    names = [(i.partial_candidate, i.buyer and i.buyer.name) for i in items]
    assert (1, "Bob") in names
    assert names[-1] == (2, "Ada")
    assert [c for c, _ in names] == sorted(c for c, _ in names)


@pytest.mark.parametrize(
    ("schema", "reply"),
    [(Row, '{"a": 1, "b": 2}'), ({"type": "object"}, '{"a": 1, "b": 2}')],
)
def test_typeddict_and_dict_schemas_keep_dict_partials(schema: Any, reply: str) -> None:
    items = _stream(JsonFenceOutputParser(pydantic_object=schema), reply, 2)
    assert all(type(i) is dict for i in items)


def test_diff_keeps_yielding_patches() -> None:
    reply = '{"buyer": {"name": "Ada", "vip": true}}'
    items = _stream(JsonFenceOutputParser(pydantic_object=Buyer, diff=True), reply, 4)
    assert all(isinstance(i, list) for i in items)


def test_list_of_models_streams_lists_of_partials() -> None:
    reply = '[{"name": "Ada", "vip": true}, {"name": "Bo'
    items = _until_the_end(JsonFenceOutputParser(pydantic_object=list[Buyer]), reply, 3)
    assert all(type(b) is partial_model(Buyer) for i in items for b in i)
    assert items[-1][0] == partial_model(Buyer)(name="Ada", vip=True)
    assert items[-1][1].name == "Bo"


def _converted_size(monkeypatch: pytest.MonkeyPatch, items: int) -> int:
    seen: list[int] = []
    real = partial_values.Converter.__call__

    def counting(self: Any, value: Any) -> Any:
        seen.append(len(json.dumps(value)))
        return real(self, value)

    monkeypatch.setattr(partial_values.Converter, "__call__", counting)
    rows = [{"sku": f"AB-{i}", "qty": i, "price": i + 0.5} for i in range(items)]
    reply = json.dumps({"id": 1, "items": rows})
    _until_the_end(JsonFenceOutputParser(pydantic_object=Order), reply, 4)
    return sum(seen)


def test_typed_conversion_work_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    small = _converted_size(monkeypatch, 200)
    large = _converted_size(monkeypatch, 400)
    assert large <= 2.5 * small
